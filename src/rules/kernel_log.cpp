// kernel.* findings read off this boot's kernel log (facts_boot.hpp): each quotes the
// line it rests on and its time since boot. kernel.old is kernel.cpp's.
#include <map>

#include "formats/kmsg.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {
namespace {

using Events = std::vector<const KernelEvent*>;

Evidence quote(const KernelEvent& e) { return {"kernel log " + formats::kmsg::time_label(e.usec), e.line}; }

Events of(const Facts& f, KernelEventKind k) {
  Events out;
  for (const auto& e : f.kernel_log.events)
    if (e.kind == k) out.push_back(&e);
  return out;
}

// The package that ships /lib/firmware/amdgpu on this distribution, and its install line.
std::pair<std::string, std::string> firmware_package(const Facts& f) {
  const std::string id = f.os.id.value_or("");
  auto like = [&](const char* d) {
    if (id == d) return true;
    for (const auto& l : f.os.id_like)
      if (l == d) return true;
    return false;
  };
  // Debian keeps it in non-free-firmware (bookworm on); Fedora split amd-gpu-firmware out
  // of linux-firmware (Fedora 38); Ubuntu, Arch and most others: linux-firmware.
  if (id == "debian") return {"firmware-amd-graphics", "sudo apt install firmware-amd-graphics"};
  if (like("ubuntu") || like("debian")) return {"linux-firmware", "sudo apt install --reinstall linux-firmware"};
  if (like("fedora") || like("rhel")) return {"amd-gpu-firmware", "sudo dnf install amd-gpu-firmware"};
  if (like("arch")) return {"linux-firmware", "sudo pacman -S linux-firmware"};
  return {"linux-firmware", ""};
}

void firmware_missing(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  std::map<std::string, const KernelEvent*> files;  // one per file
  for (const auto* e : of(f, KernelEventKind::firmware_missing))
    if (e->subject.starts_with("amdgpu/") && !files.count(e->subject)) files[e->subject] = e;
  if (files.empty()) return;
  auto [pkg, install] = firmware_package(f);
  std::string names;
  for (const auto& [file, e] : files) names += (names.empty() ? "" : ", ") + file;
  auto fd = make_finding(FindingId::kernel_firmware_missing, "GPU firmware missing: " + names,
                         "amdgpu asked for /lib/firmware/" + files.begin()->first + " and it was not there (error " +
                             std::to_string(files.begin()->second->error_code.value_or(-2)) + "); the files come with " +
                             pkg + ". A block that needs it does not start, and without PSP, SMU or GFX firmware the "
                             "GPU does not initialise at all.");
  for (const auto& [file, e] : files) fd.evidence.push_back(quote(*e));
  if (!install.empty()) fd.commands.push_back(install);
  fd.commands.push_back("sudo update-initramfs -u");
  fd.notes.push_back("If " + pkg + " is installed already, it is older than this GPU: the file arrives with a newer " + pkg +
                     " (or AMD's amdgpu-dkms, which carries its own firmware). Reboot afterwards.");
  out.push_back(std::move(fd));
}

void probe_failed(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  auto ev = of(f, KernelEventKind::probe_failed);
  if (ev.empty()) return;
  auto fd = make_finding(FindingId::kernel_probe_failed, "amdgpu failed to initialise the GPU", "");
  std::optional<int> code;
  for (const auto* e : ev) {
    fd.evidence.push_back(quote(*e));
    if (e->error_code) code = e->error_code;
  }
  std::string detail = "The kernel log shows amdgpu giving up on the GPU";
  if (code == -22) detail += " with EINVAL (-22): usually a kernel that does not know this GPU's IP blocks";
  else if (code == -12) detail += " with ENOMEM (-12): usually the BIOS not mapping the GPU's memory (Above 4G decoding, Resizable BAR)";
  else if (code == -2) detail += " with ENOENT (-2): a firmware file it needs is missing";
  else if (code) detail += " with error " + std::to_string(*code);
  fd.detail = detail + ".";
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const auto& g = f.gpus[i];
    if (!g.gfx || g.kfd_node) continue;
    fd.gpus.push_back(static_cast<int>(i));
    const GfxInfo* info = ctx.kb.find_gfx(*g.gfx);
    if (!info || !info->kernel_min) continue;
    const std::string need = short_version(*info->kernel_min);
    if (f.os.kernel && *f.os.kernel < *info->kernel_min && !dkms_driver(f)) {
      fd.notes.push_back(gpu_label(f, static_cast<int>(i)) + " is supported from Linux " + need + " on; this is " +
                         f.os.kernel_release.value_or("?") + ".");
      fd.commands.push_back("install a kernel >= " + need + ", or AMD's amdgpu-dkms for this kernel");
    } else {
      fd.notes.push_back(gpu_label(f, static_cast<int>(i)) + " is supported from Linux " + need +
                         " on, which this kernel is: look at the lines before the failure (firmware, BIOS settings).");
    }
  }
  if (!of(f, KernelEventKind::firmware_missing).empty())
    fd.notes.push_back("A firmware file is missing too (kernel.firmware-missing); that alone stops the GPU's start.");
  if (code == -12) fd.notes.push_back("Enable Above 4G Decoding (and Resizable BAR) in the firmware setup, then boot again.");
  out.push_back(std::move(fd));
}

