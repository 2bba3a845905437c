// amdml snapshot OUT: record exactly what the doctor's probes read on this machine (or
// on --root DIR) into the --root layout -- a directory or OUT.tar.gz -- so the run can
// be replayed anywhere with `amdml doctor --root`. Redacted unless --no-redact.
#include "render/render.hpp"
#include "cli/cli.hpp"
#include "cli/snapshot_run.hpp"
#include "platform/snapshot_writer.hpp"

namespace amdml::cli {

namespace {

struct SnapshotOptions {
  std::string out;
  bool force = false;
  bool no_redact = false;
  ProbeFlags probe;
};

std::string kib(std::uint64_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

}  // namespace

CommandRunner setup_snapshot(CLI::App& sub, const GlobalOptions& g) {
  auto o = std::make_shared<SnapshotOptions>();
  sub.add_option("OUT", o->out, "Directory to create, or a file name ending in .tar.gz")->required();
  sub.add_flag("--force", o->force, "Replace OUT when it is an earlier snapshot (or an existing tarball)");
  sub.add_flag("--no-redact", o->no_redact,
               "Keep user names, host names, serial numbers and UUIDs (secrets are dropped regardless)");
  o->probe.add_to(sub);
  return [o, &g]() -> int {
    Session s = open_session(g);
    RecordedRun run = record_run(s, o->probe.options(), !o->no_redact);
    auto stats = platform::publish_snapshot(run.recording, run.manifest_text, o->out, o->force);
    if (!stats) snapshot_failed(o->out, stats.error());
    std::string text = "Snapshot written to " + o->out + ": " + std::to_string(stats->files) + " files, " +
                       std::to_string(stats->symlinks) + " symlinks, " + kib(stats->bytes) + " uncompressed\n";
    for (const auto& l : snapshot_summary(run)) text += "  " + l + "\n";
    if (platform::is_tarball_path(o->out))
      text += "Replay it: tar xzf " + o->out + " && amdml doctor --root " + platform::tarball_dir_name(o->out) + "\n";
    else
      text += "Replay it: amdml doctor --root " + o->out + "\n";
    emit_text("", text);
    return kExitOk;
  };
}

}  // namespace amdml::cli
