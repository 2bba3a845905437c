// recipes/fixes/*.toml into Recipe values; see recipe_toml.hpp.
#include "formats/recipe_toml.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/text.hpp"
#include "formats/toml.hpp"

namespace amdml::formats {

namespace {

std::optional<StepKind> parse_kind(const std::string& s) { return enum_from_name(kStepKindNames, s); }

std::optional<ParamSchema> parse_schema(const std::string& s) {
  if (s == "groups") return ParamSchema::groups;
  if (s == "ttm") return ParamSchema::ttm;
  if (s == "hsa") return ParamSchema::hsa;
  if (s == "env") return ParamSchema::env;
  if (s == "cmdline") return ParamSchema::cmdline;
  if (s == "rocm") return ParamSchema::rocm;
  return std::nullopt;
}

std::optional<EnvFormat> parse_format(const std::string& s) {
  if (s == "profile-sh") return EnvFormat::profile_sh;
  if (s == "environment-d") return EnvFormat::environment_d;
  if (s == "systemd-dropin") return EnvFormat::systemd_dropin;
  return std::nullopt;
}

// The keys a step of each kind may have.
std::vector<std::string_view> step_keys(StepKind k) {
  switch (k) {
    case StepKind::group_members: return {"kind", "files"};
    case StepKind::modprobe_option: return {"kind", "dir", "path"};
    case StepKind::env_file: return {"kind", "path", "format", "unit"};
    case StepKind::restart_if_running: return {"kind", "unit"};
    case StepKind::follow_up: return {"kind", "need", "text", "service_text"};
    case StepKind::apt_source: return {"kind", "keyring", "rocm_list", "graphics_list", "pin", "dnf_repo", "rpm_key", "amd_keyring"};
    case StepKind::daemon_reload:
    case StepKind::apt_install:
    case StepKind::initramfs: return {"kind"};
    case StepKind::login_env_clear: return {"kind", "files"};
    case StepKind::kernel_cmdline: return {"kind", "kernelstub", "grub", "kernel_install"};
  }
  return {"kind"};
}

// The first key of t that allowed does not name, as an error naming file and line
// (`what` says where it was: " in a follow-up step"); ok when there is none.
Status unknown_keys(const std::string& file, const toml::table& t, const std::vector<std::string_view>& allowed,
                    const std::string& what) {
  for (const auto& [key, node] : t)
    if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end())
      return make_error(file + ":" + std::to_string(key.source().begin.line) + ": unknown key '" + std::string(key.str()) +
                        "'" + what);
  return {};
}

// A NUL, a newline or another control byte: never in a path or unit amdml names (a
// NUL would cut the path short at the syscall, a newline splits every message).
bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

bool absolute_clean(const std::string& p) {
  if (p.empty() || p[0] != '/' || p.back() == '/' || has_control(p)) return false;
  return p.find("/../") == std::string::npos && p.find("/./") == std::string::npos && p.find("//") == std::string::npos;
}

Result<RecipeStep> parse_step(const std::string& file, const toml::table& t) {
  const std::string where = file + ":" + std::to_string(t.source().begin.line);
  auto kind_s = t["kind"].value<std::string>();
  if (!kind_s) return make_error(where + ": step without 'kind'");
  auto kind = parse_kind(*kind_s);
  if (!kind) return make_error(where + ": unknown step kind '" + *kind_s + "'");
  AMDML_TRY_STATUS(unknown_keys(file, t, step_keys(*kind), " in a " + *kind_s + " step"));
  auto str = [&](const char* key) { return t[key].value_or(std::string()); };
  auto need_path = [&](const std::string& p, const char* key) -> Status {
    if (has_control(p)) return make_error(where + ": '" + key + "' holds a control character (NUL, newline, ...)");
    if (!absolute_clean(p)) return make_error(where + ": " + *kind_s + " needs an absolute '" + key + "'");
    return {};
  };
  // 'files': a non-empty list of absolute paths.
  auto files = [&]() -> Result<std::vector<std::string>> {
    std::vector<std::string> out;
    if (auto* arr = t["files"].as_array())
      for (const auto& e : *arr)
        if (auto v = e.value<std::string>()) out.push_back(*v);
    if (out.empty()) return make_error(where + ": " + *kind_s + " needs 'files'");
    for (const auto& f : out) AMDML_TRY_STATUS(need_path(f, "files"));
    return out;
  };
  auto need_unit = [&](const std::string& unit) -> Status {
    if (has_control(unit)) return make_error(where + ": 'unit' holds a control character (NUL, newline, ...)");
    return {};
  };
  switch (*kind) {
    case StepKind::group_members: {
      GroupMembersStep s;
      auto f = files();
      if (!f) return f.error();
      s.files = std::move(*f);
      return RecipeStep(std::move(s));
    }
    case StepKind::modprobe_option: {
      ModprobeOptionStep s{str("dir"), str("path")};
      AMDML_TRY_STATUS(need_path(s.path, "path"));
      AMDML_TRY_STATUS(need_path(s.dir, "dir"));
      if (!s.path.starts_with(s.dir + "/") || s.path.size() < 6 || s.path.substr(s.path.size() - 5) != ".conf")
        return make_error(where + ": modprobe-option 'path' must be a .conf file in 'dir'");
      return RecipeStep(std::move(s));
    }
    case StepKind::env_file: {
      EnvFileStep s;
      s.path = str("path");
      s.unit = str("unit");
      AMDML_TRY_STATUS(need_unit(s.unit));
      AMDML_TRY_STATUS(need_path(s.path, "path"));
      auto f = parse_format(str("format"));
      if (!f) return make_error(where + ": env-file needs 'format' (profile-sh, environment-d or systemd-dropin)");
      s.format = *f;
      if (s.format == EnvFormat::systemd_dropin && s.unit.empty())
        return make_error(where + ": a systemd-dropin env-file needs 'unit'");
      return RecipeStep(std::move(s));
    }
    case StepKind::restart_if_running: {
      RestartIfRunningStep s{str("unit")};
      AMDML_TRY_STATUS(need_unit(s.unit));
      if (s.unit.empty()) return make_error(where + ": restart-if-running needs 'unit'");
      return RecipeStep(std::move(s));
    }
    case StepKind::follow_up: {
      FollowUpStep s;
      s.text = str("text");
      s.service_text = str("service_text");
      auto need = str("need");
      if (auto n = enum_from_name(kFollowUpNames, need)) s.need = *n;
      else return make_error(where + ": follow-up needs 'need' (reboot or relogin)");
      if (s.text.empty()) return make_error(where + ": follow-up needs 'text'");
      return RecipeStep(std::move(s));
    }
    case StepKind::apt_source: {
      AptSourceStep s{str("keyring"), str("amd_keyring"), str("rocm_list"), str("graphics_list"), str("pin"), str("dnf_repo"),
                      str("rpm_key")};
      AMDML_TRY_STATUS(need_path(s.keyring, "keyring"));
      AMDML_TRY_STATUS(need_path(s.rocm_list, "rocm_list"));
      AMDML_TRY_STATUS(need_path(s.graphics_list, "graphics_list"));
      AMDML_TRY_STATUS(need_path(s.pin, "pin"));
      AMDML_TRY_STATUS(need_path(s.dnf_repo, "dnf_repo"));
      AMDML_TRY_STATUS(need_path(s.rpm_key, "rpm_key"));
      if (s.amd_keyring.empty()) s.amd_keyring = s.keyring;
      AMDML_TRY_STATUS(need_path(s.amd_keyring, "amd_keyring"));
      return RecipeStep(std::move(s));
    }
    case StepKind::apt_install: return RecipeStep(AptInstallStep{});
    case StepKind::daemon_reload: return RecipeStep(DaemonReloadStep{});
    case StepKind::initramfs: return RecipeStep(InitramfsStep{});
    case StepKind::login_env_clear: {
      LoginEnvClearStep s;
      auto f = files();
      if (!f) return f.error();
      s.files = std::move(*f);
      return RecipeStep(std::move(s));
    }
    case StepKind::kernel_cmdline: {
      KernelCmdlineStep s;
      for (auto [key, field] : {std::pair{"kernelstub", &s.kernelstub}, std::pair{"grub", &s.grub},
                                std::pair{"kernel_install", &s.kernel_install}}) {
        if (t.contains(key)) *field = str(key);
        AMDML_TRY_STATUS(need_path(*field, key));
      }
      return RecipeStep(std::move(s));
    }
  }
  return make_error(where + ": unknown step kind '" + *kind_s + "'");
}

Result<std::vector<Recipe>> load_unchecked(const std::vector<RecipeFile>& files) {
  std::vector<Recipe> out;
  for (const auto& f : files) {
    if (!f.path.starts_with("fixes/")) continue;
    std::string file = "recipes/" + f.path;
    toml::table root;
    try {
      root = toml::parse(f.text, f.path);
    } catch (const toml::parse_error& err) {
      return make_error(file + ":" + std::to_string(err.source().begin.line) + ": " + std::string(err.description()));
    }
    AMDML_TRY_STATUS(unknown_keys(file, root, {"id", "title", "params", "resolves", "steps"}, ""));
    Recipe r;
    r.file = f.path;
    r.id = root["id"].value_or(std::string());
    r.title = root["title"].value_or(std::string());
    if (r.id.empty() || r.title.empty()) return make_error(file + ": needs 'id' and 'title'");
    auto schema = parse_schema(root["params"].value_or(std::string()));
    if (!schema) return make_error(file + ": 'params' must be groups, ttm, hsa, env, cmdline or rocm");
    r.params = *schema;
    if (auto* arr = root["resolves"].as_array())
      for (const auto& e : *arr)
        if (auto v = e.value<std::string>()) r.resolves.push_back(*v);
    auto* steps = root["steps"].as_array();
    if (!steps || steps->empty()) return make_error(file + ": needs at least one [[steps]]");
    for (const auto& node : *steps) {
      auto* t = node.as_table();
      if (!t) return make_error(file + ": [[steps]] entries must be tables");
      auto step = parse_step(file, *t);
      if (!step) return step.error();
      r.steps.push_back(std::move(*step));
    }
    if (std::any_of(out.begin(), out.end(), [&](const Recipe& o) { return o.id == r.id; }))
      return make_error(file + ": recipe id '" + r.id + "' is defined twice");
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const Recipe& a, const Recipe& b) { return a.id < b.id; });
  return out;
}

}  // namespace

Result<std::vector<Recipe>> load_recipes(const std::vector<RecipeFile>& files) {
  auto r = load_unchecked(files);
  if (r) return r;
  // Messages echo the file's text (a step kind, a key, the TOML parser's description):
  // keep them one line even when that text holds a newline or another control character.
  Error e = r.error();
  e.message = text::one_line(std::move(e.message));
  return e;
}

}  // namespace amdml::formats