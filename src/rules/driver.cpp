// driver.not-loaded: is amdgpu driving every GPU a ROCm release could run.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

void driver_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  // A GPU whose PCI device is not bound to amdgpu, or amdgpu not live.
  // GPUs no ROCm runs (GCN 1/2, anything on radeon) are gfx.unsupported's: amdgpu would
  // not bring ROCm to them, so they neither count nor call for amdgpu on their own.
  std::vector<int> unbound;
  bool any_rocm_capable = false;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const auto& g = f.gpus[i];
    if (rocm_never(ctx.kb, g)) continue;
    any_rocm_capable = true;
    if (!g.kfd_node && g.driver.value_or("") != "amdgpu") unbound.push_back(static_cast<int>(i));
  }
  bool not_live = f.driver.amdgpu_loaded && f.driver.initstate && *f.driver.initstate != "live";
  if (any_rocm_capable && (!unbound.empty() || (!f.driver.amdgpu_loaded && !in_container(f)) || not_live)) {
    auto fd = make_finding(FindingId::driver_not_loaded, "The amdgpu kernel driver is not driving the GPU",
                           "");
    if (!f.driver.amdgpu_loaded) {
      fd.detail = "The amdgpu module is not loaded, so the kernel exposes no DRM card and no KFD for the GPU.";
      fd.evidence.push_back({"/sys/module/amdgpu", "absent"});
      fd.commands.push_back("sudo modprobe amdgpu");
      fd.commands.push_back("sudo dmesg | grep -i amdgpu");
    } else if (not_live) {
      fd.detail = "The amdgpu module is loaded but did not finish initialising.";
      fd.evidence.push_back({"/sys/module/amdgpu/initstate", *f.driver.initstate});
      fd.commands.push_back("sudo dmesg | grep -i amdgpu");
    } else {
      fd.detail = "The GPU is on PCI but not bound to amdgpu.";
      fd.commands.push_back("sudo dmesg | grep -i amdgpu");
    }
    for (int i : unbound) {
      const auto& g = f.gpus[static_cast<std::size_t>(i)];
      fd.gpus.push_back(i);
      std::string drv = g.driver ? *g.driver : "no driver";
      fd.evidence.push_back({"/sys/bus/pci/devices/" + g.pci_slot.value_or("?") + "/driver", drv});
      if (g.driver && *g.driver == "vfio-pci")
        fd.notes.push_back(gpu_label(f, i) + " is bound to vfio-pci (passed through to a VM); that is deliberate on a VM host.");
    }
    if (f.driver.amdgpu_loaded && !not_live && unbound.empty()) {
      // loaded and live, nothing unbound: no finding after all
    } else {
      if (!f.driver.dkms_version && f.driver.amdgpu_loaded == false)
        fd.notes.push_back("If AMD's amdgpu-dkms is installed, it may not have been built for this kernel: sudo dkms status");
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace amdml::rules
