// Parameter checks: a finding's fix parameters are data from rules (or from a recorded
// report), so the engine checks them again before it turns them into bytes in /etc.
// Nonsense -- a page limit above RAM, a malformed gfx version, a shell metacharacter
// in an environment value, root as the user to add to a group -- is refused.
#include <algorithm>
#include <optional>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "fix/fix.hpp"
#include "fix/params.hpp"
#include "base/text.hpp"

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

// A value as JSON spells it, for messages: "render:x" with its quotes.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// p's parameters of kind P; parameters of another kind read as none at all.
template <class P>
P params_of(const FixParams& p) {
  if (const auto* mine = std::get_if<P>(&p)) return *mine;
  return P{};
}

}  // namespace

bool valid_gfx_override(const std::string& v) {
  return parse_gfx_override(v).has_value();
}

Result<GroupsParams> parse_groups_params(const FixParams& params, const Facts& facts) {
  const auto p = params_of<GroupsParams>(params);
  GroupsParams out;
  if (p.user.empty()) return make_error("groups: params need \"user\" (a login name)");
  out.user = p.user;
  if (!valid_user_name(out.user)) return make_error("groups: \"" + out.user + "\" is not a valid user name");
  if (out.user == "root") return make_error("groups: refusing to add root to groups (root needs none)");
  if (p.groups.empty()) return make_error("groups: params need \"groups\" (a non-empty list of group names)");
  for (const auto& g : p.groups) {
    if (!valid_group_name(g)) return make_error("groups: " + quoted(g) + " is not a valid group name");
    if (std::find(out.groups.begin(), out.groups.end(), g) == out.groups.end()) out.groups.push_back(g);
  }
  const PasswdEntry* pw = nullptr;
  for (const auto& e : facts.identity.passwd)
    if (e.name == out.user) pw = &e;
  if (!pw)
    return make_error("groups: " + out.user + " is not in /etc/passwd (a directory user?); add the groups with your "
                      "directory tools, or by hand: sudo usermod -a -G " + p.groups[0] + " " + out.user);
  if (pw->uid == 0) return make_error("groups: " + out.user + " has uid 0; refusing to add root to groups");
  return out;
}

namespace {

// A TTM page count as a recipe may write it: at least kMinPages, at most the RAM.
Status check_pages(const std::string& recipe, const std::string& key, std::uint64_t v, const Facts& facts) {
  if (!facts.memory.total) return make_error(recipe + ": RAM size unknown (/proc/meminfo); refusing to set a limit blind");
  const std::uint64_t ram_pages = Pages::from_bytes(*facts.memory.total).value;
  if (v == 0) return make_error(recipe + ": \"" + key + "\" must be a positive integer (4 KiB pages)");
  if (v < kMinPages)
    return make_error(recipe + ": " + key + "=" + std::to_string(v) + " pages (" + format_bytes(Pages{v}.bytes()) +
                      ") is too small to be meant");
  if (v > ram_pages)
    return make_error(recipe + ": " + key + "=" + std::to_string(v) + " pages (" + format_bytes(Pages{v}.bytes()) +
                      ") is more than the RAM (" + format_bytes(*facts.memory.total) + ")");
  return {};
}

// module.param as the kernel command line spells a module parameter: lower-case
// letters, digits, '_' and '-', one dot; nothing a boot loader or a shell would read.
bool valid_module_param(std::string_view s) {
  const auto dot = s.find('.');
  if (s.size() > 64 || dot == std::string_view::npos || dot == 0 || dot + 1 == s.size() || s.find('.', dot + 1) != s.npos)
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_lower_or_(c) || is_digit(c) || c == '-' || c == '.'; });
}

// A parameter value: letters, digits and . , : / + - only (no quotes, spaces or '=').
bool valid_cmdline_value(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return is_alpha_or_(c) || is_digit(c) || std::string_view("._,:/+-").find(c) != std::string_view::npos;
  });
}

}  // namespace

