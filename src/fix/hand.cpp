// Hand commands derived from a recipe: what a person types to do by hand what the
// recipe would do -- the same files with the same bytes, the same systemctl calls -- so
// following the advice and then running `amdml fix` leaves one file, which fix owns.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "base/text.hpp"
#include "base/paths.hpp"
#include "fix/fix.hpp"
#include "formats/system_files.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

using paths::dirname;

// Lines of text without their newlines; whether text ends in one.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (auto l : text::split_lines(text)) out.emplace_back(l);
  return out;
}

std::string printf_lines(const std::vector<std::string>& lines, std::size_t from) {
  std::string cmd = "printf '%s\\n'";
  for (std::size_t i = from; i < lines.size(); ++i) cmd += " " + text::shell_word(lines[i]);
  return cmd;
}

// A line GNU sed's one-line `Nc TEXT` writes back byte for byte: no leading blank (sed
// drops it), no backslash, no newline.
bool sed_safe(const std::string& line) {
  return !line.empty() && line[0] != ' ' && line[0] != '\t' && line.find('\\') == std::string::npos;
}

// The shell command that turns fc.before into fc.after: append the new lines, change
// the lines that differ, or write the whole file.
std::string write_command(const FileChange& fc) {
  const std::string path = text::shell_word(fc.path);
  const bool ends_nl = !fc.after.empty() && fc.after.back() == '\n';
  const auto after = lines_of(fc.after);
  if (fc.before && ends_nl) {
    const std::string& before = *fc.before;
    const auto old = lines_of(before);
    if ((before.empty() || before.back() == '\n') && fc.after.compare(0, before.size(), before) == 0)
      return printf_lines(after, old.size()) + " | sudo tee -a " + path + " >/dev/null";
    if (old.size() == after.size() && before.back() == '\n') {
      std::string sed = "sudo sed -i";
      bool ok = true;
      for (std::size_t i = 0; i < old.size() && ok; ++i)
        if (old[i] != after[i]) {
          ok = sed_safe(after[i]);
          sed += " -e " + text::shell_word(std::to_string(i + 1) + "c " + after[i]);
        }
      if (ok) return sed + " " + path;
    }
  }
  const std::string body = ends_nl ? printf_lines(after, 0) : "printf '%s' " + text::shell_word(fc.after);
  if (fc.before) return body + " | sudo tee " + path + " >/dev/null";
  // A new file: its directories made as the apply makes them, with the plan's mode.
  return body + " | sudo install -D -m " + text::octal_mode(fc.new_mode & 07777) + " /dev/stdin " + path;
}

}  // namespace

bool planned_by_hand(const Recipe& r) {
  return r.params == ParamSchema::ttm || r.params == ParamSchema::cmdline || r.params == ParamSchema::hsa;
}

std::vector<std::string> by_hand_steps(const FixRef& fix) {
  std::vector<std::string> out;
  if (const auto* t = std::get_if<TtmLimitParams>(&fix.params)) {
    std::string opts;
    if (t->pages_limit) opts += " pages_limit=" + std::to_string(t->pages_limit->value);
    if (t->page_pool_size) opts += " page_pool_size=" + std::to_string(t->page_pool_size->value);
    if (!opts.empty())
      out.push_back("set options " + t->module + opts + " in /etc/modprobe.d, then rebuild the initramfs and reboot");
  } else if (const auto* c = std::get_if<KernelCmdlineParams>(&fix.params)) {
    std::string set, remove;
    for (const auto& [k, v] : c->set) set += (set.empty() ? "" : " ") + k + "=" + v;
    for (const auto& k : c->remove) remove += (remove.empty() ? "" : " ") + k;
    if (!set.empty() || !remove.empty())
      out.push_back("on the kernel command line, " + (set.empty() ? "" : "set " + set) +
                    (set.empty() || remove.empty() ? "" : " and ") + (remove.empty() ? "" : "remove " + remove) +
                    ", then reboot");
  } else if (const auto* h = std::get_if<HsaParams>(&fix.params)) {
    for (const auto& n : h->shell_unset) out.push_back("unset " + text::shell_word(n));
    if (h->value) out.push_back("export HSA_OVERRIDE_GFX_VERSION=" + text::shell_word(*h->value));
    for (const auto& [node, v] : h->per_node)
      out.push_back("export " + text::shell_word("HSA_OVERRIDE_GFX_VERSION_" + node + "=" + v));
  }
  return out;
}

std::vector<std::pair<std::string, CommandRole>> hand_commands(const RecipePlan& rp) {
  std::vector<std::pair<std::string, CommandRole>> out;
  auto add = [&](std::string c) { out.emplace_back(std::move(c), out.empty() ? CommandRole::run : CommandRole::then); };
  for (const auto& fc : rp.files)
    if (fc.changes()) add(write_command(fc));
  if (out.empty()) return out;
  for (const auto& c : rp.commands) {
    std::string cmd = "sudo";
    for (const auto& a : c.argv) cmd += " " + text::shell_word(a);
    add(cmd);
  }
  for (auto need : rp.follow_ups)
    if (need == FollowUp::reboot) {
      add("sudo reboot");
      break;
    }
  return out;
}

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
        const std::string cmd = printf_lines(lines_of(render_env_file(step.format, r.id, *env)), 0);
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