void module_rejected(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  auto ev = of(f, KernelEventKind::module_rejected);
  if (ev.empty()) return;
  auto fd = make_finding(FindingId::kernel_module_rejected,
                         "The kernel refused to load a module that is not signed with a trusted key", "");
  fd.evidence.push_back(quote(*ev.back()));
  if (f.boot.secure_boot) fd.evidence.push_back({"EFI SecureBoot", *f.boot.secure_boot ? "enabled" : "disabled"});
  if (f.boot.lockdown) fd.evidence.push_back({"/sys/kernel/security/lockdown", *f.boot.lockdown});
  fd.detail = "Secure Boot (or kernel lockdown) lets only modules signed with an enrolled key load. A DKMS module "
              "such as amdgpu-dkms is signed with the machine's own key, which must be enrolled as a MOK once.";
  fd.commands.push_back("sudo mokutil --import /var/lib/dkms/mok.pub");
  fd.notes.push_back("mokutil asks for a one-time password; reboot, choose \"Enroll MOK\" in the blue MOK manager "
                     "screen and enter it. Or turn Secure Boot off in the firmware setup.");
  out.push_back(std::move(fd));
}

void resets(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  auto timeouts = of(f, KernelEventKind::ring_timeout);
  auto reset = of(f, KernelEventKind::gpu_reset);
  if (timeouts.empty() && reset.empty()) return;
  std::string title = "The GPU hung in this boot: ";
  if (!timeouts.empty()) title += std::to_string(timeouts.size()) + " ring timeout" + (timeouts.size() == 1 ? "" : "s");
  if (!reset.empty())
    title += std::string(timeouts.empty() ? "" : ", ") + std::to_string(reset.size()) + " GPU reset" + (reset.size() == 1 ? "" : "s");
  auto fd = make_finding(FindingId::kernel_gpu_reset, title,
                         "A job on the GPU did not finish in time and the driver reset the ring or the whole GPU; the "
                         "program that owned the job usually dies with it. Repeated hangs under ROCm point at a "
                         "kernel, firmware and ROCm combination known to be broken for this GPU.");
  if (!timeouts.empty()) {
    fd.evidence.push_back(quote(*timeouts.back()));
    if (!timeouts.back()->process.empty()) fd.evidence.push_back({"process", timeouts.back()->process});
  }
  if (!reset.empty()) fd.evidence.push_back(quote(*reset.back()));
  fd.notes.push_back("Last one at " + formats::kmsg::time_label((reset.empty() ? timeouts.back() : reset.back())->usec) +
                     " since boot. Update the kernel and linux-firmware first; a hang that stays is worth a report with "
                     "`amdml report`.");
  out.push_back(std::move(fd));
}

void firmware_errors(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  auto mes = of(f, KernelEventKind::mes_error);
  auto smu = of(f, KernelEventKind::smu_error);
  if (mes.empty() && smu.empty()) return;
  std::string which = !mes.empty() && !smu.empty() ? "MES and SMU" : !mes.empty() ? "MES" : "SMU";
  auto fd = make_finding(FindingId::kernel_firmware_error, "The GPU's " + which + " firmware stopped answering",
                         "MES schedules the GPU's queues and SMU manages its power; when either stops answering the "
                         "driver, queues cannot be added or removed and a reset follows. The usual cause is a "
                         "linux-firmware that does not match the kernel (a known problem on RDNA3 and Strix Halo).");
  if (!mes.empty()) fd.evidence.push_back(quote(*mes.back()));
  if (!smu.empty()) fd.evidence.push_back(quote(*smu.back()));
  const std::size_t n = mes.size() + smu.size();
  fd.notes.push_back(std::to_string(n) + (n == 1 ? " such line" : " such lines") + " in this boot. Update linux-firmware and "
                     "the kernel together; with amdgpu-dkms, its own firmware applies.");
  out.push_back(std::move(fd));
}

