// gpu.none: is there an AMD GPU at all. Every other rule has nothing to say about a
// GPU that is not there, so this one explains where it may have gone.
//
// gpu.wsl: under WSL2 (/dev/dxg) there is no PCI device and no KFD to look at; AMD's WSL
// runtime (librocdxg) behind the HSA runtime is the only source, so its answer is the
// GPU list -- never "No AMD GPU found" with an lspci command.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

void wsl_gpus(const Facts& f, std::vector<Finding>& out) {
  const auto& hsa = f.runtime.hsa;
  std::vector<std::string> gpus;
  for (const auto& a : hsa.agents)
    if (a.device == HsaDeviceType::gpu) gpus.push_back(a.marketing_name.value_or(a.name) + " (" + a.name + ")");
  const std::string how = "Under WSL2 the GPU is reached through /dev/dxg and AMD's WSL runtime (librocdxg): there is no "
                          "PCI device or KFD to see, so the HSA runtime is the only source.";
  std::optional<Finding> fd;
  if (hsa.outcome == HsaOutcome::ok && !gpus.empty()) {
    fd = make_finding(FindingId::gpu_wsl, "WSL2: AMD's WSL runtime sees " + text::join(gpus, ", "),
                      how + " It enumerates " + text::join(gpus, ", ") + ": a card AMD's WSL runtime supports.");
  } else if (hsa.outcome == HsaOutcome::ok) {
    fd = make_finding(FindingId::gpu_wsl, "WSL2: AMD's WSL runtime enumerates no GPU",
                      how + " The runtime started but lists no GPU agent: the card is not one AMD's WSL runtime "
                            "supports (it covers recent Radeon RX and Radeon PRO cards and Ryzen APUs), or the Windows "
                            "driver is older than the runtime needs.");
    fd->severity = Severity::error;
  } else {
    std::string why = hsa.reason.empty() ? std::string(to_string(hsa.outcome)) : hsa.reason;
    fd = make_finding(FindingId::gpu_wsl, "WSL2: the HSA runtime could not list the GPUs",
                      how + " Asking it failed (" + why + "), so amdml cannot tell which GPU Windows passes through.");
    fd->severity = Severity::warning;
    fd->commands.push_back("sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms   # AMD's WSL runtime, on a supported card");
  }
  fd->evidence.push_back({"/dev/dxg", "present"});
  fd->evidence.push_back({hsa.library.value_or("HSA runtime"), "outcome " + std::string(to_string(hsa.outcome)) +
                                                                   ", " + std::to_string(gpus.size()) + " GPU agent(s)"});
  if (fd->severity != Severity::info)
    fd->notes.push_back("A card AMD's WSL runtime does not support runs ML through DirectML instead (pip install "
                        "torch-directml), or with ROCm under native Linux.");
  out.push_back(std::move(*fd));
}

}  // namespace

void gpu_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.gpus.empty() && f.os.dxg) {
    wsl_gpus(f, out);
    return;
  }
  if (f.gpus.empty()) {
    // PCI devices whose vendor or class could not be read may be the GPU: say so rather
    // than claim there is none.
    std::vector<const ProbeError*> unreadable;
    for (const auto& e : f.errors)
      if (e.probe == "pci" && e.path.starts_with("/sys/bus/pci/devices/")) unreadable.push_back(&e);
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
