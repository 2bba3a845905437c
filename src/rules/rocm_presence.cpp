// rocm.missing: no ROCm user space on the host. A warning, not an error: PyTorch's
// ROCm wheels and ollama bring their own runtime.
#include <algorithm>

#include "rules/knowledge_internal.hpp"

namespace amdml::rules {

void rocm_presence(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.gpus.empty() || f.rocm.source != RocmSource::none) return;
  // No ROCm runs on any of these GPUs (gfx.unsupported says so): installing it cannot help.
  if (std::all_of(f.gpus.begin(), f.gpus.end(), [&](const Gpu& g) { return rocm_never(ctx.kb, g); })) return;
  auto fd = make_finding(FindingId::rocm_missing, "No ROCm runtime installed",
                         "Neither ROCM_PATH, /opt/rocm nor a distribution libhsa-runtime64 was found. PyTorch ROCm "
                         "wheels and ollama bundle their own runtime, so this only matters for programs built "
                         "against a system ROCm (llama.cpp HIP builds, rocminfo).");
  fd.evidence.push_back({"/opt/rocm", "absent"});
  if (auto p = f.env.find("ROCM_PATH"); p != f.env.end()) fd.evidence.push_back({"env ROCM_PATH", p->second});
  if (f.os.id && (*f.os.id == "ubuntu" || *f.os.id == "debian"))
    fd.commands.push_back("sudo apt install rocminfo   # the distribution's ROCm; or AMD's amdgpu-install --usecase=rocm");
  else
    fd.commands.push_back("install ROCm with AMD's amdgpu-install --usecase=rocm (see rocm.docs.amd.com)");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

}  // namespace amdml::rules
