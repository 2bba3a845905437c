// Finding ids: the one catalog. Every finding amdml can report has a FindingId here and
// one row in kFindingCatalog: its pinned dotted id ("gfx.override-needed", what JSON,
// text, JUnit, prometheus and nfd output print and docs/findings/<id>.md documents), its
// default severity and a one-line meaning. Everything else that lists findings (the
// check gate's doctor cases, `doctor --list`, `explain`) walks this table, so a finding
// id that is not in it cannot be written.
//
// Row order is the catalog order users see (`--list`, one check case per id): rows are
// never reordered, new ids go where they belong in that order and get a page in
// docs/findings/.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "amdml/severity.hpp"

namespace amdml {

enum class FindingId {
  gpu_none,
  driver_not_loaded,
  kfd_missing,
  access_kfd,
  access_relogin,
  rocm_missing,
  container_devices,
  container_gid,
  container_sysfs,
  container_rootless,
  container_host_docker,
  gfx_override_needed,
  gfx_unsupported,
  gfx_override_invalid,
  gfx_override_unneeded,
  gfx_override_pending,
  memory_gtt_limit,
  memory_ttm_wrong_module,
  memory_ttm_pending,
  kernel_old,
  rocm_version,
  kfd_gpu_missing,
  env_visible_devices,
  env_rocm_path,
  env_wsl,
  runtime_not_installed,
  runtime_load_failed,
  runtime_init_failed,
  runtime_not_asked,
  runtime_crashed,
  runtime_timeout,
  runtime_probe_failed,
  runtime_gpu_missing,
  drm_mismatch,
  deep_alloc_short,
  deep_copy_failed,
  deep_copy_slow,
  deep_fill_failed,
  deep_step_failed,
  deep_verified,
  deep_torch_no_gfx,
  deep_torch_failed,
  deep_torch_verified,
  deep_llamacpp_no_gpu,
  deep_llamacpp_failed,
  deep_llamacpp_devices,
  deep_ollama_cpu,
  deep_ollama_server,
  ollama_env,
  ollama_access,
  ollama_gfx_unsupported,
  ollama_driver,
  ollama_restart_pending,
  torch_build,
  torch_gfx,
  torch_rocm_too_new,
  torch_runtime,
  llamacpp_uma_env,
  llamacpp_no_gpu_backend,
  ml_rocm_libraries,
  vulkan_no_icd,
  knowledge_stale,
  kernel_log_unreadable,
  kernel_firmware_missing,
  kernel_probe_failed,
  kernel_module_rejected,
  kernel_gpu_reset,
  kernel_firmware_error,
  kernel_page_fault,
  kernel_kfd_disabled,
  kernel_iommu_fault,
  kernel_unknown_parameter,
  ollama_discovery,
  rocm_device_missing,
  torch_rocm_wheels,
  gpu_wsl,
  firmware_known_bad,
};

struct FindingSpec {
  FindingId id;
  std::string_view name;     // the pinned dotted id
  Severity severity;         // default severity
  std::string_view summary;  // one line: what it means
};

inline constexpr std::array kFindingCatalog = {
    FindingSpec{FindingId::gpu_none, "gpu.none", Severity::error, "no AMD GPU visible to any layer"},
    FindingSpec{FindingId::driver_not_loaded, "driver.not-loaded", Severity::error,
                "an AMD GPU is on PCI but the amdgpu driver is absent or not initialised"},
    FindingSpec{FindingId::kfd_missing, "kfd.missing", Severity::error,
                "/dev/kfd absent (no KFD, or a container started without the device)"},
    FindingSpec{FindingId::access_kfd, "access.kfd", Severity::error,
                "this user cannot open /dev/kfd or the render node: not in the owning group"},
    FindingSpec{FindingId::access_relogin, "access.relogin", Severity::info,
                "in the group per /etc/group (configured), but the running session predates it: takes effect after a new login"},
    FindingSpec{FindingId::rocm_missing, "rocm.missing", Severity::warning, "no ROCm user-space runtime found"},
    FindingSpec{FindingId::container_devices, "container.devices", Severity::error,
                "inside a container without /dev/kfd or /dev/dri passed in"},
    FindingSpec{FindingId::container_gid, "container.gid", Severity::error,
                "inside a container whose process groups do not include the device nodes' gid"},
    FindingSpec{FindingId::container_sysfs, "container.sysfs", Severity::error,
                "inside a container with /dev/kfd but without KFD's topology in /sys"},
    FindingSpec{FindingId::container_rootless, "container.rootless", Severity::error,
                "a rootless container in which the device nodes' group is not mapped"},
    FindingSpec{FindingId::container_host_docker, "container.host-docker", Severity::info,
                "docker is installed: who may use it, and the docker run line for ROCm"},
    FindingSpec{FindingId::gfx_override_needed, "gfx.override-needed", Severity::error,
                "the GPU's gfx has no kernels in the ROCm stack; a known HSA_OVERRIDE_GFX_VERSION works"},
    FindingSpec{FindingId::gfx_unsupported, "gfx.unsupported", Severity::error,
                "no kernels for the GPU's gfx and no safe override (what to use instead)"},
    FindingSpec{FindingId::gfx_override_invalid, "gfx.override-invalid", Severity::error,
                "HSA_OVERRIDE_GFX_VERSION malformed, quoted, a gfx name, or crossing an ISA family for some GPU"},
    FindingSpec{FindingId::gfx_override_unneeded, "gfx.override-unneeded", Severity::info,
                "an override is set although the stack has native kernels for the GPU"},
    FindingSpec{FindingId::gfx_override_pending, "gfx.override-pending", Severity::info,
                "the override the GPUs need is configured for new logins, but this session predates it: after a new login"},
    FindingSpec{FindingId::memory_gtt_limit, "memory.gtt-limit", Severity::warning,
                "an APU whose GPU-usable memory is held down by the TTM/GTT limit or the carve-out"},
    FindingSpec{FindingId::memory_ttm_wrong_module, "memory.ttm-wrong-module", Severity::warning,
                "TTM option for the module not in use, a runtime pages_limit not in effect, or a deprecated/misspelled gttsize"},
    FindingSpec{FindingId::memory_ttm_pending, "memory.ttm-pending", Severity::info,
                "a TTM limit configured as amdml recommends that takes effect at the next boot"},
    FindingSpec{FindingId::kernel_old, "kernel.old", Severity::warning,
                "the kernel is too old or known-broken for this GPU or feature"},
    FindingSpec{FindingId::rocm_version, "rocm.version", Severity::warning,
                "the installed ROCm is too old or too new for this GPU, kernel or driver"},
    FindingSpec{FindingId::kfd_gpu_missing, "kfd.gpu-missing", Severity::error,
                "a GPU driven by amdgpu has no KFD node (PCIe atomics, or an ASIC this kernel's KFD lacks)"},
    FindingSpec{FindingId::env_visible_devices, "env.visible-devices", Severity::error,
                "HIP/ROCR/CUDA_VISIBLE_DEVICES hide every GPU, or put the iGPU first on a box with a dGPU"},
    FindingSpec{FindingId::env_rocm_path, "env.rocm-path", Severity::info,
                "PATH or LD_LIBRARY_PATH miss the installed ROCm or point at another ROCm"},
    FindingSpec{FindingId::env_wsl, "env.wsl", Severity::warning,
                "running under WSL: ROCm only through AMD's WSL driver on supported Radeon cards"},
    FindingSpec{FindingId::runtime_not_installed, "runtime.not-installed", Severity::info,
                "no libhsa-runtime64 could be loaded, so ROCm's own view is unknown"},
    FindingSpec{FindingId::runtime_load_failed, "runtime.load-failed", Severity::warning,
                "libhsa-runtime64 is installed but the loader cannot load it"},
    FindingSpec{FindingId::runtime_init_failed, "runtime.init-failed", Severity::error,
                "hsa_init failed; the cause is read off the driver, /dev/kfd and env"},
    FindingSpec{FindingId::runtime_not_asked, "runtime.not-asked", Severity::error,
                "no usable /dev/kfd, so the HSA runtime was not started; the cause as for init-failed"},
    FindingSpec{FindingId::runtime_crashed, "runtime.crashed", Severity::error,
                "the HSA runtime crashed while listing the GPUs"},
    FindingSpec{FindingId::runtime_timeout, "runtime.timeout", Severity::error,
                "the HSA runtime did not answer within --runtime-timeout"},
    FindingSpec{FindingId::runtime_probe_failed, "runtime.probe-failed", Severity::warning,
                "the runtime probe's child gave output amdml cannot read"},
    FindingSpec{FindingId::runtime_gpu_missing, "runtime.gpu-missing", Severity::error,
                "a GPU KFD lists is not an HSA agent (render node, override, ISA)"},
    FindingSpec{FindingId::drm_mismatch, "drm.mismatch", Severity::warning,
                "libdrm, sysfs, KFD or HSA report different memory sizes for a GPU"},
    FindingSpec{FindingId::deep_alloc_short, "deep.alloc-short", Severity::warning,
                "--deep: the runtime refused memory below what the pool or the GTT/TTM limit promises"},
    FindingSpec{FindingId::deep_copy_failed, "deep.copy-failed", Severity::error,
                "--deep: a host<->device copy failed or the data came back different"},
    FindingSpec{FindingId::deep_copy_slow, "deep.copy-slow", Severity::warning,
                "--deep: a host<->device copy ran at less than half of what the GPU's PCIe link moves"},
    FindingSpec{FindingId::deep_fill_failed, "deep.fill-failed", Severity::error,
                "--deep: the runtime's own fill kernel did not run on the GPU (no code for its ISA, or a dead queue)"},
    FindingSpec{FindingId::deep_step_failed, "deep.step-failed", Severity::error,
                "--deep: a step's child crashed, hung, could not start the runtime, or ran out of time"},
    FindingSpec{FindingId::deep_verified, "deep.verified", Severity::info,
                "--deep: what the GPU proved by running: memory allocated, copy bandwidth, fill kernel"},
    FindingSpec{FindingId::deep_torch_no_gfx, "deep.torch-no-gfx", Severity::error,
                "--deep: a matmul in PyTorch raised invalid device function: the wheel has no kernels for the GPU's gfx"},
    FindingSpec{FindingId::deep_torch_failed, "deep.torch-failed", Severity::error,
                "--deep: PyTorch saw the GPU but a matmul on it failed (out of memory, a hang, another error)"},
    FindingSpec{FindingId::deep_torch_verified, "deep.torch-verified", Severity::info,
                "--deep: PyTorch multiplied matrices on the GPU, with the TFLOP/s it reached"},
    FindingSpec{FindingId::deep_llamacpp_no_gpu, "deep.llamacpp-no-gpu", Severity::error,
                "--deep: a llama.cpp build's --list-devices lists no ROCm/HIP (or no GPU) device for the AMD GPU"},
    FindingSpec{FindingId::deep_llamacpp_failed, "deep.llamacpp-failed", Severity::warning,
                "--deep: a llama.cpp build's --list-devices hung, crashed or printed no device list"},
    FindingSpec{FindingId::deep_llamacpp_devices, "deep.llamacpp-devices", Severity::info,
                "--deep: the GPU devices a llama.cpp build sees, as its --list-devices printed them"},
    FindingSpec{FindingId::deep_ollama_cpu, "deep.ollama-cpu", Severity::warning,
                "--deep: the running ollama server holds a model partly or wholly in system memory, not on the GPU"},
    FindingSpec{FindingId::deep_ollama_server, "deep.ollama-server", Severity::info,
                "--deep: the running ollama server's version and loaded models, as it answered on loopback"},
    FindingSpec{FindingId::ollama_env, "ollama.env", Severity::warning,
                "the ollama service lacks an environment setting this GPU needs, or has a broken one"},
    FindingSpec{FindingId::ollama_access, "ollama.access", Severity::warning,
                "the ollama service user is not in the groups that own the devices"},
    FindingSpec{FindingId::ollama_gfx_unsupported, "ollama.gfx-unsupported", Severity::warning,
                "this ollama build has no ROCm kernels for the GPU and no override helps"},
    FindingSpec{FindingId::ollama_driver, "ollama.driver", Severity::warning,
                "the ROCm bundled with ollama needs a newer GPU driver than the running one"},
    FindingSpec{FindingId::ollama_restart_pending, "ollama.restart-pending", Severity::info,
                "the ollama unit and drop-ins set what the GPU needs, but the running service started before that"},
    FindingSpec{FindingId::torch_build, "torch.build", Severity::error,
                "PyTorch is a CPU-only or CUDA build on an AMD GPU box"},
    FindingSpec{FindingId::torch_gfx, "torch.gfx", Severity::error,
                "the PyTorch ROCm wheel has no kernels for the GPU's gfx target"},
    FindingSpec{FindingId::torch_rocm_too_new, "torch.rocm-too-new", Severity::warning,
                "the PyTorch wheel's ROCm is newer than the GPU driver supports"},
    FindingSpec{FindingId::torch_runtime, "torch.runtime", Severity::error,
                "importing torch in a child process (--deep) failed or saw no GPU"},
    FindingSpec{FindingId::llamacpp_uma_env, "llamacpp.uma-env", Severity::warning,
                "GGML_CUDA_ENABLE_UNIFIED_MEMORY is set where it hurts (any value enables it)"},
    FindingSpec{FindingId::llamacpp_no_gpu_backend, "llamacpp.no-gpu-backend", Severity::warning,
                "a llama.cpp build without a HIP or Vulkan backend"},
    FindingSpec{FindingId::ml_rocm_libraries, "ml.rocm-libraries", Severity::error,
                "TensorFlow/onnxruntime ROCm builds miss ROCm libraries they load"},
    FindingSpec{FindingId::vulkan_no_icd, "vulkan.no-icd", Severity::warning,
                "Vulkan is needed for this GPU but no AMD Vulkan driver is installed"},
    FindingSpec{FindingId::knowledge_stale, "knowledge.stale", Severity::info,
                "the knowledge amdml judged by is more than 120 days older than today (amdml update)"},
    FindingSpec{FindingId::kernel_log_unreadable, "kernel.log-unreadable", Severity::info,
                "the kernel log of this boot is closed to this user (dmesg_restrict): run amdml as root to read it"},
    FindingSpec{FindingId::kernel_firmware_missing, "kernel.firmware-missing", Severity::error,
                "the kernel log says a GPU firmware file could not be loaded"},
    FindingSpec{FindingId::kernel_probe_failed, "kernel.probe-failed", Severity::error,
                "the kernel log says amdgpu failed to initialise a GPU (probe or GPU init error)"},
    FindingSpec{FindingId::kernel_module_rejected, "kernel.module-rejected", Severity::error,
                "the kernel refused to load a module: unsigned, or signed with a key Secure Boot does not trust"},
    FindingSpec{FindingId::kernel_gpu_reset, "kernel.gpu-reset", Severity::warning,
                "GPU ring timeouts or GPU resets in this boot (hangs): how many, the last, and which process"},
    FindingSpec{FindingId::kernel_firmware_error, "kernel.firmware-error", Severity::warning,
                "the GPU's MES scheduler or SMU power firmware stopped answering the driver"},
    FindingSpec{FindingId::kernel_page_fault, "kernel.page-fault", Severity::warning,
                "GPU page faults in this boot, with the process that caused them"},
    FindingSpec{FindingId::kernel_kfd_disabled, "kernel.kfd-disabled", Severity::error,
                "the kernel's KFD skipped a GPU (GC IP not supported in kfd, PCI rejects atomics)"},
    FindingSpec{FindingId::kernel_iommu_fault, "kernel.iommu-fault", Severity::warning,
                "IOMMU page faults from the GPU in this boot"},
    FindingSpec{FindingId::kernel_unknown_parameter, "kernel.unknown-parameter", Severity::warning,
                "the kernel ignored a GPU module parameter it does not know (a misspelt option)"},
    FindingSpec{FindingId::ollama_discovery, "ollama.discovery", Severity::warning,
                "ollama's own journal says why its last start found no usable AMD GPU"},
    FindingSpec{FindingId::rocm_device_missing, "rocm.device-missing", Severity::error,
                "an installed ROCm's per-target device packages do not include a GPU that is here"},
    FindingSpec{FindingId::torch_rocm_wheels, "torch.rocm-wheels", Severity::error,
                "a PyTorch that loads ROCm from TheRock's rocm wheels, and they are not installed"},
    FindingSpec{FindingId::gpu_wsl, "gpu.wsl", Severity::info,
                "under WSL2 the GPU is reached through /dev/dxg: what AMD's WSL runtime enumerates"},
    FindingSpec{FindingId::firmware_known_bad, "firmware.known-bad", Severity::warning,
                "the installed linux-firmware is a snapshot known to break ROCm on a GPU here"},
};

namespace detail {
// Row i describes FindingId i, every enumerator has a row, and every name is a
// lowercase dotted id ("area.what") that no other row uses.
constexpr bool finding_catalog_well_formed() {
  if (kFindingCatalog.size() != static_cast<std::size_t>(FindingId::firmware_known_bad) + 1) return false;
  for (std::size_t i = 0; i < kFindingCatalog.size(); ++i) {
    const auto& s = kFindingCatalog[i];
    if (static_cast<std::size_t>(s.id) != i) return false;
    auto dot = s.name.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot + 1 == s.name.size()) return false;
    for (char c : s.name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
    for (std::size_t j = 0; j < i; ++j)
      if (kFindingCatalog[j].name == s.name) return false;
  }
  return true;
}
static_assert(finding_catalog_well_formed(), "kFindingCatalog: one row per FindingId, in enum order, unique dotted names");
}  // namespace detail

constexpr const FindingSpec& finding_spec(FindingId id) { return kFindingCatalog[static_cast<std::size_t>(id)]; }

// The pinned dotted id ("gfx.override-needed").
constexpr std::string_view to_string(FindingId id) { return finding_spec(id).name; }

// The area a finding belongs to: its id up to the first dot ("gfx").
constexpr std::string_view finding_prefix(FindingId id) {
  std::string_view n = to_string(id);
  return n.substr(0, n.find('.'));
}

constexpr Severity default_severity(FindingId id) { return finding_spec(id).severity; }

// Every finding, in catalog order.
constexpr const auto& finding_catalog() { return kFindingCatalog; }

// The catalog row for a dotted id, or nullptr when no finding has it.
constexpr const FindingSpec* find_finding_spec(std::string_view name) {
  for (const auto& s : kFindingCatalog)
    if (s.name == name) return &s;
  return nullptr;
}

constexpr std::optional<FindingId> parse_finding_id(std::string_view name) {
  if (const FindingSpec* s = find_finding_spec(name)) return s->id;
  return std::nullopt;
}

}  // namespace amdml
