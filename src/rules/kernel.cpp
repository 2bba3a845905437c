// kernel.old: is the running kernel new enough for each GPU (its KFD must know the
// ASIC; Strix Halo needs fixes AMD lists by kernel; small-carve-out APUs need the GTT
// fallback).
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void kernel_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.os.kernel || !f.os.kernel_release || in_container(f)) return;
  const KernelVersion& kv = *f.os.kernel;
  const std::string& release = *f.os.kernel_release;
  const Evidence kev{"/proc/sys/kernel/osrelease", release};
  std::vector<const KernelReq*> reported;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    if (!g.gfx) continue;
    // A published requirement (Strix Halo and the like), once per requirement.
    if (const KernelReq* req = ctx.kb.kernel_req_for(*g.gfx);
        req && !req->satisfied_by(release) && std::find(reported.begin(), reported.end(), req) == reported.end()) {
      reported.push_back(req);
      auto fd = make_finding(FindingId::kernel_old, gpu_label(f, static_cast<int>(i)) + " needs Linux " + short_version(req->kernel_min) +
                                               " or newer (running " + short_version(kv) + ")",
                             req->why + ".");
      fd.evidence.push_back(kev);
      fd.evidence.push_back(gfx_evidence(g));
      if (f.rocm.version) {
        KernelStatus st = req->status(*f.rocm.version, false);
        if (st != KernelStatus::unknown) {
          fd.detail += " AMD lists ROCm " + short_version(*f.rocm.version) + " on such kernels as " + to_string(st) + ".";
          if (st == KernelStatus::unsupported) fd.severity = Severity::error;
        }
        fd.evidence.push_back(rocm_evidence(f));
      }
      fd.gpus.push_back(static_cast<int>(i));
      fd.commands.push_back("install a kernel >= " + short_version(req->kernel_min) +
                            (req->backport.empty() ? std::string() : " (or a distro kernel carrying the fixes, e.g. " + req->backport + " or newer)"));
      if (!req->source.empty()) fd.notes.push_back("Source: " + req->source + ".");
      out.push_back(std::move(fd));
      continue;
    }
    // The in-tree KFD must know the ASIC; AMD's DKMS driver brings its own.
    if (const GfxInfo* info = ctx.kb.find_gfx(*g.gfx); info && info->kernel_min && kv < *info->kernel_min && !dkms_driver(f)) {
      auto fd = make_finding(FindingId::kernel_old, gpu_label(f, static_cast<int>(i)) + " needs Linux " + short_version(*info->kernel_min) +
                                               " or newer (running " + short_version(kv) + ")",
                             info->kernel_note + ". Older kernels log \"GC IP ... not supported in kfd\" and create no compute node.");
      fd.evidence.push_back(kev);
      fd.evidence.push_back({"/sys/module/amdgpu/version", "absent (in-tree driver)"});
      fd.gpus.push_back(static_cast<int>(i));
      fd.commands.push_back("install a kernel >= " + short_version(*info->kernel_min) + ", or AMD's amdgpu-dkms for this kernel");
      out.push_back(std::move(fd));
      continue;
    }
    // Small-carve-out APUs: before the GTT fallback ROCm sees only the carve-out.
    const MemoryKnowledge& mk = ctx.kb.memory;
    if (g.apu.value_or(false) && g.vram && g.vram->value <= mk.small_carveout_max_mib * kMiB && kv < mk.small_apu_gtt_fallback &&
        !dkms_driver(f)) {
      auto fd = make_finding(FindingId::kernel_old, gpu_label(f, static_cast<int>(i)) + ": kernel " + short_version(kv) +
                                               " limits ROCm to the " + format_bytes(*g.vram) + " carve-out",
                             "Before Linux " + short_version(mk.small_apu_gtt_fallback) + " KFD allocates APU \"VRAM\" only from the BIOS "
                             "carve-out, so PyTorch and llama.cpp run out of memory while RAM is free. From " +
                                 short_version(mk.apu_prefer_gtt) + " ROCm memory follows ttm.pages_limit.");
      fd.evidence.push_back(kev);
      fd.evidence.push_back({drm_device_dir(g) + "/mem_info_vram_total", std::to_string(g.vram->value)});
      fd.gpus.push_back(static_cast<int>(i));
      fd.commands.push_back("install a kernel >= " + short_version(mk.apu_prefer_gtt) + " (or raise the UMA frame buffer size in the BIOS)");
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace amdml::rules
