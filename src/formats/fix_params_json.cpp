// Fix parameters <-> JSON; see fix_params_json.hpp.
#include "formats/fix_params_json.hpp"

#include <bit>
#include <cstdint>
#include <type_traits>

namespace amdml::formats {

using nlohmann::json;

json fix_params_json(const FixParams& params) {
  json j = json::object();
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, GroupsParams>) {
          j["user"] = p.user;
          j["groups"] = p.groups;
        } else if constexpr (std::is_same_v<P, TtmLimitParams>) {
          j["module"] = p.module;
          if (p.pages_limit) j["pages_limit"] = p.pages_limit->value;
          if (p.page_pool_size) j["page_pool_size"] = p.page_pool_size->value;
        } else if constexpr (std::is_same_v<P, HsaParams>) {
          if (p.value) j["value"] = *p.value;
          if (!p.per_node.empty()) j["per_node"] = p.per_node;
          if (!p.shell_unset.empty()) j["shell_unset"] = p.shell_unset;
        } else if constexpr (std::is_same_v<P, EnvParams>) {
          j["env"] = p.env;
          if (!p.unset.empty()) j["unset"] = p.unset;
        } else if constexpr (std::is_same_v<P, KernelCmdlineParams>) {
          if (!p.set.empty()) j["set"] = p.set;
          if (!p.remove.empty()) j["remove"] = p.remove;
        } else {
          j["release"] = p.release;
          if (!p.channel.empty()) j["channel"] = p.channel;
          if (p.manager != "apt") j["manager"] = p.manager;
          j["rocm_repo"] = p.rocm_repo;
          j["graphics_repo"] = p.graphics_repo;
          j["codename"] = p.codename;
          j["key_url"] = p.key_url;
          if (!p.fingerprint.empty()) j["fingerprint"] = p.fingerprint;
          if (!p.python.empty()) j["python"] = p.python;
          if (!p.index_url.empty()) j["index_url"] = p.index_url;
          if (!p.run_as.empty()) j["run_as"] = p.run_as;
          j["origin"] = p.origin;
          j["install"] = p.install;
          if (!p.remove.empty()) j["remove"] = p.remove;
          if (!p.set_aside.empty()) j["set_aside"] = p.set_aside;
          if (!p.user.empty()) {
            j["login"] = p.user;
            j["login_groups"] = p.groups;
          }
        }
      },
      params);
  return j;
}

namespace {

Error bad(const std::string& what) { return make_error("fix parameters: " + what); }

Result<std::string> string_at(const json& j, const char* key) {
  if (!j[key].is_string()) return bad(std::string("\"") + key + "\" is not a string");
  return j[key].get<std::string>();
}

Result<std::vector<std::string>> strings_at(const json& j, const char* key) {
  if (!j[key].is_array()) return bad(std::string("\"") + key + "\" is not a list");
  std::vector<std::string> out;
  for (const auto& v : j[key]) {
    if (!v.is_string()) return bad(std::string("\"") + key + "\" holds something that is not a string");
    out.push_back(v.get<std::string>());
  }
  return out;
}

Result<std::map<std::string, std::string>> string_map_at(const json& j, const char* key) {
  if (!j[key].is_object()) return bad(std::string("\"") + key + "\" is not an object");
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : j[key].items()) {
    if (!v.is_string()) return bad(std::string("\"") + key + "." + k + "\" is not a string");
    out[k] = v.get<std::string>();
  }
  return out;
}

Result<Pages> pages_at(const json& j, const char* key) {
  const json& v = j[key];
  if (v.is_number_unsigned()) return Pages{v.get<std::uint64_t>()};
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return Pages{static_cast<std::uint64_t>(v.get<std::int64_t>())};
  return bad(std::string("\"") + key + "\" is not a page count");
}

}  // namespace