Result<TtmLimits> parse_ttm_params(const FixParams& params, const Facts& facts) {
  const auto p = params_of<TtmLimitParams>(params);
  TtmLimits out;
  out.module = p.module;
  if (out.module != "ttm" && out.module != "amdttm")
    return make_error("ttm-pages-limit: \"module\" must be \"ttm\" or \"amdttm\"");
  if (!facts.memory.total) return make_error("ttm-pages-limit: RAM size unknown (/proc/meminfo); refusing to set a limit blind");
  if (!p.pages_limit) return make_error("ttm-pages-limit: \"pages_limit\" is required");
  AMDML_TRY_STATUS(check_pages("ttm-pages-limit", "pages_limit", p.pages_limit->value, facts));
  out.pages_limit = *p.pages_limit;
  if (p.page_pool_size) AMDML_TRY_STATUS(check_pages("ttm-pages-limit", "page_pool_size", p.page_pool_size->value, facts));
  out.page_pool_size = p.page_pool_size;
  return out;
}

std::string cmdline_param_name(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

Result<KernelCmdlineParams> parse_cmdline_params(const FixParams& params, const Facts& facts) {
  const auto p = params_of<KernelCmdlineParams>(params);
  const std::string r = "kernel-cmdline";
  if (p.set.empty() && p.remove.empty()) return make_error(r + ": params change nothing (\"set\" and \"remove\" are empty)");
  KernelCmdlineParams out;
  for (const auto& [k, v] : p.set) {
    if (!valid_module_param(k)) return make_error(r + ": " + quoted(k) + " is not a module parameter (module.name)");
    if (!valid_cmdline_value(v)) return make_error(r + ": the value of " + k + " must be plain (letters, digits, . , : / + -), got " + quoted(v));
    const std::string n = cmdline_param_name(k);
    if (n == "ttm.pages_limit" || n == "amdttm.pages_limit" || n == "ttm.page_pool_size" || n == "amdttm.page_pool_size") {
      auto pages = text::u64(v);
      if (!pages) return make_error(r + ": " + k + " must be a page count, got " + quoted(v));
      AMDML_TRY_STATUS(check_pages(r, k, *pages, facts));
    }
    out.set[k] = v;
  }
  for (const auto& k : p.remove) {
    if (!valid_module_param(k)) return make_error(r + ": " + quoted(k) + " is not a module parameter (module.name)");
    for (const auto& [s, v] : out.set)
      if (cmdline_param_name(s) == cmdline_param_name(k)) return make_error(r + ": " + k + " is both set and removed");
    if (std::find(out.remove.begin(), out.remove.end(), k) == out.remove.end()) out.remove.push_back(k);
  }
  return out;
}

Result<EnvSettings> parse_hsa_params(const FixParams& params) {
  const auto p = params_of<HsaParams>(params);
  EnvSettings out;
  bool global = p.value.has_value(), per_node = !p.per_node.empty();
  if (global == per_node) return make_error("hsa-override: params need exactly one of \"value\" and \"per_node\"");
  // The shell's variables the step by hand unsets: the override family's names only
  // (the global one, or the per-node form: _ and the node's digits).
  for (const auto& n : p.shell_unset) {
    constexpr std::string_view kVar = "HSA_OVERRIDE_GFX_VERSION";
    std::string_view node = n;
    bool ok = node.starts_with(kVar);
    if (ok) node.remove_prefix(kVar.size());
    if (ok && !node.empty())
      ok = node[0] == '_' && node.size() >= 2 && node.find_first_not_of("0123456789", 1) == node.npos;
    if (!ok) return make_error("hsa-override: shell_unset names " + quoted(n) + ", not HSA_OVERRIDE_GFX_VERSION[_<node>]");
  }
  if (global) {
    if (!valid_gfx_override(*p.value))
      return make_error("hsa-override: \"value\" must be MAJOR.MINOR.STEPPING like 11.0.0, got " + quoted(*p.value));
    out.set.emplace_back("HSA_OVERRIDE_GFX_VERSION", *p.value);
    out.clear.push_back("HSA_OVERRIDE_GFX_VERSION");
    return out;
  }
  std::vector<std::pair<int, std::string>> nodes;
  for (const auto& [k, v] : p.per_node) {
    if (k.empty() || k.size() > 3 || k.find_first_not_of("0123456789") != std::string::npos)
      return make_error("hsa-override: per_node key \"" + k + "\" is not a node index");
    if (!valid_gfx_override(v))
      return make_error("hsa-override: per_node." + k + " must be MAJOR.MINOR.STEPPING, got " + quoted(v));
    nodes.emplace_back(std::stoi(k), v);
  }
  std::sort(nodes.begin(), nodes.end());
  // Per-GPU values: a global value would still reach every other GPU.
  out.clear.push_back("HSA_OVERRIDE_GFX_VERSION");
  for (const auto& [n, v] : nodes) {
    out.set.emplace_back("HSA_OVERRIDE_GFX_VERSION_" + std::to_string(n), v);
    out.clear.push_back("HSA_OVERRIDE_GFX_VERSION_" + std::to_string(n));
  }
  return out;
}

Result<EnvSettings> parse_env_params(const std::string& recipe, const FixParams& params) {
  const auto p = params_of<EnvParams>(params);
  EnvSettings out;
  for (const auto& [k, v] : p.env) {
    if (!valid_env_name(k)) return make_error(recipe + ": \"" + k + "\" is not an environment variable name");
    if (!valid_env_value(v))
      return make_error(recipe + ": the value of " + k + " must be plain text (letters, digits, . , : / + = @ -), got " + quoted(v));
    if (k == "HSA_OVERRIDE_GFX_VERSION" && !valid_gfx_override(v))
      return make_error(recipe + ": HSA_OVERRIDE_GFX_VERSION must be MAJOR.MINOR.STEPPING, got " + quoted(v));
    out.set.emplace_back(k, v);
  }
  for (const auto& n : p.unset) {
    if (!valid_env_name(n)) return make_error(recipe + ": " + quoted(n) + " is not an environment variable name");
    for (const auto& [k, val] : out.set)
      if (k == n) return make_error(recipe + ": " + k + " is both set and unset");
    out.unset.push_back(n);
  }
  if (out.set.empty() && out.unset.empty()) return make_error(recipe + ": params set nothing (\"env\" and \"unset\" are empty)");
  return out;
}

// pip into one environment: its interpreter by absolute path, an https index, the owner
// as a login name, and requirement specs ("rocm[libraries,device-gfx1151]==7.14.1"):
// words pip reads as one requirement each, nothing a shell or pip would take as an option.
static Result<RocmInstallParams> check_pip_params(const RocmInstallParams& p) {
  auto plain = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  };
  if (p.python.empty() || p.python[0] != '/' || !plain(p.python) || p.python.find("/../") != std::string::npos)
    return make_error("rocm-install: pip needs \"python\", the environment's interpreter by absolute path");
  if (!p.index_url.starts_with("https://") && !p.index_url.starts_with("file:///"))
    return make_error("rocm-install: \"index_url\" must be an https:// or file:/// URL");
  if (!plain(p.index_url)) return make_error("rocm-install: \"index_url\" holds a blank or a quote");
  if (!p.run_as.empty() && !valid_user_name(p.run_as))
    return make_error("rocm-install: \"run_as\" " + quoted(p.run_as) + " is not a login name");
  if (p.install.empty()) return make_error("rocm-install: params need \"install\" (the requirements)");
  for (const auto& r : p.install) {
    const bool ok = r.size() >= 2 && ((r[0] >= 'a' && r[0] <= 'z') || (r[0] >= 'A' && r[0] <= 'Z')) &&
                    std::all_of(r.begin(), r.end(), [](char c) {
                      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
                             std::string_view("_-.[],=+*").find(c) != std::string_view::npos;
                    });
    if (!ok) return make_error("rocm-install: " + quoted(r) + " is not a pip requirement like rocm[libraries]==7.14.1");
  }
  if (!p.remove.empty() || !p.set_aside.empty() || !p.user.empty())
    return make_error("rocm-install: a pip install removes, moves and adds to groups nothing");
  return p;
}

