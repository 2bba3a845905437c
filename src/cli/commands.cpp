// The subcommand table: dispatch, --help and the README's command list come from it.
#include "cli/cli.hpp"

namespace amdml::cli {

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"doctor", "Diagnose this machine for ML on AMD GPUs (the default command)", setup_doctor},
      {"fix", "Show the fixes for what doctor found; --apply makes them (root), --undo reverts", setup_fix},
  };
  return table;
}

}  // namespace amdml::cli
