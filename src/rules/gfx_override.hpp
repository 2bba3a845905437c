// What gfx.cpp (gfx.override-needed, -pending, -unneeded, gfx.unsupported) and
// gfx_override_invalid.cpp (gfx.override-invalid) share: how each GPU fares on the ML
// stack without an override, and the HSA_OVERRIDE_GFX_VERSION values new logins get.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/rules_internal.hpp"

namespace amdml::rules::gfx {

// How a GPU fares on the stack without any override.
enum class Need { native, override, unsupported, unknown };

struct GpuNeed {
  int index = 0;
  Need need = Need::unknown;
  std::optional<GfxTarget> value;  // the override that works (Need::override)
};

// "AMD Radeon RX 7900 XTX (gfx1100)".
std::string gpu_name(const Gpu& g);
// The stack reads HSA_OVERRIDE_GFX_VERSION_<node> (bundled runtimes are current).
bool per_node_supported(const RuleContext& ctx, const Stack& st);
// Would `value` set globally run on GPU j (native target, or its own known override)?
bool global_value_fits(const RuleContext& ctx, const Stack& st, int j, const GfxTarget& value);
// The login files that set var for new sessions (any value).
std::vector<const LoginEnv*> login_setters(const Facts& f, const std::string& var);
// Where new logins get every per-node value of params from ("" when some are missing).
std::string login_sets_all(const Facts& f, const HsaParams& params);
// The `export` lines of params, for a finding with no fix (a pending state, a new login):
// a finding with the hsa-override fix carries none (the advice stage gives them).
void add_override_commands(Finding& fd, const HsaParams& params);

// gfx.override-invalid of the session's variables of the override family (syntax, node,
// and each GPU each one reaches), and of values only new login sessions get.
void override_invalid(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs,
                      std::vector<Finding>& out);
void login_override_invalid(const RuleContext& ctx, const std::vector<GpuNeed>& needs, std::vector<Finding>& out);

}  // namespace amdml::rules::gfx
