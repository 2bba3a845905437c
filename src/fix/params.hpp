// Typed recipe parameters, parsed and checked from a finding's fix.params (the
// contracts in TEAM.md). The plan builds bytes only from these, never from raw JSON.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdml/facts.hpp"
#include "amdml/units.hpp"
#include "fix/edits.hpp"

namespace amdml::fix {

struct GroupsParams {
  std::string user;
  std::vector<std::string> groups;
};

struct TtmParams {
  std::string module;  // "ttm" or "amdttm"
  Pages pages_limit;
  std::optional<Pages> page_pool_size;
};

bool valid_gfx_override(const std::string& v);
Result<GroupsParams> parse_groups_params(const nlohmann::json& p, const Facts& facts);
Result<TtmParams> parse_ttm_params(const nlohmann::json& p, const Facts& facts);
Result<EnvSettings> parse_hsa_params(const nlohmann::json& p);
Result<EnvSettings> parse_env_params(const std::string& recipe, const nlohmann::json& p);

}  // namespace amdml::fix
