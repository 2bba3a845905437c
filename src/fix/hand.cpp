// Hand commands derived from a recipe: what a person types to do by hand what the
// recipe would do -- the same files with the same bytes, the same systemctl calls -- so
// following the advice and then running `amdml fix` leaves one file, which fix owns.
#include <string>
#include <vector>

#include "base/paths.hpp"
#include "fix/fix.hpp"
#include "formats/system_files.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"

namespace amdml::fix {

namespace {

using paths::dirname;

}  // namespace

std::vector<std::string> hand_commands(const Recipe& r, const FixParams& params) {
  // Only recipes made wholly of whole-file writes and systemctl calls are typed by hand
  // this way; the others (group and modprobe edits) merge into a person's file.
  if (r.params != ParamSchema::env) return {};
  auto env = parse_env_params(r.id, params);
  if (!env) return {};
  std::vector<std::string> out;
  for (const auto& any : r.steps) {
    switch (kind_of(any)) {
      case StepKind::env_file: {
        const auto& step = std::get<EnvFileStep>(any);
        out.push_back("sudo mkdir -p " + text::shell_word(dirname(step.path)));
        std::string cmd = "printf '%s\\n'";
        const std::string text = render_env_file(step.format, r.id, *env);
        for (auto line : text::split_lines(text))
          cmd += " " + text::shell_word(std::string(line));
        out.push_back(cmd + " | sudo tee " + text::shell_word(step.path) + " >/dev/null");
        break;
      }
      case StepKind::daemon_reload: out.push_back("sudo systemctl daemon-reload"); break;
      case StepKind::restart_if_running:
        out.push_back("sudo systemctl try-restart " + std::get<RestartIfRunningStep>(any).unit);
        break;
      default: return {};
    }
  }
  return out;
}

void derive_hand_commands(const std::vector<Recipe>& recipes, std::vector<Finding>& findings) {
  for (auto& fd : findings) {
    if (!fd.fix) continue;
    const Recipe* r = find_recipe(recipes, fd.fix->recipe);
    if (!r) continue;
    auto cmds = hand_commands(*r, fd.fix->params);
    if (!cmds.empty()) fd.commands = std::move(cmds);
  }
}

}  // namespace amdml::fix
