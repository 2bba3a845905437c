// The environment recipes' steps: a file of amdml's own (profile.d, environment.d, a
// systemd drop-in) and the login files whose settings it replaces.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "fix/plan_internal.hpp"
#include "formats/system_files.hpp"
#include "formats/systemd_unit.hpp"
#include "platform/host.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

using paths::basename;
using paths::dirname;

// What another drop-in sets, read by the unit codec as systemd reads it ([Service] only):
// NAME -> value, or "(unset)" for a name its UnsetEnvironment= removes.
static std::map<std::string, std::string> dropin_settings(const std::string& text, const std::string& path) {
  namespace su = formats::systemd_unit;
  const auto cfg = su::merge_service({su::parse_unit_text(text, path)});
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : cfg.environment) out[k] = v.value;
  for (const auto& w : cfg.unset_environment)
    if (w.find('=') == std::string::npos) out[w] = "(unset)";
  return out;
}

void plan_env_file(Ctx& c, const EnvFileStep& step, const EnvSettings& env) {
  auto f = c.read(step.path);
  if (!f) return;
  if (f->exists && !f->bytes.starts_with(kOwnMarker)) {
    c.rp.refused = make_error(step.path + " exists and was not written by amdml; move it away or merge it by hand");
    return;
  }
  FileChange fc;
  fc.path = step.path;
  if (f->exists) fc.before = f->bytes;
  fc.after = render_env_file(step.format, c.rp.recipe->id, env);
  fc.why = step.format == EnvFormat::systemd_dropin ? "amdml's own drop-in for " + step.unit : "amdml's own file";
  c.rp.files.push_back(std::move(fc));

  if (step.format == EnvFormat::systemd_dropin) {
    // Drop-ins are applied in file-name order; a later one that sets the same name wins.
    auto names = c.in.tree.list(dirname(step.path));
    if (names)
      for (const auto& n : *names) {
        if (!n.ends_with(".conf") || n <= basename(step.path)) continue;
        auto other = c.in.host.read_file(dirname(step.path) + "/" + n);
        if (!other) continue;
        auto set = dropin_settings(*other, dirname(step.path) + "/" + n);
        for (const auto& [k, v] : env.set)
          if (set.count(k) && set[k] != v)
            c.rp.notes.push_back(dirname(step.path) + "/" + n + " sets " + k + "=" + set[k] +
                                 " and is read after amdml's drop-in, so it wins; amdml does not edit it -- change it by hand");
      }
    bool unit_known = false;
    for (const char* d : {"/etc/systemd/system/", "/usr/lib/systemd/system/", "/lib/systemd/system/", "/usr/local/lib/systemd/system/"})
      if (c.in.host.exists(d + step.unit)) unit_known = true;
    if (!unit_known) c.rp.notes.push_back(step.unit + " is not installed; the drop-in takes effect once it is");
  }
}

namespace {

// The files a login_env_clear step names: paths, and "DIR/*.SUFFIX" expanded in name order.
std::vector<std::string> login_files(Ctx& c, const LoginEnvClearStep& step) {
  std::vector<std::string> out;
  for (const auto& f : step.files) {
    auto pattern = dir_pattern(f);
    if (!pattern) {
      out.push_back(f);
      continue;
    }
    const auto& [dir, suffix] = *pattern;
    auto names = c.in.tree.list(dir);
    if (!names) continue;  // no such directory: nothing there sets anything
    std::vector<std::string> sorted(names->begin(), names->end());
    std::sort(sorted.begin(), sorted.end());
    for (const auto& n : sorted)
      if (n.size() > suffix.size() && n.ends_with(suffix)) out.push_back(dir + "/" + n);
  }
  return out;
}

}  // namespace

void plan_login_env_clear(Ctx& c, const LoginEnvClearStep& step, const EnvSettings& env) {
  if (env.clear.empty()) return;
  // A line is in the way when it sets a cleared name to a value the recipe does not set.
  auto in_the_way = [&](const formats::parse::Assignment& a) {
    if (std::find(env.clear.begin(), env.clear.end(), a.name) == env.clear.end()) return false;
    for (const auto& [k, v] : env.set)
      if (k == a.name && v == a.value) return false;
    return true;
  };
  const std::string why = "turned off by amdml fix (" + c.rp.recipe->id + "); amdml fix --undo restores it";
  for (const auto& path : login_files(c, step)) {
    auto f = c.state(path);
    if (!f) {
      // A symlinked or unreadable file: only a problem when it sets one of ours.
      if (auto text = c.in.host.read_file(path))
        for (const auto& a : formats::parse::login_env(*text))
          if (in_the_way(a)) {
            c.rp.refused = make_error(path + ":" + std::to_string(a.line) + " sets " + a.name + "=" + a.value + " but " +
                                      f.error().message + "; turn that line off by hand");
            return;
          }
      continue;
    }
    if (!f->exists || f->bytes.starts_with(kOwnMarker)) continue;  // amdml's own files are rewritten whole
    std::vector<int> lines;
    std::string what;
    for (const auto& a : formats::parse::login_env(f->bytes))
      if (in_the_way(a)) {
        lines.push_back(a.line);
        what += (what.empty() ? "" : ", ") + a.name + "=" + a.value + " (line " + std::to_string(a.line) + ")";
      }
    if (lines.empty()) continue;
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = comment_out_lines(f->bytes, lines, why);
    fc.why = "turn off " + what;
    c.rp.notes.push_back(path + " sets " + what + " for every login: amdml comments that line out so the values it "
                         "writes are the ones new logins get");
    c.rp.files.push_back(std::move(fc));
  }
}


}  // namespace amdml::fix
