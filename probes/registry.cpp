// The probe table: run order matters (gpus joins what pci, drm and kfd found;
// identity checks the render nodes gpus named; runtime and ml use all of it).
#include "formats/secrets.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

const std::vector<ProbeSpec>& probe_table() {
  static const std::vector<ProbeSpec> table = {
      {"os", "OS release, kernel, command line, WSL", probes::os},
      {"memory", "system memory (/proc/meminfo)", probes::memory},
      {"pci", "AMD display devices on PCI, with or without a driver", probes::pci},
      {"driver", "amdgpu module, DKMS version, TTM module and limits", probes::driver},
      {"modprobe", "options in /etc/modprobe.d and /lib/modprobe.d", probes::modprobe},
      {"kfd", "KFD topology nodes (what ROCm enumerates)", probes::kfd},
      {"drm", "DRM cards and render nodes with memory sizes", probes::drm},
      {"gpus", "joins PCI, DRM and KFD into one GPU list", probes::gpus},
      {"identity", "user, groups and access to /dev/kfd and render nodes", probes::identity},
      {"rocm", "ROCm user space (ROCM_PATH, /opt/rocm, distribution packages)", probes::rocm},
      {"firmware", "the installed linux-firmware package (pacman; dpkg's is read by the rocm probe)", probes::firmware},
      {"container", "container runtime and device visibility", probes::container},
      {"env", "GPU-related environment variables", probes::env},
      {"kernel-log", "this boot's kernel log: amdgpu, KFD, firmware, lockdown and IOMMU lines", probes::kernel_log},
      {"boot", "Secure Boot, lockdown, amdgpu-dkms for this kernel, amdgpu blacklists", probes::boot},
      {"runtime", "HSA runtime agents and libdrm memory (child process)", probes::runtime},
      {"ml", "ollama, PyTorch, llama.cpp and friends", probes::ml},
      {"ollama-journal", "ollama's service journal: why its last start found no GPU", probes::ollama_journal},
      {"deep", "--deep: allocate, copy and fill on each GPU through the HSA runtime; a matmul in each ROCm PyTorch (child processes)", probes::deep},
  };
  return table;
}

bool is_relevant_env(const std::string& n) {
  static const char* prefixes[] = {"ROCM", "HIP_", "HSA_", "ROCR_", "HCC_", "OLLAMA_", "GGML_", "AMD_", "GPU_DEVICE_ORDINAL",
                                   "CUDA_VISIBLE_DEVICES", "PYTORCH_", "MIOPEN_", "TORCH_", "LLAMA_", "VK_", "AMDML_"};
  static const char* exact[] = {"PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "CONDA_PREFIX", "VIRTUAL_ENV", "SUDO_USER",
                                "HOME", "USER", "LOGNAME", "XDG_SESSION_TYPE", "CONTAINER", "container"};
  for (auto* e : exact)
    if (n == e) return true;
  for (auto* p : prefixes)
    if (n.starts_with(p)) return !formats::is_secret_name(n);  // never keep credentials (formats/secrets.hpp)
  return false;
}

Facts collect_facts(const platform::Host& host, const Knowledge& kb, const ProbeOptions& options,
                    const ProbeObserver& observe) {
  Facts facts;
  facts.amdml_version = AMDML_VERSION;
  facts.root = host.root();
  ProbeContext ctx{host, kb, options};
  // The HSA child first: its start-up (10-20 ms of dlopen) overlaps the file probes,
  // and the runtime probe collects it last.
  ctx.early_runtime = probes::start_runtime_early(ctx);
  for (const auto& p : probe_table()) {
    const auto start = std::chrono::steady_clock::now();
    p.fn(ctx, facts);
    if (observe) observe(p, std::chrono::steady_clock::now() - start);
  }
  return facts;
}

}  // namespace amdml::probes