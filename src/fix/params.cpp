// Parameter checks: a finding's fix parameters are data from rules (or from a recorded
// report), so the engine checks them again before it turns them into bytes in /etc.
// Nonsense -- a page limit above RAM, a malformed gfx version, a shell metacharacter
// in an environment value, root as the user to add to a group -- is refused.
#include <algorithm>
#include <optional>
#include <string_view>

#include "fix/fix.hpp"
#include "fix/params.hpp"

namespace amdml::fix {

namespace {

// Hand-written matchers instead of std::regex: four namespace-scope regexes were compiled
// at every start, even for --version (2.6 M instructions; issue 16).
bool is_lower_or_(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool is_alpha_or_(char c) { return is_lower_or_(c) || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// ^[a-z_][a-z0-9_.-]{0,31}$, and with dollar_ok an optional trailing '$' (as useradd allows).
bool valid_login_name(std::string_view s, bool dollar_ok) {
  if (dollar_ok && !s.empty() && s.back() == '$') s.remove_suffix(1);
  if (s.empty() || s.size() > 32 || !is_lower_or_(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(),
                     [](char c) { return is_lower_or_(c) || is_digit(c) || c == '.' || c == '-'; });
}
bool valid_user_name(std::string_view s) { return valid_login_name(s, true); }
bool valid_group_name(std::string_view s) { return valid_login_name(s, false); }

// ^[A-Za-z_][A-Za-z0-9_]{0,127}$
bool valid_env_name(std::string_view s) {
  if (s.empty() || s.size() > 128 || !is_alpha_or_(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) { return is_alpha_or_(c) || is_digit(c); });
}

// ^[A-Za-z0-9._,:/+=@-]{1,256}$: safe unquoted in a shell, in environment.d and inside
// systemd's double quotes.
bool valid_env_value(std::string_view s) {
  if (s.empty() || s.size() > 256) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return is_alpha_or_(c) || is_digit(c) || std::string_view("._,:/+=@-").find(c) != std::string_view::npos;
  });
}

// Pages below this (256 MiB) cannot be a limit anyone meant for an ML workload.
constexpr std::uint64_t kMinPages = 65536;

std::optional<std::uint64_t> positive_int(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() > 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  return std::nullopt;
}

}  // namespace

bool valid_gfx_override(const std::string& v) {
  return parse_gfx_override(v).has_value();
}

Result<GroupsParams> parse_groups_params(const nlohmann::json& p, const Facts& facts) {
  GroupsParams out;
  if (!p.is_object() || !p.contains("user") || !p["user"].is_string())
    return make_error("groups: params need \"user\" (a login name)");
  out.user = p["user"].get<std::string>();
  if (!valid_user_name(out.user)) return make_error("groups: \"" + out.user + "\" is not a valid user name");
  if (out.user == "root") return make_error("groups: refusing to add root to groups (root needs none)");
  if (!p.contains("groups") || !p["groups"].is_array() || p["groups"].empty())
    return make_error("groups: params need \"groups\" (a non-empty list of group names)");
  for (const auto& g : p["groups"]) {
    if (!g.is_string() || !valid_group_name(g.get<std::string>()))
      return make_error("groups: " + g.dump() + " is not a valid group name");
    if (std::find(out.groups.begin(), out.groups.end(), g.get<std::string>()) == out.groups.end())
      out.groups.push_back(g.get<std::string>());
  }
  const PasswdEntry* pw = nullptr;
  for (const auto& e : facts.identity.passwd)
    if (e.name == out.user) pw = &e;
  if (!pw)
    return make_error("groups: " + out.user + " is not in /etc/passwd (a directory user?); add the groups with your "
                      "directory tools, or by hand: sudo usermod -a -G " + p["groups"][0].get<std::string>() + " " + out.user);
  if (pw->uid == 0) return make_error("groups: " + out.user + " has uid 0; refusing to add root to groups");
  return out;
}

Result<TtmParams> parse_ttm_params(const nlohmann::json& p, const Facts& facts) {
  TtmParams out;
  if (!p.is_object()) return make_error("ttm-pages-limit: params must be an object");
  out.module = p.value("module", std::string());
  if (out.module != "ttm" && out.module != "amdttm")
    return make_error("ttm-pages-limit: \"module\" must be \"ttm\" or \"amdttm\"");
  if (!facts.memory.total) return make_error("ttm-pages-limit: RAM size unknown (/proc/meminfo); refusing to set a limit blind");
  const std::uint64_t ram_pages = Pages::from_bytes(*facts.memory.total).value;
  auto check = [&](const char* key, bool required) -> Result<std::optional<Pages>> {
    if (!p.contains(key)) {
      if (required) return make_error(std::string("ttm-pages-limit: \"") + key + "\" is required");
      return std::optional<Pages>();
    }
    auto v = positive_int(p[key]);
    if (!v) return make_error(std::string("ttm-pages-limit: \"") + key + "\" must be a positive integer (4 KiB pages)");
    if (*v < kMinPages)
      return make_error(std::string("ttm-pages-limit: ") + key + "=" + std::to_string(*v) + " pages (" +
                        format_bytes(Pages{*v}.bytes()) + ") is too small to be meant");
    if (*v > ram_pages)
      return make_error(std::string("ttm-pages-limit: ") + key + "=" + std::to_string(*v) + " pages (" +
                        format_bytes(Pages{*v}.bytes()) + ") is more than the RAM (" + format_bytes(*facts.memory.total) + ")");
    return std::optional<Pages>(Pages{*v});
  };
  auto limit = check("pages_limit", true);
  if (!limit) return limit.error();
  out.pages_limit = **limit;
  auto pool = check("page_pool_size", false);
  if (!pool) return pool.error();
  out.page_pool_size = *pool;
  return out;
}

Result<EnvSettings> parse_hsa_params(const nlohmann::json& p) {
  EnvSettings out;
  if (!p.is_object()) return make_error("hsa-override: params must be an object");
  bool global = p.contains("value"), per_node = p.contains("per_node");
  if (global == per_node) return make_error("hsa-override: params need exactly one of \"value\" and \"per_node\"");
  if (global) {
    if (!p["value"].is_string() || !valid_gfx_override(p["value"].get<std::string>()))
      return make_error("hsa-override: \"value\" must be MAJOR.MINOR.STEPPING like 11.0.0, got " + p["value"].dump());
    out.set.emplace_back("HSA_OVERRIDE_GFX_VERSION", p["value"].get<std::string>());
    return out;
  }
  if (!p["per_node"].is_object() || p["per_node"].empty())
    return make_error("hsa-override: \"per_node\" must map KFD node indices to versions");
  std::vector<std::pair<int, std::string>> nodes;
  for (const auto& [k, v] : p["per_node"].items()) {
    if (k.empty() || k.size() > 3 || k.find_first_not_of("0123456789") != std::string::npos)
      return make_error("hsa-override: per_node key \"" + k + "\" is not a node index");
    if (!v.is_string() || !valid_gfx_override(v.get<std::string>()))
      return make_error("hsa-override: per_node." + k + " must be MAJOR.MINOR.STEPPING, got " + v.dump());
    nodes.emplace_back(std::stoi(k), v.get<std::string>());
  }
  std::sort(nodes.begin(), nodes.end());
  for (const auto& [n, v] : nodes) out.set.emplace_back("HSA_OVERRIDE_GFX_VERSION_" + std::to_string(n), v);
  return out;
}

Result<EnvSettings> parse_env_params(const std::string& recipe, const nlohmann::json& p) {
  EnvSettings out;
  if (!p.is_object()) return make_error(recipe + ": params must be an object");
  if (p.contains("env")) {
    if (!p["env"].is_object()) return make_error(recipe + ": \"env\" must be an object of NAME: value");
    for (const auto& [k, v] : p["env"].items()) {
      if (!valid_env_name(k)) return make_error(recipe + ": \"" + k + "\" is not an environment variable name");
      if (!v.is_string() || !valid_env_value(v.get<std::string>()))
        return make_error(recipe + ": the value of " + k + " must be plain text (letters, digits, . , : / + = @ -), got " + v.dump());
      if (k == "HSA_OVERRIDE_GFX_VERSION" && !valid_gfx_override(v.get<std::string>()))
        return make_error(recipe + ": HSA_OVERRIDE_GFX_VERSION must be MAJOR.MINOR.STEPPING, got " + v.dump());
      out.set.emplace_back(k, v.get<std::string>());
    }
  }
  if (p.contains("unset")) {
    if (!p["unset"].is_array()) return make_error(recipe + ": \"unset\" must be a list of names");
    for (const auto& v : p["unset"]) {
      if (!v.is_string() || !valid_env_name(v.get<std::string>()))
        return make_error(recipe + ": " + v.dump() + " is not an environment variable name");
      for (const auto& [k, val] : out.set)
        if (k == v.get<std::string>()) return make_error(recipe + ": " + k + " is both set and unset");
      out.unset.push_back(v.get<std::string>());
    }
  }
  if (out.set.empty() && out.unset.empty()) return make_error(recipe + ": params set nothing (\"env\" and \"unset\" are empty)");
  return out;
}

Status check_params(const Recipe& r, const nlohmann::json& params, const Facts& facts) {
  switch (r.params) {
    case ParamSchema::groups: {
      auto g = parse_groups_params(params, facts);
      return g ? Status() : Status(g.error());
    }
    case ParamSchema::ttm: {
      auto t = parse_ttm_params(params, facts);
      return t ? Status() : Status(t.error());
    }
    case ParamSchema::hsa: {
      auto h = parse_hsa_params(params);
      return h ? Status() : Status(h.error());
    }
    case ParamSchema::env: {
      auto e = parse_env_params(r.id, params);
      return e ? Status() : Status(e.error());
    }
  }
  return make_error(r.id + ": unknown parameter schema");
}

}  // namespace amdml::fix
