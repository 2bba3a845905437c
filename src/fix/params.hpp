// Recipe parameters checked: a finding's fix.params (amdml/fix_params.hpp) against the
// limits docs/fix.md gives each recipe and the facts. The plan builds bytes only from
// what passes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts.hpp"
#include "amdml/fix_params.hpp"
#include "amdml/units.hpp"
#include "fix/edits.hpp"

namespace amdml::fix {

struct TtmLimits {
  std::string module;  // "ttm" or "amdttm"
  Pages pages_limit;
  std::optional<Pages> page_pool_size;
};

bool valid_gfx_override(const std::string& v);
// Each reads its own kind of parameters; parameters of another kind count as empty.
// The groups come back without repeats.
Result<GroupsParams> parse_groups_params(const FixParams& p, const Facts& facts);
Result<TtmLimits> parse_ttm_params(const FixParams& p, const Facts& facts);
Result<EnvSettings> parse_hsa_params(const FixParams& p);
Result<EnvSettings> parse_env_params(const std::string& recipe, const FixParams& p);
// Module parameters only (module.name), plain values, page counts within RAM.
Result<KernelCmdlineParams> parse_cmdline_params(const FixParams& p, const Facts& facts);
// A kernel parameter's name as the kernel compares it ('-' and '_' alike).
std::string cmdline_param_name(std::string_view name);
// rocm-install: URLs https:// or file:// without spaces, Debian package names, and
// (when a user is named) the groups checks of parse_groups_params.
Result<RocmInstallParams> parse_rocm_params(const FixParams& p, const Facts& facts);

}  // namespace amdml::fix
