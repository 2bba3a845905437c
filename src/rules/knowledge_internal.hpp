// Shared pieces of the knowledge-driven rules (gfx, memory, kernel, ROCm version,
// environment): which ROCm stack a GPU will run on, which override applies to a GPU,
// and the evidence strings every rule cites the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "formats/system_files.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {

// The ROCm whose kernels a GPU will run: the installed one, else (no ROCm, or a version
// amdml cannot read) the newest release amdml knows, which is what current PyTorch
// wheels and ollama builds bundle.
struct Stack {
  const RocmRelease* release = nullptr;  // nullptr only when the knowledge base has no releases
  bool installed = false;
  std::string label;  // "ROCm 6.2.4" or "current ROCm builds (7.2)"
};
Stack ml_stack(const RuleContext& ctx);

// The HSA_OVERRIDE_GFX_VERSION setting that applies to a GPU: the per-node variable
// for its KFD node if set, else the global one.
struct OverrideSetting {
  std::string var;    // "HSA_OVERRIDE_GFX_VERSION_1"
  std::string value;  // as found in the environment
  OverrideParse parse;
};
std::optional<OverrideSetting> override_for(const Facts& f, const Gpu& g);

// Whether running a GPU of target `from` as target `to` keeps the ISA family and the
// wave size (the knowledge base must know both targets).
bool override_compatible(const Knowledge& kb, const GfxTarget& from, const GfxTarget& to);

// A GPU no ROCm release runs: its gfx target is marked rocm_never (GCN 1/2, old APUs), or
// the old radeon driver holds it (radeon drives nothing newer than GCN 2). Binding it to
// amdgpu would not bring ROCm; gfx.unsupported points it to Vulkan instead.
bool rocm_never(const Knowledge& kb, const Gpu& g);

// "/sys/class/kfd/kfd/topology/nodes/1/properties" evidence for a GPU's gfx.
Evidence gfx_evidence(const Gpu& g);
// The ROCm version evidence ("/opt/rocm/.info/version" -> "6.2.4", or "absent").
Evidence rocm_evidence(const Facts& f);
// The sysfs directory of a GPU's DRM device ("/sys/class/drm/card0/device").
std::string drm_device_dir(const Gpu& g);
// The name ROCR_VISIBLE_DEVICES accepts for a GPU: "GPU-<unique id>" when known, else
// its index among ROCm's GPUs.
std::string rocr_device_name(const Facts& f, int gpu_index);
// Index of a GPU among the GPUs KFD lists (ROCm's device numbering), or -1.
int rocm_device_index(const Facts& f, int gpu_index);

// One function per area (each in its own file).
void gfx_rules(const RuleContext& ctx, std::vector<Finding>& out);          // gfx_rules.cpp
void memory_rules(const RuleContext& ctx, std::vector<Finding>& out);       // memory_rules.cpp
void kernel_rules(const RuleContext& ctx, std::vector<Finding>& out);       // kernel_rules.cpp
void rocm_version_rules(const RuleContext& ctx, std::vector<Finding>& out); // rocm_version_rules.cpp
void env_rules(const RuleContext& ctx, std::vector<Finding>& out);          // env_rules.cpp

}  // namespace amdml::rules
