// gpu.none: is there an AMD GPU at all. Every other rule has nothing to say about a
// GPU that is not there, so this one explains where it may have gone.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

void gpu_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.gpus.empty()) {
    // PCI devices whose vendor or class could not be read may be the GPU: say so rather
    // than claim there is none.
    std::vector<const ProbeError*> unreadable;
    for (const auto& e : f.errors)
      if (e.probe == "pci" && e.path.rfind("/sys/bus/pci/devices/", 0) == 0) unreadable.push_back(&e);
    auto fd = make_finding(FindingId::gpu_none, unreadable.empty() ? "No AMD GPU found" : "No AMD GPU found among the PCI devices amdml could read",
                           unreadable.empty()
                               ? "No AMD display or accelerator device is on PCI, no amdgpu DRM card exists and KFD lists no GPU."
                               : "No readable PCI device is an AMD display or accelerator, no amdgpu DRM card exists and KFD "
                                 "lists no GPU; but " + std::to_string(unreadable.size()) +
                                     " PCI value(s) could not be read, and one of them may be the GPU.");
    if (unreadable.empty())
      fd.evidence.push_back({"/sys/bus/pci/devices", "no device with vendor 0x1002 and a display or accelerator class"});
    for (const auto* e : unreadable) fd.evidence.push_back({e->path, "unreadable: " + e->message});
    fd.evidence.push_back({"/sys/class/kfd/kfd/topology", f.kfd.present ? "no GPU node" : "absent"});
    if (f.os.wsl) {
      fd.detail += " This is WSL: the GPU is reached through /dev/dxg, not amdgpu; ROCm on WSL needs a supported "
                   "Radeon card and AMD's WSL driver, otherwise use DirectML.";
    } else if (in_container(f)) {
      fd.detail += " This is a container: the host's /sys and devices may not be passed in.";
    }
    fd.commands.push_back("lspci -nn | grep -Ei 'vga|display|3d'");
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
