// vulkan.no-icd: the GPU is to be used through Vulkan (a Vulkan llama.cpp build, or an
// ollama that has no ROCm kernels for it), but no AMD Vulkan driver is installed.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void vulkan_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.ml.probed || f.gpus.empty()) return;
  bool amd_icd = std::any_of(f.ml.vulkan_icds.begin(), f.ml.vulkan_icds.end(),
                             [](const VulkanIcd& i) { return i.driver == "radv" || i.driver == "amdvlk"; });
  if (amd_icd) return;
  std::string why;
  for (const auto& b : f.ml.llama)
    if (std::find(b.backends.begin(), b.backends.end(), LlamaBackend::vulkan) != b.backends.end())
      why = b.path + " is a Vulkan build";
  for (const auto& fd : out)
    // (an info one only says an unidentified build might lack the kernels)
    if (fd.id == FindingId::ollama_gfx_unsupported && fd.severity != Severity::info)
      why = "ollama can only use this GPU through Vulkan";
  if (why.empty()) return;
  auto fd = make_finding(FindingId::vulkan_no_icd, "No Vulkan driver for the AMD GPU",
                         why + ", but no AMD Vulkan ICD (Mesa RADV radeon_icd*.json or AMDVLK amd_icd*.json) is "
                               "installed under /usr/share/vulkan/icd.d or /etc/vulkan/icd.d.");
  fd.evidence.push_back({"/usr/share/vulkan/icd.d", f.ml.vulkan_icds.empty() ? "no ICD files" : "no AMD ICD"});
  std::string pkg = "mesa-vulkan-drivers";
  if (f.os.id == "arch") pkg = "vulkan-radeon";
  fd.commands.push_back(ml::install_command(f, {pkg}));
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

}  // namespace amdml::rules