void page_faults(const RuleContext& ctx, std::vector<Finding>& out) {
  auto ev = of(ctx.facts, KernelEventKind::page_fault);
  if (ev.empty()) return;
  std::map<std::string, int> by_process;
  for (const auto* e : ev) ++by_process[e->process.empty() ? "(no process)" : e->process];
  std::string who;
  for (const auto& [p, n] : by_process) who += (who.empty() ? "" : ", ") + p + " (" + std::to_string(n) + ")";
  auto fd = make_finding(FindingId::kernel_page_fault, "GPU page faults in this boot, from " + who,
                         "A GPU program touched memory it had not mapped. One process at fault is usually that "
                         "program's bug or a kernel built for another gfx (an override); faults from every program, "
                         "or from none, point at the driver, firmware and ROCm combination.");
  fd.evidence.push_back(quote(*ev.back()));
  out.push_back(std::move(fd));
}

void kfd_disabled(const RuleContext& ctx, std::vector<Finding>& out) {
  auto ev = of(ctx.facts, KernelEventKind::kfd_disabled);
  if (ev.empty()) return;
  const bool atomics = ev.back()->line.find("atomics") != std::string::npos;
  auto fd = make_finding(
      FindingId::kernel_kfd_disabled, "The kernel's KFD left a GPU out, so ROCm cannot see it",
      atomics ? "The PCIe path to the GPU does not support atomics, which this GPU generation needs for ROCm. Move "
                "the card to a slot wired to the CPU, or update the motherboard's firmware."
              : "This kernel's KFD does not know the GPU's graphics IP, so it creates no compute node. A newer kernel "
                "(or AMD's amdgpu-dkms) knows it.");
  fd.evidence.push_back(quote(*ev.back()));
  out.push_back(std::move(fd));
}

void iommu_faults(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  Events ev;
  for (const auto* e : of(f, KernelEventKind::iommu_fault)) {
    bool gpu = e->line.starts_with("amdgpu");
    for (const auto& g : f.gpus)
      if (g.pci_slot && !e->subject.empty() && *g.pci_slot == e->subject) gpu = true;
    if (gpu) ev.push_back(e);
  }
  if (ev.empty()) return;
  auto fd = make_finding(FindingId::kernel_iommu_fault,
                         "The IOMMU blocked " + std::to_string(ev.size()) + " GPU memory access" + (ev.size() == 1 ? "" : "es"),
                         "The GPU addressed memory the IOMMU had not mapped for it. Multi-GPU ROCm and peer-to-peer "
                         "copies are the usual trigger; AMD's multi-GPU advice is the IOMMU in pass-through mode.");
  fd.evidence.push_back(quote(*ev.back()));
  fd.notes.push_back("Try iommu=pt on the kernel command line (amd_iommu=on iommu=pt on AMD CPUs).");
  out.push_back(std::move(fd));
}

void unknown_params(const RuleContext& ctx, std::vector<Finding>& out) {
  for (const auto* e : of(ctx.facts, KernelEventKind::unknown_param)) {
    const std::string module = e->subject.substr(0, e->subject.find('.'));
    if (module != "amdgpu" && module != "ttm" && module != "amdttm" && module != "amdkfd") continue;
    auto fd = make_finding(FindingId::kernel_unknown_parameter, "The kernel ignored " + e->subject + ": no such parameter",
                           "The module has no parameter of that name, so the setting does nothing. Check the spelling "
                           "against `modinfo " + module + "` (amdgpu's GTT size is gttsize, and ttm.pages_limit "
                           "replaces it on current kernels).");
    fd.evidence.push_back(quote(*e));
    fd.commands.push_back("modinfo -p " + module);
    out.push_back(std::move(fd));
  }
}

}  // namespace

void kernel_log_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const auto& k = ctx.facts.kernel_log;
  if (k.needs_root) {
    auto fd = make_finding(FindingId::kernel_log_unreadable, "The kernel log is closed to this user",
                           "This kernel restricts the log to root (kernel.dmesg_restrict=1) and journalctl shows no "
                           "kernel lines to this user, so amdml cannot check it for GPU errors.");
    fd.evidence.push_back({"/dev/kmsg", k.unreadable});
    fd.commands.push_back("sudo amdml doctor");
    out.push_back(std::move(fd));
    return;
  }
  firmware_missing(ctx, out);
  probe_failed(ctx, out);
  module_rejected(ctx, out);
  kfd_disabled(ctx, out);
  resets(ctx, out);
  firmware_errors(ctx, out);
  page_faults(ctx, out);
  iommu_faults(ctx, out);
  unknown_params(ctx, out);
}

}  // namespace amdml::rules
