// Evidence of what happened at boot: the kernel log's GPU lines (this boot only), the
// boot state that decides whether amdgpu may load (Secure Boot, lockdown, the DKMS build
// for the running kernel, blacklists) and the discovery lines of ollama's last start.
// Plain data: probes/kernel_log.cpp, probes/boot.cpp and probes/ollama_journal.cpp fill
// it, src/rules/kernel_log.cpp and src/rules/driver.cpp read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdml {

// What a kernel log line says, as far as amdml acts on it.
enum class KernelEventKind {
  firmware_missing,  // "Direct firmware load for amdgpu/x.bin failed with error -2"
  probe_failed,      // "amdgpu: probe of 0000:01:00.0 failed with error -22", "Fatal error during GPU init"
  module_rejected,   // "Loading of module with unavailable key is rejected" (Secure Boot / lockdown)
  ring_timeout,      // "ring gfx_0.0.0 timeout, signaled seq=..., emitted seq=..."
  gpu_reset,         // "GPU reset begin!"
  mes_error,         // "MES failed to respond to msg=REMOVE_QUEUE"
  smu_error,         // "SMU: I'm not done with your previous command", "Failed to enable requested dpm features"
  page_fault,        // "[gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32770)"
  kfd_disabled,      // "GC IP 0b0500 not supported in kfd", "skipped device 1002:67df, PCI rejects atomics"
  iommu_fault,       // "AMD-Vi: Event logged [IO_PAGE_FAULT ...]", "DMAR: [DMA Read] Request device [03:00.0] ..."
  unknown_param,     // "amdgpu: unknown parameter 'gtt_size' ignored"
};

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::probe_failed;
  std::uint64_t usec = 0;  // since boot, as the ring stamps it
  std::string line;        // the record's text, as logged
  std::string subject;     // the firmware file, ring, module.parameter, PCI slot -- by kind
  std::string process;     // page faults and ring timeouts: the process the kernel names
  std::optional<int> error_code;  // "-22" of "failed with error -22"
};

struct KernelLogFacts {
  bool read = false;         // a log was read (possibly empty)
  std::string source;        // "/dev/kmsg" or "journalctl -k -b 0"
  bool needs_root = false;   // both were refused (dmesg_restrict): only root can read it
  std::string unreadable;    // why it could not be read, when it could not
  std::size_t records = 0;   // GPU records read (formats::kmsg::gpu_relevant; after the bounded tail)
  bool truncated = false;    // older records were left out to stay within the bound
  std::vector<KernelEvent> events;
};

enum class DkmsState { none, missing, built, installed };
const char* to_string(DkmsState s);

struct ModuleBlacklist {
  std::string where;  // "/etc/modprobe.d/blacklist-amdgpu.conf:3" or "/proc/cmdline"
  std::string text;   // "blacklist amdgpu", "modprobe.blacklist=amdgpu", "nomodeset"
};

struct BootFacts {
  // EFI variable SecureBoot-8be4df61-...: 4 attribute bytes, then 1 = on (nullopt: no EFI or unreadable).
  std::optional<bool> secure_boot;
  std::optional<std::string> lockdown;   // the [selected] mode of /sys/kernel/security/lockdown
  // AMD's amdgpu-dkms for the running kernel: none (not installed), missing (installed,
  // nothing for this kernel), built (compiled, not installed into /lib/modules), installed.
  DkmsState dkms = DkmsState::none;
  std::vector<std::string> dkms_versions;   // /var/lib/dkms/amdgpu/<version>
  std::optional<std::string> dkms_module;   // /lib/modules/<release>/updates/dkms/amdgpu.ko*
  std::vector<ModuleBlacklist> blacklists;  // what keeps amdgpu from loading
};

// ollama's own account of its last start's GPU discovery (journalctl -u ollama -b 0).
enum class OllamaReason {
  no_compatible_gpu,   // "no compatible GPUs were discovered"
  igpu_filtered,       // "filtering out unsupported or disabled GPU ... iGPU" / "unsupported Radeon iGPU detected skipping"
  gfx_unsupported,     // "amdgpu is not supported (supported types:[...])" gpu_type=gfx906
  library_unverified,  // "unable to verify rocm library"
  discovery_timeout,   // "failed to finish discovery before timeout"
  override_invalid,    // "HSA_OVERRIDE_GFX_VERSION ... is invalid"
  runner_crashed,      // "runner crashed", "llama runner process has terminated"
  gpu_found,           // "inference compute" ... library=ROCm
};
const char* to_string(OllamaReason r);
const char* to_string(KernelEventKind k);
// The names above back to the values (nullopt: no such name), for the error catalogue.
std::optional<OllamaReason> parse_ollama_reason(std::string_view name);
std::optional<KernelEventKind> parse_kernel_event_kind(std::string_view name);

struct OllamaJournalLine {
  OllamaReason reason = OllamaReason::no_compatible_gpu;
  std::string line;    // as logged (time stamp and host cut off)
  std::string detail;  // gpu_type, the library path: by reason
};

struct OllamaJournalFacts {
  bool read = false;
  std::string source;  // "journalctl -u ollama -b 0" or the recorded file
  std::vector<OllamaJournalLine> lines;  // the last start only
};

}  // namespace amdml