Result<FixParams> parse_fix_params(const json& j) {
  if (!j.is_object()) return bad("not an object");
  // The kinds each key can belong to, as bits in FixParams' order: 0 groups, 1 ttm,
  // 2 hsa, 3 env, 4 cmdline, 5 rocm. A key may serve several ("remove": cmdline and
  // rocm); the kinds every key allows decide, the first of them when several remain.
  static const std::map<std::string, unsigned> kKinds = {
      {"user", 1u << 0},  {"groups", 1u << 0},   {"module", 1u << 1}, {"pages_limit", 1u << 1},
      {"page_pool_size", 1u << 1}, {"value", 1u << 2}, {"per_node", 1u << 2}, {"shell_unset", 1u << 2}, {"env", 1u << 3},
      {"unset", 1u << 3}, {"set", 1u << 4},   {"remove", (1u << 4) | (1u << 5)},
      {"release", 1u << 5}, {"rocm_repo", 1u << 5}, {"graphics_repo", 1u << 5}, {"codename", 1u << 5},
      {"key_url", 1u << 5}, {"origin", 1u << 5}, {"channel", 1u << 5}, {"manager", 1u << 5}, {"fingerprint", 1u << 5}, {"install", 1u << 5}, {"login", 1u << 5}, {"login_groups", 1u << 5},
      {"set_aside", 1u << 5}, {"python", 1u << 5}, {"index_url", 1u << 5}, {"run_as", 1u << 5}};
  if (j.empty()) return bad("no parameters");
  unsigned allowed = ~0u;
  for (const auto& [k, v] : j.items()) {
    auto it = kKinds.find(k);
    if (it == kKinds.end()) return bad("unknown key \"" + k + "\"");
    allowed &= it->second;
  }
  if (allowed == 0) return bad("keys of different recipes mixed");
  switch (std::countr_zero(allowed)) {
    case 0: {
      GroupsParams p;
      if (j.contains("user")) {
        AMDML_TRY(p.user, string_at(j, "user"));
      }
      if (j.contains("groups")) {
        AMDML_TRY(p.groups, strings_at(j, "groups"));
      }
      return FixParams(std::move(p));
    }
    case 1: {
      TtmLimitParams p;
      if (j.contains("module")) {
        AMDML_TRY(p.module, string_at(j, "module"));
      }
      if (j.contains("pages_limit")) {
        AMDML_TRY(p.pages_limit, pages_at(j, "pages_limit"));
      }
      if (j.contains("page_pool_size")) {
        AMDML_TRY(p.page_pool_size, pages_at(j, "page_pool_size"));
      }
      return FixParams(std::move(p));
    }
    case 2: {
      HsaParams p;
      if (j.contains("value")) {
        AMDML_TRY(p.value, string_at(j, "value"));
      }
      if (j.contains("per_node")) {
        AMDML_TRY(p.per_node, string_map_at(j, "per_node"));
        if (p.per_node.empty()) return bad("\"per_node\" names no node");
      }
      if (j.contains("shell_unset")) {
        AMDML_TRY(p.shell_unset, strings_at(j, "shell_unset"));
      }
      return FixParams(std::move(p));
    }
    case 4: {
      KernelCmdlineParams p;
      if (j.contains("set")) {
        AMDML_TRY(p.set, string_map_at(j, "set"));
      }
      if (j.contains("remove")) {
        AMDML_TRY(p.remove, strings_at(j, "remove"));
      }
      return FixParams(std::move(p));
    }
    case 5: {
      RocmInstallParams p;
      for (auto [key, field] : {std::pair{"release", &p.release}, {"rocm_repo", &p.rocm_repo},
                                {"graphics_repo", &p.graphics_repo}, {"codename", &p.codename},
                                {"key_url", &p.key_url}, {"origin", &p.origin}, {"login", &p.user},
                                {"channel", &p.channel}, {"manager", &p.manager}, {"fingerprint", &p.fingerprint},
                                {"python", &p.python}, {"index_url", &p.index_url}, {"run_as", &p.run_as}})
        if (j.contains(key)) {
          AMDML_TRY(*field, string_at(j, key));
        }
      for (auto [key, field] : {std::pair{"install", &p.install}, {"remove", &p.remove}, {"login_groups", &p.groups},
                                {"set_aside", &p.set_aside}})
        if (j.contains(key)) {
          AMDML_TRY(*field, strings_at(j, key));
        }
      return FixParams(std::move(p));
    }
    default: {
      EnvParams p;
      if (j.contains("env")) {
        AMDML_TRY(p.env, string_map_at(j, "env"));
      }
      if (j.contains("unset")) {
        AMDML_TRY(p.unset, strings_at(j, "unset"));
      }
      return FixParams(std::move(p));
    }
  }
}

}  // namespace amdml::formats