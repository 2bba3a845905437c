// amdml snapshot OUT: record exactly what the doctor's probes read on this machine (or
// on --root DIR) into the --root layout -- a directory or OUT.tar.gz -- so the run can
// be replayed anywhere with `amdml doctor --root`. Redacted unless --no-redact.
// Stages: host, knowledge, probes, rules, record, write.
#include "engine/snapshot_run.hpp"
#include "platform/snapshot_writer.hpp"
#include "render/render.hpp"

namespace amdml::engine {

namespace {

std::string kib(std::uint64_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

}  // namespace

int snapshot(const GlobalOptions& g, const SnapshotOptions& o) {
  Session s = open_session(g);
  RecordedRun run = record_run(s, o.probe.options(), !o.no_redact);
  auto stats = stage("write", [&] { return platform::publish_snapshot(run.recording, run.manifest_text, o.out, o.force); });
  if (!stats) snapshot_failed(o.out, stats.error());
  std::string text = "Snapshot written to " + o.out + ": " + std::to_string(stats->files) + " files, " +
                     std::to_string(stats->symlinks) + " symlinks, " + kib(stats->bytes) + " uncompressed\n";
  for (const auto& l : snapshot_summary(run)) text += "  " + l + "\n";
  if (platform::is_tarball_path(o.out))
    text += "Replay it: tar xzf " + o.out + " && amdml doctor --root " + platform::tarball_dir_name(o.out) + "\n";
  else
    text += "Replay it: amdml doctor --root " + o.out + "\n";
  emit_text("", text);
  return kExitOk;
}

}  // namespace amdml::engine
