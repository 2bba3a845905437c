// llamacpp.*: llama.cpp's unified-memory switch set where it hurts, and llama.cpp builds
// without a backend for the AMD GPU.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void llamacpp_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.ml.probed || f.gpus.empty()) return;
  // GGML_CUDA_ENABLE_UNIFIED_MEMORY: present with any value means on (even "0").
  std::vector<std::pair<std::string, std::string>> uma;  // where, value
  if (auto it = f.env.find("GGML_CUDA_ENABLE_UNIFIED_MEMORY"); it != f.env.end()) uma.emplace_back("env", it->second);
  if (const auto& s = f.ml.ollama.service)
    if (auto it = s->environment.find("GGML_CUDA_ENABLE_UNIFIED_MEMORY"); it != s->environment.end())
      uma.emplace_back(it->second.file, it->second.value);
  // "only discrete GPUs" must be known, not assumed from missing data
  bool all_discrete = std::all_of(f.gpus.begin(), f.gpus.end(), [](const Gpu& g) { return ml::integrated(g) == false; });
  for (const auto& [src, val] : uma) {
    auto b = ml::go_bool(val);
    bool off_intended = b == false || val.empty() || val == "off" || val == "no";
    if (!off_intended && !all_discrete) continue;  // deliberately on, and an APU may be here: fine
    std::string title = off_intended ? "GGML_CUDA_ENABLE_UNIFIED_MEMORY=" + val + " turns unified memory on, not off"
                                     : "GGML_CUDA_ENABLE_UNIFIED_MEMORY is set on a box with only discrete GPUs";
    std::string detail = off_intended
                             ? "llama.cpp checks only whether the variable exists: any value, even 0, makes every "
                               "buffer hipMallocManaged (host memory, slower, and it bypasses the GTT limit). Unset it "
                               "to turn it off."
                             : "Managed memory draws from host RAM instead of VRAM and slows a discrete GPU down; it is "
                               "meant for APUs.";
    auto fd = make_finding(FindingId::llamacpp_uma_env, title, detail);
    fd.evidence.push_back({src == "env" ? "env GGML_CUDA_ENABLE_UNIFIED_MEMORY" : src, "GGML_CUDA_ENABLE_UNIFIED_MEMORY=" + val});
    fd.commands.push_back(src == "env" ? "unset GGML_CUDA_ENABLE_UNIFIED_MEMORY   # and remove it from your shell profile"
                                       : "remove GGML_CUDA_ENABLE_UNIFIED_MEMORY from " + src);
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
  for (const auto& b : f.ml.llama) {
    if (b.backends.empty()) continue;  // unknown
    bool gpu = std::any_of(b.backends.begin(), b.backends.end(),
                           [](LlamaBackend k) { return k == LlamaBackend::hip || k == LlamaBackend::vulkan; });
    if (gpu) continue;
    bool cuda = std::find(b.backends.begin(), b.backends.end(), LlamaBackend::cuda) != b.backends.end();
    auto fd = make_finding(FindingId::llamacpp_no_gpu_backend, b.path + " cannot use the AMD GPU",
                           std::string("This llama.cpp build has ") + (cuda ? "only the CUDA (NVIDIA) backend" : "only the CPU backend") +
                               "; it needs a HIP (ROCm) or Vulkan build to run on an AMD GPU.");
    fd.evidence.push_back({b.path, b.evidence});
    std::string targets;
    for (int i : ml::gpus_with_gfx(f)) targets += (targets.empty() ? "" : ";") + f.gpus[i].gfx->name();
    fd.commands.push_back("cmake -B build -DGGML_HIP=ON" + (targets.empty() ? std::string() : " -DAMDGPU_TARGETS=" + targets) +
                          " && cmake --build build -j   # or -DGGML_VULKAN=ON for the Vulkan backend");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
