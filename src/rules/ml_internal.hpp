// Helpers shared by the ML-stack rules (ollama_rules.cpp, ml_rules.cpp).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void ollama_rules(const RuleContext& ctx, std::vector<Finding>& out);  // ollama_rules.cpp

namespace ml {

// HSA_OVERRIDE_GFX_VERSION as ROCm parses it: three decimal numbers, nothing else.
std::optional<GfxTarget> parse_override(const std::string& value);
// The value with one layer of surrounding quotes removed, when it has them.
std::optional<std::string> unquote(const std::string& value);
// Go's strconv.ParseBool truthiness, after ollama strips quotes and spaces.
std::optional<bool> go_bool(std::string value);

// Whether a GPU is integrated: the knowledge base's answer when it has one, else
// ollama's own sysfs rule (carve-out <= 4 GiB, GTT >= 8 GiB and >= 4x the carve-out).
std::optional<bool> integrated(const Gpu& g);

// Indices of GPUs whose gfx is known.
std::vector<int> gpus_with_gfx(const Facts& f);

// The driver side is older than release r needs: the running in-tree kernel is below
// its minimum. nullopt when it cannot be judged (no data, or AMD's DKMS driver).
std::optional<std::string> driver_too_old_for(const Facts& f, const RocmRelease& r);

std::string join(const std::vector<std::string>& v, const char* sep);
std::string gfx_names(const std::vector<GfxTarget>& v);

// The package-manager line for a list of packages on this OS.
std::string install_command(const Facts& f, const std::vector<std::string>& packages);

}  // namespace ml
}  // namespace amdml::rules
