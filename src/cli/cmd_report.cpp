// amdml report: a Markdown bug report (or the doctor's JSON plus a "report" key) ready
// to paste into an issue. The report is rendered from a replay of the recorded run --
// redacted by default, its secrets cut always -- so it shows exactly what the attached
// snapshot (--snapshot) reproduces and nothing the snapshot would not contain.
#include <ctime>

#include "render/render.hpp"
#include "platform/host.hpp"
#include "rules/rules.hpp"
#include "cli/cli.hpp"
#include "cli/snapshot_run.hpp"
#include "platform/snapshot_writer.hpp"
#include "platform/terminal.hpp"
#include "render/bug_report.hpp"

namespace amdml::cli {

namespace {

struct ReportOptions {
  std::string format = "markdown";
  std::string output;
  bool snapshot = false;
  std::string snapshot_file;
  bool no_redact = false;
  bool force = false;
  ProbeFlags probe;
};

std::string default_snapshot_name() {
  std::time_t now = std::time(nullptr);
  std::tm tm {};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "amdml-snapshot-%Y%m%d-%H%M%S.tar.gz", &tm);
  return buf;
}

// The doctor's run on the redacted record, replayed from a temporary --root tree.
Report replay(const Session& s, const RecordedRun& run, const ProbeOptions& po) {
  std::string base = platform::process_env("TMPDIR").value_or("/tmp");
  auto tmp = platform::make_temp_dir(base + "/amdml-report");
  if (!tmp) throw std::runtime_error("temporary directory: " + tmp.error().message);
  auto written = platform::write_snapshot_tree(run.recording, run.manifest_text, *tmp);
  if (!written) {
    (void)platform::remove_tree(*tmp);
    throw std::runtime_error("temporary snapshot: " + written.error().message);
  }
  auto host = make_host(*tmp);
  if (!host) {
    (void)platform::remove_tree(*tmp);
    throw std::runtime_error("temporary snapshot: " + host.error().message);
  }
  Report r;
  r.facts = collect_facts(**host, s.kb, po);
  r.findings = diagnose(r.facts, s.kb);
  r.summary = summarize(r.findings);
  (void)platform::remove_tree(*tmp);
  return r;
}

}  // namespace

CommandRunner setup_report(CLI::App& sub, const GlobalOptions& g) {
  auto o = std::make_shared<ReportOptions>();
  sub.add_option("--format,-f", o->format, "Output format: markdown (default) or json (the doctor's schema plus \"report\")")
      ->check(CLI::IsMember({"markdown", "json"}));
  sub.add_option("--output,-o", o->output, "Write the report to FILE instead of stdout");
  sub.add_flag("--snapshot", o->snapshot, "Also write a snapshot tarball (amdml-snapshot-<time>.tar.gz) and name it in the report");
  sub.add_option("--snapshot-file", o->snapshot_file, "Write the snapshot tarball to FILE.tar.gz (implies --snapshot)");
  sub.add_flag("--force", o->force, "Replace an existing snapshot tarball");
  sub.add_flag("--no-redact", o->no_redact,
               "Keep user names, host names, serial numbers and UUIDs (secrets are dropped regardless)");
  o->probe.add_to(sub);
  return [o, &g]() -> int {
    try {
      if (!o->snapshot_file.empty() && !platform::is_tarball_path(o->snapshot_file))
        throw UsageError("--snapshot-file " + o->snapshot_file + ": must end in .tar.gz or .tgz");
      Session s = open_session(g);
      const ProbeOptions po = o->probe.options();
      RecordedRun run = record_run(s, po, !o->no_redact);
      BugReportExtras x;
      x.redacted = run.redacted;
      x.redaction = snapshot_summary(run);
      // Always the replay: with --no-redact the record still has its secrets cut.
      Report report = replay(s, run, po);
      if (o->snapshot || !o->snapshot_file.empty()) {
        std::string path = o->snapshot_file.empty() ? default_snapshot_name() : o->snapshot_file;
        auto stats = platform::publish_snapshot(run.recording, run.manifest_text, path, o->force);
        if (!stats) snapshot_failed(path, stats.error());
        x.snapshot_path = path;
        x.snapshot_dir = platform::tarball_dir_name(path);
        x.snapshot_bytes = stats->bytes;
      }
      std::string text = o->format == "json" ? json_text(bug_report_json(report, x)) + "\n" : render_bug_report(report, x);
      // Belt and braces: the same replacements over the finished text.
      text = run.redactor.text(text);
      if (o->format == "json") emit(o->output, text);
      else emit_text(o->output, text);
      return kExitOk;
    } catch (const OutputError&) {
      throw;
    } catch (const UsageError& e) {
      if (o->format == "json") emit(o->output, json_text(error_json(e.what())) + "\n");
      throw;
    }
  };
}

}  // namespace amdml::cli
