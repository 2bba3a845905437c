// kfd.missing and kfd.gpu-missing: does the kernel's compute interface (KFD) exist, and
// did it take every GPU amdgpu drives.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

static bool kfd_node_missing(const Facts& f) {
  if (f.identity.devices_known)
    if (const DeviceAccess* d = find_device(f, "/dev/kfd")) return !d->exists;
  return !f.kfd.present;
}

void kfd_missing(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  // Driver up, GPUs known, but no /dev/kfd (containers: container.devices says it).
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

void kfd_gpu_missing(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.kfd.present || in_container(f)) return;  // kfd.missing / container.* say it
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    if (g.kfd_node || g.driver.value_or("") != "amdgpu") continue;
    if (rocm_never(ctx.kb, g)) continue;  // gfx.unsupported: no KFD node would bring ROCm
    const GfxInfo* info = g.gfx ? ctx.kb.find_gfx(*g.gfx) : nullptr;
    std::string cause;
    if (!info) {
      cause = "amdml does not know this ASIC as a ROCm target (" + (g.pci_id().empty() ? std::string("unknown id") : g.pci_id()) +
              "); GPUs before GCN 3 (gfx8) have no KFD support.";
    } else if (info->kernel_min && f.os.kernel && *f.os.kernel < *info->kernel_min && !dkms_driver(f)) {
      cause = "This kernel's KFD does not know " + g.gfx->name() + " (dmesg: \"GC IP ... not supported in kfd\"); " +
              info->kernel_note + ".";
    } else if (info->needs_atomics && !info->apu) {
      cause = "KFD most likely rejected it for lacking PCIe atomics (dmesg: \"skipped device " + g.pci_id() +
              ", PCI rejects atomics\"): the slot or a riser/chipset path does not pass them, or the GPU firmware is older "
              "than the no-atomics threshold.";
    } else {
      cause = "KFD did not initialise it; dmesg says why.";
    }
    auto fd = make_finding(FindingId::kfd_gpu_missing, gpu_label(f, static_cast<int>(i)) + " is driven by amdgpu but has no KFD node", cause);
    fd.gpus.push_back(static_cast<int>(i));
    fd.evidence.push_back({drm_device_dir(g) + "/uevent", "DRIVER=amdgpu"});
    fd.evidence.push_back({"/sys/class/kfd/kfd/topology/nodes", std::to_string(f.kfd.nodes.size()) + " nodes, none at " +
                                                                     g.pci_slot.value_or("?")});
    fd.commands.push_back("sudo dmesg | grep -iE 'kfd|atomics'");
    if (info && info->needs_atomics && !info->apu)
      fd.notes.push_back("Move the card to a CPU-attached PCIe slot (not behind the chipset or a riser), and update the GPU firmware "
                         "(linux-firmware).");
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