Result<RocmInstallParams> parse_rocm_params(const FixParams& params, const Facts& facts) {
  const auto p = params_of<RocmInstallParams>(params);
  auto clean = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  };
  auto url = [&](const std::string& u) {
    return clean(u) && (u.starts_with("https://") || u.starts_with("file:///") || u.starts_with("http://"));
  };
  if (p.release.empty() || !clean(p.release)) return make_error("rocm-install: params need \"release\"");
  if (p.manager == "pip") return check_pip_params(p);
  if (p.manager != "apt" && p.manager != "dnf" && p.manager != "pacman")
    return make_error("rocm-install: \"manager\" must be apt, dnf, pacman or pip");
  // The distribution's own packages (Fedora, Arch) name no repository, key or suite.
  const bool own = p.rocm_repo.empty();
  if (own && (!p.key_url.empty() || p.manager == "apt"))
    return make_error("rocm-install: an apt install, or one with a key, needs \"rocm_repo\"");
  if (!own && !url(p.rocm_repo)) return make_error("rocm-install: \"rocm_repo\" must be an https:// or file:/// URL");
  if (!p.graphics_repo.empty() && !url(p.graphics_repo))
    return make_error("rocm-install: \"graphics_repo\" must be an https:// or file:/// URL");
  if (!own && (!url(p.key_url) || p.key_url.starts_with("http://")))
    return make_error("rocm-install: \"key_url\" must be an https:// or file:/// URL");
  if (!own && (p.fingerprint.size() != 40 || p.fingerprint.find_first_not_of("0123456789ABCDEF") != std::string::npos))
    return make_error("rocm-install: \"fingerprint\" must be the signing key's 40 hex digits (upper case)");
  if (p.manager == "apt" &&
      (p.codename.empty() || !std::all_of(p.codename.begin(), p.codename.end(), [](char c) { return c >= 'a' && c <= 'z'; })))
    return make_error("rocm-install: \"codename\" must be the apt suite, like noble or stable");
  // The pin names the Release file's Origin ("repo.radeon.com"); none ("") for TheRock's
  // repositories, whose package names no distribution uses (AMD's guide writes no pin).
  if (p.manager == "apt" && !p.origin.empty() && !clean(p.origin))
    return make_error("rocm-install: \"origin\" must be the repository's Origin");
  if (!p.channel.empty() && !std::all_of(p.channel.begin(), p.channel.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '.';
      }))
    return make_error("rocm-install: \"channel\" must be a channel id like amd-core-10");
  auto package = [](const std::string& n) {
    return n.size() >= 2 && ((n[0] >= 'a' && n[0] <= 'z') || is_digit(n[0])) &&
           std::all_of(n.begin(), n.end(), [](char c) {
             return (c >= 'a' && c <= 'z') || is_digit(c) || c == '+' || c == '-' || c == '.';
           });
  };
  if (p.install.empty()) return make_error("rocm-install: params need \"install\" (the packages)");
  for (const auto* list : {&p.install, &p.remove})
    for (const auto& n : *list)
      if (!package(n)) return make_error("rocm-install: " + quoted(n) + " is not a package name");
  // A release directory under /opt, one name deep: the rename never leaves /opt. Any
  // other byte is allowed (a copy named "rocm-6.2.4 (copy)"): amdml renames through no
  // shell, and the printed `run:` line quotes each word (Command::text).
  for (const auto& dir : p.set_aside) {
    const std::string name = dir.starts_with("/opt/") ? dir.substr(5) : std::string();
    if (name.size() < 6 || !name.starts_with("rocm-") || !is_digit(name[5]) || name.find('\0') != std::string::npos ||
        name.find('/') != std::string::npos)
      return make_error("rocm-install: \"set_aside\" holds " + quoted(dir) + ", not a release directory like /opt/rocm-6.2.4");
  }
  if (!p.user.empty()) {
    auto g = parse_groups_params(GroupsParams{p.user, p.groups}, facts);
    if (!g) return g.error();
  }
  return p;
}

Status check_params(const Recipe& r, const FixParams& params, const Facts& facts) {
  switch (r.params) {
    case ParamSchema::rocm: {
      auto p = parse_rocm_params(params, facts);
      return p ? Status() : Status(p.error());
    }
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
    case ParamSchema::cmdline: {
      auto c = parse_cmdline_params(params, facts);
      return c ? Status() : Status(c.error());
    }
  }
  return make_error(r.id + ": unknown parameter schema");
}

}  // namespace amdml::fix
