// firmware.known-bad: the installed linux-firmware package is a snapshot the knowledge
// lists as breaking ROCm on a GPU family here ([[firmware_bad]] in kernels.toml). amdgpu
// loads its MES, SMU and PSP firmware from that package, so a bad snapshot breaks every
// ROCm release alike; the fix is the package, and the initramfs that carries its copy.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

// What moves the package on, by its package manager, and rebuilds the initramfs (amdgpu
// is loaded from it with the firmware copied in at build time).
void add_commands(const FirmwarePackage& p, Finding& fd) {
  if (p.manager == "pacman") {
    fd.commands.push_back("sudo pacman -Syu --needed " + text::shell_word(p.name));
    fd.commands.push_back("sudo mkinitcpio -P");
    return;
  }
  fd.commands.push_back("sudo apt-get update");
  fd.commands.push_back("sudo apt-get install --only-upgrade " + text::shell_word(p.name));
  fd.commands.push_back("sudo update-initramfs -u -k all");
}

}  // namespace

void firmware_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (in_container(f)) return;  // the host's firmware, not the image's package, is what amdgpu loaded
  for (const FirmwarePackage& pkg : f.os.firmware_packages)
    for (const FirmwareBad& bad : ctx.kb.firmware_bad) {
      if (!bad.matches(pkg.version)) continue;
      std::vector<int> hit;
      for (std::size_t i = 0; i < f.gpus.size(); ++i)
        if (f.gpus[i].gfx && std::find(bad.gfx.begin(), bad.gfx.end(), *f.gpus[i].gfx) != bad.gfx.end())
          hit.push_back(static_cast<int>(i));
      if (hit.empty()) continue;
      const std::string snap = firmware_snapshot(pkg.version);
      std::string to = bad.fixed.empty() ? bad.previous : bad.fixed + " or newer";
      if (!bad.fixed.empty() && !bad.previous.empty()) to += " (or back to " + bad.previous + ")";
      auto fd = make_finding(FindingId::firmware_known_bad,
                             pkg.name + " " + pkg.version + " breaks ROCm on " + gpu_label(f, hit.front()) +
                                 ": move it to " + to,
                             bad.why + ". The firmware comes from this package, so every ROCm release is affected alike.");
      fd.evidence.push_back({pkg.from, pkg.name + " " + pkg.version});
      for (int i : hit) {
        fd.gpus.push_back(i);
        fd.evidence.push_back(gfx_evidence(f.gpus[static_cast<std::size_t>(i)]));
      }
      add_commands(pkg, fd);
      fd.notes.push_back("Snapshot " + snap + " is the bad one; " + to + " is known to work. Reboot afterwards: the kernel "
                         "loads the GPU's firmware at boot, from the initramfs.");
      if (f.rocm.packages.count("amdgpu-dkms-firmware"))
        fd.notes.push_back("amdgpu-dkms-firmware is installed too: its files take precedence over the distribution's for the "
                           "DKMS driver, so this applies when the in-tree amdgpu driver is running.");
      if (!bad.source.empty()) fd.notes.push_back("Source: " + bad.source + ".");
      out.push_back(std::move(fd));
    }
}

}  // namespace amdml::rules
