// The recipe table: recipes/fixes/*.toml parsed into Recipe values over the closed
// set of step kinds. Anything the engine would not know how to do is a load error,
// so a typo in a recipe fails at start-up, not half-way through an apply.
#include <algorithm>

#include "fix/fix.hpp"
#include "formats/system_files.hpp"
#include "formats/toml.hpp"

namespace amdml::fix {

const char* to_string(StepKind k) {
  switch (k) {
    case StepKind::group_members: return "group-members";
    case StepKind::modprobe_option: return "modprobe-option";
    case StepKind::env_file: return "env-file";
    case StepKind::daemon_reload: return "daemon-reload";
    case StepKind::restart_if_running: return "restart-if-running";
    case StepKind::initramfs: return "initramfs";
    case StepKind::follow_up: return "follow-up";
  }
  return "?";
}

const char* to_string(FollowUp f) {
  switch (f) {
    case FollowUp::reboot: return "reboot";
    case FollowUp::relogin: return "relogin";
  }
  return "?";
}

namespace {

std::optional<StepKind> parse_kind(const std::string& s) {
  for (auto k : {StepKind::group_members, StepKind::modprobe_option, StepKind::env_file, StepKind::daemon_reload,
                 StepKind::restart_if_running, StepKind::initramfs, StepKind::follow_up})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

std::optional<ParamSchema> parse_schema(const std::string& s) {
  if (s == "groups") return ParamSchema::groups;
  if (s == "ttm") return ParamSchema::ttm;
  if (s == "hsa") return ParamSchema::hsa;
  if (s == "env") return ParamSchema::env;
  return std::nullopt;
}

std::optional<EnvFormat> parse_format(const std::string& s) {
  if (s == "profile-sh") return EnvFormat::profile_sh;
  if (s == "environment-d") return EnvFormat::environment_d;
  if (s == "systemd-dropin") return EnvFormat::systemd_dropin;
  return std::nullopt;
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

Result<RecipeStep> parse_step(const std::string& where, const toml::table& t) {
  RecipeStep s;
  auto kind_s = t["kind"].value<std::string>();
  if (!kind_s) return make_error(where + ": step without 'kind'");
  auto kind = parse_kind(*kind_s);
  if (!kind) return make_error(where + ": unknown step kind '" + *kind_s + "'");
  s.kind = *kind;
  s.path = t["path"].value_or(std::string());
  s.dir = t["dir"].value_or(std::string());
  s.unit = t["unit"].value_or(std::string());
  s.text = t["text"].value_or(std::string());
  s.service_text = t["service_text"].value_or(std::string());
  if (auto* arr = t["files"].as_array())
    for (const auto& e : *arr)
      if (auto v = e.value<std::string>()) s.files.push_back(*v);
  auto need_path = [&](const std::string& p, const char* key) -> Status {
    if (has_control(p)) return make_error(where + ": '" + key + "' holds a control character (NUL, newline, ...)");
    if (!absolute_clean(p)) return make_error(where + ": " + *kind_s + " needs an absolute '" + key + "'");
    return {};
  };
  if (has_control(s.unit)) return make_error(where + ": 'unit' holds a control character (NUL, newline, ...)");
  switch (s.kind) {
    case StepKind::group_members:
      if (s.files.empty()) return make_error(where + ": group-members needs 'files'");
      for (const auto& f : s.files)
        if (auto st = need_path(f, "files"); !st) return st.error();
      break;
    case StepKind::modprobe_option:
      if (auto st = need_path(s.path, "path"); !st) return st.error();
      if (auto st = need_path(s.dir, "dir"); !st) return st.error();
      if (s.path.rfind(s.dir + "/", 0) != 0 || s.path.size() < 6 || s.path.substr(s.path.size() - 5) != ".conf")
        return make_error(where + ": modprobe-option 'path' must be a .conf file in 'dir'");
      break;
    case StepKind::env_file: {
      if (auto st = need_path(s.path, "path"); !st) return st.error();
      auto f = parse_format(t["format"].value_or(std::string()));
      if (!f) return make_error(where + ": env-file needs 'format' (profile-sh, environment-d or systemd-dropin)");
      s.format = *f;
      if (s.format == EnvFormat::systemd_dropin && s.unit.empty())
        return make_error(where + ": a systemd-dropin env-file needs 'unit'");
      break;
    }
    case StepKind::restart_if_running:
      if (s.unit.empty()) return make_error(where + ": restart-if-running needs 'unit'");
      break;
    case StepKind::follow_up: {
      auto need = t["need"].value_or(std::string());
      if (need == "reboot") s.need = FollowUp::reboot;
      else if (need == "relogin") s.need = FollowUp::relogin;
      else return make_error(where + ": follow-up needs 'need' (reboot or relogin)");
      if (s.text.empty()) return make_error(where + ": follow-up needs 'text'");
      break;
    }
    case StepKind::daemon_reload:
    case StepKind::initramfs:
      break;
  }
  return s;
}

}  // namespace

static Result<std::vector<Recipe>> load_recipes_unchecked(const std::vector<RecipeFile>& files) {
  std::vector<Recipe> out;
  for (const auto& f : files) {
    if (f.path.rfind("fixes/", 0) != 0) continue;
    std::string file = "recipes/" + f.path;
    toml::table root;
    try {
      root = toml::parse(f.text, f.path);
    } catch (const toml::parse_error& err) {
      return make_error(file + ":" + std::to_string(err.source().begin.line) + ": " + std::string(err.description()));
    }
    Recipe r;
    r.file = f.path;
    r.id = root["id"].value_or(std::string());
    r.title = root["title"].value_or(std::string());
    if (r.id.empty() || r.title.empty()) return make_error(file + ": needs 'id' and 'title'");
    auto schema = parse_schema(root["params"].value_or(std::string()));
    if (!schema) return make_error(file + ": 'params' must be groups, ttm, hsa or env");
    r.params = *schema;
    if (auto* arr = root["resolves"].as_array())
      for (const auto& e : *arr)
        if (auto v = e.value<std::string>()) r.resolves.push_back(*v);
    auto* steps = root["steps"].as_array();
    if (!steps || steps->empty()) return make_error(file + ": needs at least one [[steps]]");
    for (const auto& node : *steps) {
      auto* t = node.as_table();
      if (!t) return make_error(file + ": [[steps]] entries must be tables");
      auto step = parse_step(file + ":" + std::to_string(t->source().begin.line), *t);
      if (!step) return step.error();
      r.steps.push_back(std::move(*step));
    }
    if (find_recipe(out, r.id)) return make_error(file + ": recipe id '" + r.id + "' is defined twice");
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const Recipe& a, const Recipe& b) { return a.id < b.id; });
  return out;
}

Result<std::vector<Recipe>> load_recipes(const std::vector<RecipeFile>& files) {
  auto r = load_recipes_unchecked(files);
  if (r) return r;
  // Messages echo the file's text (a step kind, the TOML parser's description): keep
  // them one line even when that text holds a newline or another control character.
  Error e = r.error();
  e.message = text::one_line(std::move(e.message));
  return e;
}

const Recipe* find_recipe(const std::vector<Recipe>& recipes, const std::string& id) {
  for (const auto& r : recipes)
    if (r.id == id) return &r;
  return nullptr;
}

}  // namespace amdml::fix
