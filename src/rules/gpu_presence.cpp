// gpu.none, driver.not-loaded, kfd.missing: is there a GPU, is amdgpu driving it, and
// does the kernel's compute interface (KFD) exist.
#include "rules/knowledge_internal.hpp"

namespace amdml::rules {

static bool kfd_node_missing(const Facts& f) {
  if (f.identity.devices_known) {
    for (const auto& d : f.identity.devices)
      if (d.path == "/dev/kfd") return !d.exists;
  }
  return !f.kfd.present;
}

void gpu_presence(const RuleContext& ctx, std::vector<Finding>& out) {
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
    return;
  }
  // driver.not-loaded: a GPU whose PCI device is not bound to amdgpu, or amdgpu not live.
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
  // kfd.missing: driver up, GPUs known, but no /dev/kfd (containers: container.devices says it).
  if (in_container(f)) return;
  bool any_amdgpu = false;
  for (const auto& g : f.gpus)
    any_amdgpu |= !rocm_never(ctx.kb, g) && (g.driver.value_or("") == "amdgpu" || g.kfd_node.has_value());
  if (any_amdgpu && kfd_node_missing(f)) {
    auto fd = make_finding(FindingId::kfd_missing, "/dev/kfd does not exist",
                           "ROCm talks to the GPU through /dev/kfd; without it no ROCm program sees a GPU. "
                           "The kernel was built without CONFIG_HSA_AMD, or KFD did not initialise for this ASIC.");
    fd.evidence.push_back({"/dev/kfd", "absent"});
    fd.evidence.push_back({"/sys/class/kfd/kfd/topology", f.kfd.present ? "present" : "absent"});
    fd.commands.push_back("sudo dmesg | grep -i kfd");
    fd.commands.push_back("grep CONFIG_HSA_AMD /boot/config-$(uname -r)");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
