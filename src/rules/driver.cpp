// driver.not-loaded: is amdgpu driving every GPU a ROCm release could run; and when it
// is not, which of the boot's reasons it is (facts_boot.hpp): Secure Boot refusing the
// DKMS module, a blacklist, a failed probe, a DKMS build missing for this kernel, a
// kernel too old for the card. A bare `modprobe` only when none of them explains it.
#include "formats/kmsg.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {
namespace {

const KernelEvent* last_event(const Facts& f, KernelEventKind k) {
  const KernelEvent* out = nullptr;
  for (const auto& e : f.kernel_log.events)
    if (e.kind == k) out = &e;
  return out;
}

Evidence quote(const KernelEvent& e) { return {"kernel log " + formats::kmsg::time_label(e.usec), e.line}; }

// A GPU this kernel's amdgpu does not know (the knowledge's oldest kernel), if any.
std::optional<std::string> kernel_too_old(const RuleContext& ctx, const std::vector<int>& gpus) {
  const Facts& f = ctx.facts;
  if (!f.os.kernel || dkms_driver(f)) return std::nullopt;
  for (int i : gpus) {
    const auto& g = f.gpus[static_cast<std::size_t>(i)];
    const GfxInfo* info = g.gfx ? ctx.kb.find_gfx(*g.gfx) : nullptr;
    if (info && info->kernel_min && *f.os.kernel < *info->kernel_min) return short_version(*info->kernel_min);
  }
  return std::nullopt;
}

// Says why amdgpu is not there, with the fix for that reason; false when the boot
// state explains nothing.
bool explain_reason(const RuleContext& ctx, const std::vector<int>& gpus, Finding& fd) {
  const Facts& f = ctx.facts;
  const BootFacts& b = f.boot;
  const KernelEvent* rejected = last_event(f, KernelEventKind::module_rejected);
  const bool dkms_present = b.dkms == DkmsState::installed || b.dkms == DkmsState::built;
  if (rejected || (b.secure_boot.value_or(false) && b.dkms == DkmsState::installed && !f.driver.amdgpu_loaded)) {
    fd.detail = rejected ? "Secure Boot refused the amdgpu module: it is built, but signed with a key the firmware does not trust."
                         : "Secure Boot is on and amdgpu-dkms is installed for this kernel but not loaded: the module is "
                           "signed with the machine's own DKMS key, which Secure Boot refuses until it is enrolled.";
    if (rejected) fd.evidence.push_back(quote(*rejected));
    if (b.secure_boot) fd.evidence.push_back({"EFI SecureBoot", *b.secure_boot ? "enabled" : "disabled"});
    if (b.dkms_module) fd.evidence.push_back({*b.dkms_module, "present"});
    fd.commands.push_back("sudo mokutil --import /var/lib/dkms/mok.pub");
    fd.notes.push_back("Enroll the key (MOK enrollment): mokutil asks for a one-time password; reboot, choose \"Enroll "
                       "MOK\" in the MOK manager and enter it. Or turn Secure Boot off in the firmware setup.");
    return true;
  }
  if (!b.blacklists.empty() && !f.driver.amdgpu_loaded) {
    fd.detail = "amdgpu is blacklisted, so it is never loaded at boot.";
    bool cmdline = false;
    for (const auto& bl : b.blacklists) {
      fd.evidence.push_back({bl.where, bl.text});
      if (bl.where == "/proc/cmdline") {
        cmdline = true;
        continue;
      }
      const auto colon = bl.where.rfind(':');
      fd.commands.push_back("sudo sed -i " + text::shell_word(bl.where.substr(colon + 1) + "s/^/# /") + " " +
                            text::shell_word(bl.where.substr(0, colon)));
    }
    if (!fd.commands.empty()) fd.commands.push_back("sudo update-initramfs -u");
    if (cmdline)
      fd.notes.push_back("Remove nomodeset, amdgpu.modeset=0 or amdgpu from modprobe.blacklist= in the boot loader's "
                         "command line (" + (f.os.boot_cmdline_file.empty() ? std::string("/etc/default/grub") : f.os.boot_cmdline_file) +
                         "), regenerate its configuration and reboot.");
    fd.notes.push_back("Reboot afterwards.");
    return true;
  }
  if (const KernelEvent* probe = last_event(f, KernelEventKind::probe_failed)) {
    fd.detail = "amdgpu tried and failed to initialise the GPU (kernel.probe-failed has the lines before it).";
    fd.evidence.push_back(quote(*probe));
    if (auto need = kernel_too_old(ctx, gpus)) fd.commands.push_back("install a kernel >= " + *need + ", or AMD's amdgpu-dkms for this kernel");
    return true;
  }
  if (b.dkms == DkmsState::missing || b.dkms == DkmsState::built) {
    const std::string rel = f.os.kernel_release.value_or("$(uname -r)");
    fd.detail = b.dkms == DkmsState::missing ? "AMD's amdgpu-dkms is installed but was not built for the running kernel " + rel + "."
                                             : "AMD's amdgpu-dkms was built for " + rel + " but not installed into it.";
    fd.evidence.push_back({"/var/lib/dkms/amdgpu", b.dkms_versions.empty() ? "" : b.dkms_versions.back()});
    fd.evidence.push_back({"/lib/modules/" + rel + "/updates/dkms/amdgpu.ko", "absent"});
    fd.commands.push_back("sudo dkms autoinstall -k " + text::shell_word(rel));
    fd.commands.push_back("sudo reboot");
    fd.notes.push_back("A build that fails usually needs the headers of this kernel (linux-headers-" + rel + "), or a kernel amdgpu-dkms supports.");
    return true;
  }
  if (auto need = kernel_too_old(ctx, gpus); need && !dkms_present) {
    fd.detail = "This kernel is older than the GPU: its amdgpu does not know the card (Linux " + *need + " or newer does).";
    fd.commands.push_back("install a kernel >= " + *need + ", or AMD's amdgpu-dkms for this kernel");
    return true;
  }
  return false;
}

}  // namespace

