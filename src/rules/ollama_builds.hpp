// What each ollama release ships for AMD GPUs on Linux: the gfx targets its ROCm
// backend is compiled for, the ROCm it bundles, and when it began dropping iGPUs by
// default. Facts from ollama's own history (reference/ollama.md §0, §1C, §1D); the
// rules prefer what is on disk (the rocBLAS files of the installed build) and fall
// back to this table only when the library directory could not be read.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdml/gfx.hpp"
#include "amdml/version.hpp"

namespace amdml::rules::ollama_builds {

struct Build {
  Version from;                      // first release of the range
  std::optional<Version> until;      // first release after it (nullopt: still current)
  Version rocm;                      // bundled ROCm
  std::vector<const char*> targets;  // Linux gfx targets with ROCm kernels
};

const std::vector<Build>& table();
const Build* find(const Version& v);
// "v0.18.0 – v0.31.1": the newest range that still ships gfx, for the advice to downgrade.
std::optional<std::string> last_range_with(const GfxTarget& gfx);

// v0.30.0 drops integrated GPUs unless OLLAMA_IGPU_ENABLE is set (or the gfx is on
// the allowlist); v0.30.0 also makes Vulkan the default; v0.12.11 .. v0.29 need
// OLLAMA_VULKAN=1 for it.
inline constexpr Version kIgpuDropFrom{0, 30, 0};
inline constexpr Version kVulkanDefaultFrom{0, 30, 0};
inline constexpr Version kVulkanOptInFrom{0, 12, 11};
bool igpu_allowlisted(const GfxTarget& gfx, const Version& ollama);  // gfx1151 (Radeon 8060S) from v0.30.1

}  // namespace amdml::rules::ollama_builds
