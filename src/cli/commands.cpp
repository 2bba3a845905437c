// The subcommand table: dispatch, --help and the README's command list come from it.
#include "cli/cli.hpp"

namespace amdml::cli {

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"doctor", "Diagnose this machine for ML on AMD GPUs (the default command)", setup_doctor},
      {"snapshot", "Record what the doctor reads into a --root tree (DIR or FILE.tar.gz), redacted", setup_snapshot},
      {"report", "Print a Markdown bug report for a GitHub issue (--snapshot attaches a snapshot)", setup_report},
  };
  return table;
}

}  // namespace amdml::cli