void driver_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  // A GPU whose PCI device is not bound to amdgpu, or amdgpu not live.
  // GPUs no ROCm runs (GCN 1/2, anything on radeon) are gfx.unsupported's: amdgpu would
  // not bring ROCm to them, so they neither count nor call for amdgpu on their own.
  std::vector<int> unbound, capable;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const auto& g = f.gpus[i];
    if (rocm_never(ctx.kb, g)) continue;
    capable.push_back(static_cast<int>(i));
    if (!g.kfd_node && g.driver.value_or("") != "amdgpu") unbound.push_back(static_cast<int>(i));
  }
  const bool not_live = f.driver.amdgpu_loaded && f.driver.initstate && *f.driver.initstate != "live";
  const bool not_loaded = !f.driver.amdgpu_loaded && !in_container(f);
  if (capable.empty() || (unbound.empty() && !not_loaded && !not_live)) return;
  if (f.driver.amdgpu_loaded && !not_live && unbound.empty()) return;
  auto fd = make_finding(FindingId::driver_not_loaded, "The amdgpu kernel driver is not driving the GPU", "");
  if (!f.driver.amdgpu_loaded) fd.evidence.push_back({"/sys/module/amdgpu", "absent"});
  else if (not_live) fd.evidence.push_back({"/sys/module/amdgpu/initstate", *f.driver.initstate});
  for (int i : unbound) {
    const auto& g = f.gpus[static_cast<std::size_t>(i)];
    fd.gpus.push_back(i);
    std::string drv = g.driver ? *g.driver : "no driver";
    fd.evidence.push_back({"/sys/bus/pci/devices/" + g.pci_slot.value_or("?") + "/driver", drv});
    if (g.driver && *g.driver == "vfio-pci")
      fd.notes.push_back(gpu_label(f, i) + " is bound to vfio-pci (passed through to a VM); that is deliberate on a VM host.");
  }
  if (!explain_reason(ctx, unbound.empty() ? capable : unbound, fd)) {
    if (!f.driver.amdgpu_loaded) {
      fd.detail = "The amdgpu module is not loaded, so the kernel exposes no DRM card and no KFD for the GPU.";
      fd.commands.push_back("sudo modprobe amdgpu");
    } else if (not_live) {
      fd.detail = "The amdgpu module is loaded but did not finish initialising.";
    } else {
      fd.detail = "The GPU is on PCI but not bound to amdgpu.";
    }
    if (!f.kernel_log.read) fd.commands.push_back("sudo dmesg | grep -i amdgpu");
    if (f.boot.dkms == DkmsState::none && !f.driver.dkms_version && !f.driver.amdgpu_loaded && !f.kernel_log.read)
      fd.notes.push_back("If AMD's amdgpu-dkms is installed, it may not have been built for this kernel: sudo dkms status");
  }
  out.push_back(std::move(fd));
}

}  // namespace amdml::rules
