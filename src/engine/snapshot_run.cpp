// One recorded doctor run, trimmed and redacted (see snapshot_run.hpp).
#include "engine/snapshot_run.hpp"

#include <cerrno>
#include <stdexcept>

#include "render/render.hpp"
#include "rules/rules.hpp"
#include "platform/host_recording.hpp"
#include "platform/knowledge_store.hpp"

namespace amdml::engine {

RecordedRun record_run(const Session& s, const probes::ProbeOptions& po, bool redact) {
  RecordedRun run;
  platform::RecordingHost rec(*s.host);
  run.report.facts = run_probes(rec, s.kb, po);
  run.report.facts.knowledge = knowledge_facts(s);
  // Through the recorder: the snapshot keeps the day (amdml-host.json "time"), so its
  // replay judges the knowledge's age as this run does.
  run.report.facts.knowledge.today = platform::host_today(rec);
  run_rules(run.report, s.kb);
  (void)run_advice(run.report, s, rec);
  Stage record("record");
  run.recording = rec.recording();
  run.trimmed = trim_recording(run.recording);
  formats::RedactOptions ro;
  ro.identities = redact;
  ro.relevant_env = probes::is_relevant_env;
  // Asked of the host itself, not through the recorder: nothing needs these files in
  // the snapshot, but the names must not show up in it either.
  for (const char* p : {"/etc/hostname", "/proc/sys/kernel/hostname"})
    if (auto h = s.host->read_file(p, 4096)) ro.host_names.push_back(*h);
  if (auto h = s.host->env("HOSTNAME")) ro.host_names.push_back(*h);
  run.redactor = formats::Redactor::learn(run.recording, ro);
  run.redactor.apply(run.recording);
  run.redacted = redact;
  formats::SnapshotMeta meta;
  meta.amdml_version = AMDML_VERSION;
  meta.redacted = redact;
  meta.options = {{"runtime", po.runtime},
                  {"runtime_timeout_ms", po.runtime_timeout.count()},
                  {"python", po.python ? nlohmann::json(run.redactor.text(*po.python)) : nlohmann::json(nullptr)},
                  {"deep", po.deep}};
  const nlohmann::json manifest = snapshot_manifest(run.recording, meta);
  run.manifest_text = render::json_text(manifest) + "\n";
  // Indentation more than doubles a manifest of many small values (a 6.9 MB hsa agent
  // list re-recorded as 12 MB): rather than write what amdml cannot read back, write
  // it without indentation, and refuse what is too big even so.
  if (run.manifest_text.size() > formats::kMaxManifestBytes) run.manifest_text = render::json_text(manifest, -1) + "\n";
  if (run.manifest_text.size() > formats::kMaxManifestBytes)
    throw UsageError("amdml-host.json would be " + std::to_string(run.manifest_text.size()) +
                     " bytes, more than the " + std::to_string(formats::kMaxManifestBytes) + " amdml reads back");
  return run;
}

void snapshot_failed(const std::string& out, const Error& e) {
  const std::string msg = "snapshot " + out + ": " + e.message;
  switch (e.code) {
    case 0:
    case EACCES:
    case EPERM:
    case ENOENT:
    case ENOTDIR:
    case EROFS:
    case EEXIST:
    case EISDIR:
      throw UsageError(msg);
    default:
      throw std::runtime_error(msg);
  }
}

std::vector<std::string> snapshot_summary(const RecordedRun& run) {
  std::vector<std::string> out;
  if (run.redacted) {
    for (const auto& l : run.redactor.summary().lines()) out.push_back("redacted: " + l);
  } else {
    out.push_back("redacted: nothing personal (--no-redact); secrets are still dropped");
    for (const auto& l : run.redactor.summary().lines())
      if (l.starts_with("environment") || l.starts_with("secret")) out.push_back("redacted: " + l);
  }
  for (const auto& t : run.trimmed) out.push_back("trimmed: " + t + " (GPU, ROCm and ML package stanzas only)");
  return out;
}

}  // namespace amdml::engine
