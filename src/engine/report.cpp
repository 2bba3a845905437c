// amdml report: a Markdown bug report (or the doctor's JSON plus a "report" key) ready
// to paste into an issue. The report is rendered from a replay of the recorded run --
// redacted by default, its secrets cut always -- so it shows exactly what the attached
// snapshot (--snapshot) reproduces and nothing the snapshot would not contain.
// Stages: host, knowledge, probes, rules, record, replay (probes, rules), write, report.
#include <ctime>

#include "engine/snapshot_run.hpp"
#include "platform/host.hpp"
#include "platform/snapshot_writer.hpp"
#include "platform/terminal.hpp"
#include "render/bug_report.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"

namespace amdml::engine {

namespace {

std::string default_snapshot_name() {
  std::time_t now = std::time(nullptr);
  std::tm tm {};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "amdml-snapshot-%Y%m%d-%H%M%S.tar.gz", &tm);
  return buf;
}

// The doctor's run on the redacted record, replayed from a temporary --root tree.
Report replay(const Session& s, const RecordedRun& run, const probes::ProbeOptions& po) {
  Stage timer("replay");
  std::string base = platform::process_env("TMPDIR").value_or("/tmp");
  auto tmp = platform::make_temp_dir(base + "/amdml-report");
  if (!tmp) throw std::runtime_error("temporary directory: " + tmp.error().message);
  auto written = platform::write_snapshot_tree(run.recording, run.manifest_text, *tmp);
  if (!written) {
    (void)platform::remove_tree(*tmp);
    throw std::runtime_error("temporary snapshot: " + written.error().message);
  }
  auto host = platform::make_host(*tmp);
  if (!host) {
    (void)platform::remove_tree(*tmp);
    throw std::runtime_error("temporary snapshot: " + host.error().message);
  }
  Report r;
  r.facts = run_probes(**host, s.kb, po);
  r.facts.knowledge = knowledge_facts(s);
  run_rules(r, s.kb);
  (void)platform::remove_tree(*tmp);
  return r;
}

int report_run(const GlobalOptions& g, const ReportOptions& o) {
  if (!o.snapshot_file.empty() && !platform::is_tarball_path(o.snapshot_file))
    throw UsageError("--snapshot-file " + o.snapshot_file + ": must end in .tar.gz or .tgz");
  Session s = open_session(g);
  const probes::ProbeOptions po = o.probe.options();
  RecordedRun run = record_run(s, po, !o.no_redact);
  render::BugReportExtras x;
  x.redacted = run.redacted;
  x.redaction = snapshot_summary(run);
  // Always the replay: with --no-redact the record still has its secrets cut.
  Report report = replay(s, run, po);
  if (o.snapshot || !o.snapshot_file.empty()) {
    std::string path = o.snapshot_file.empty() ? default_snapshot_name() : o.snapshot_file;
    auto stats = stage("write", [&] { return platform::publish_snapshot(run.recording, run.manifest_text, path, o.force); });
    if (!stats) snapshot_failed(path, stats.error());
    x.snapshot_path = path;
    x.snapshot_dir = platform::tarball_dir_name(path);
    x.snapshot_bytes = stats->bytes;
  }
  Stage timer("report");
  const bool json = o.format == Format::json;
  std::string text = json ? render::json_text(render::bug_report_json(report, x)) + "\n" : render::render_bug_report(report, x);
  // Belt and braces: the same replacements over the finished text.
  text = run.redactor.text(text);
  if (json) emit(o.output, text);
  else emit_text(o.output, text);
  return kExitOk;
}

}  // namespace

int report(const GlobalOptions& g, const ReportOptions& o) {
  try {
    return report_run(g, o);
  } catch (const OutputError&) {
    throw;
  } catch (const UsageError& e) {
    if (o.format == Format::json) emit(o.output, render::json_text(render::error_json(e.what())) + "\n");
    throw;
  }
}

}  // namespace amdml::engine
