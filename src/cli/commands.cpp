// The subcommand table: dispatch, --help and the README's command list come from it.
#include "cli/cli.hpp"

namespace amdml::cli {

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"doctor", "Diagnose this machine for ML on AMD GPUs (the default command)", setup_doctor},
      {"explain", "What amdml knows about a gfx target, a PCI id or a finding id", setup_explain},
      {"info", "List GPU agents and memory pools as ROCm sees them (a rocminfo that says why)", setup_info},
      {"__probe-hsa", "", setup_probe_hsa},  // hidden: the runtime probe's child
      {"__probe-drm", "", setup_probe_drm},  // hidden: the libdrm probe's child
      {"fix", "Show the fixes for what doctor found; --apply makes them (root), --undo reverts", setup_fix},
      {"check", "Gate for CI and container images: the doctor plus expectations (GPUs, gfx, memory, ROCm)", setup_check},
  };
  return table;
}

}  // namespace amdml::cli
