// Runtime facts: what the HSA runtime (libhsa-runtime64) and libdrm_amdgpu report.
//
// sysfs says what the kernel exposes; the runtime says what ROCm programs will actually
// see. Both runtime views are collected live in child processes (a crashing or hung
// runtime must not take amdml down) and replayed from amdml-host.json under --root
// (keys "hsa" and "libdrm", format in docs/runtime.md). Every value keeps where it came
// from, so `amdml info` and the rules can say which layer lost a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "amdml/units.hpp"

namespace amdml {

// How the HSA probe ended. The spelling of each (to_string) is the "status" value of
// the recorded "hsa" section.
enum class HsaOutcome {
  not_run,        // --no-runtime, or --root without a recorded "hsa" section
  skipped,        // live, but no GPU, no /dev/kfd and no runtime library: nothing to ask
  not_installed,  // no libhsa-runtime64 could be loaded (tried paths say why)
  init_failed,    // hsa_init (or a later call) returned an error status
  ok,             // initialised and enumerated
  crashed,        // the child died on a signal or exited without a result
  timed_out,      // the child did not finish within the time limit and was killed
  bad_output,     // the child's output was not the expected JSON document
};
const char* to_string(HsaOutcome o);
std::optional<HsaOutcome> parse_hsa_outcome(const std::string& s);

enum class HsaDeviceType { cpu, gpu, dsp, unknown };
const char* to_string(HsaDeviceType t);

enum class HsaSegment { global, readonly, private_, group, unknown };
const char* to_string(HsaSegment s);

// HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_* bits.
inline constexpr std::uint32_t kHsaPoolKernarg = 1;
inline constexpr std::uint32_t kHsaPoolFineGrained = 2;
inline constexpr std::uint32_t kHsaPoolCoarseGrained = 4;
inline constexpr std::uint32_t kHsaPoolExtendedFineGrained = 8;

struct HsaPool {
  HsaSegment segment = HsaSegment::unknown;
  std::uint32_t global_flags = 0;  // only meaningful for the global segment
  std::optional<Bytes> size;
  bool alloc_allowed = false;
  std::optional<Bytes> alloc_granule;
  std::optional<bool> accessible_by_all;
  std::string flags_text() const;  // "coarse-grained", "kernarg, fine-grained"
};

struct HsaAgent {
  std::string name;  // "gfx1103" for GPUs (the overridden ISA when HSA_OVERRIDE_GFX_VERSION is set)
  std::optional<std::string> marketing_name;
  std::optional<std::string> vendor;
  HsaDeviceType device = HsaDeviceType::unknown;
  std::optional<std::uint32_t> node;       // HSA node index: CPU nodes first, as KFD numbers them
  std::optional<std::uint32_t> bdfid;      // bus<<8 | device<<3 | function
  std::optional<std::uint32_t> domain;     // PCI domain
  std::optional<std::string> uuid;         // "GPU-1a2b..." or "GPU-XX"
  std::optional<std::uint32_t> chip_id;    // PCI device id
  std::optional<std::uint32_t> compute_units;
  std::optional<std::uint32_t> simds_per_cu;
  std::optional<std::uint32_t> wavefront_size;
  std::optional<bool> apu;                 // HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES bit 0, newer runtimes only
  std::vector<std::string> isas;           // "amdgcn-amd-amdhsa--gfx1103"
  std::vector<HsaPool> pools;
  std::optional<int> gpu;                  // index into Facts::gpus this agent joined to (GPU agents)
  std::optional<std::string> pci_slot() const;  // "0000:c4:00.0" from domain + bdfid
};

// One library path the child tried to dlopen, and why it did not load.
struct LibraryAttempt {
  std::string path;
  bool exists = false;  // the file was there (a plain soname: the loader found it)
  std::string error;    // dlerror() text; empty when it loaded
};

struct HsaFacts {
  HsaOutcome outcome = HsaOutcome::not_run;
  bool recorded = false;                  // replayed from amdml-host.json, not run now
  std::string reason;                     // why not run / skipped, what went wrong (one line)
  std::optional<std::string> library;     // the path that loaded
  std::vector<LibraryAttempt> attempts;   // in the order tried
  std::optional<std::string> runtime_version;  // "1.1" (HSA_SYSTEM_INFO_VERSION_MAJOR.MINOR)
  // The failing call and its status, on init_failed ("hsa_init", 0x1008,
  // "HSA_STATUS_ERROR_OUT_OF_RESOURCES", hsa_status_string's text).
  std::optional<std::string> failed_call;
  std::optional<std::uint32_t> status_code;
  std::optional<std::string> status_name;
  std::optional<std::string> status_text;
  std::vector<HsaAgent> agents;
  int signal = 0;                         // crashed: the signal that ended the child
  std::optional<int> exit_code;           // crashed / bad_output: how the child exited
  std::optional<std::string> last_step;   // the child's last progress marker ("hsa_init")
  std::string stderr_tail;                // the end of the child's stderr, for the evidence
  std::optional<std::uint64_t> elapsed_ms;
  std::optional<std::uint64_t> timeout_ms;
  std::size_t gpu_agents() const;
};

enum class ValueSource { libdrm, sysfs, hsa, kfd };
const char* to_string(ValueSource s);

struct SourcedBytes {
  Bytes value;
  ValueSource source = ValueSource::sysfs;
};

// One AMD render node as libdrm_amdgpu saw it (or sysfs, where it could not be opened).
struct DrmDeviceInfo {
  std::string render_node;           // "/dev/dri/renderD128"
  std::optional<std::string> pci_slot;
  bool opened = false;               // libdrm answered for this node
  std::string error;                 // why not ("open: Permission denied", "amdgpu_device_initialize: -13")
  std::optional<std::uint32_t> drm_major;  // the amdgpu DRM driver version (3.x)
  std::optional<std::uint32_t> drm_minor;
  std::optional<std::string> marketing_name;  // amdgpu_get_marketing_name (amdgpu.ids)
  std::optional<Bytes> vram_total;
  std::optional<Bytes> vram_usable;
  std::optional<Bytes> vis_vram_total;
  std::optional<Bytes> vis_vram_usable;
  std::optional<Bytes> gtt_total;
  std::optional<Bytes> gtt_usable;
};

struct LibdrmFacts {
  HsaOutcome outcome = HsaOutcome::not_run;  // same vocabulary as the HSA probe
  bool recorded = false;
  std::string reason;
  std::optional<std::string> library;
  std::vector<LibraryAttempt> attempts;
  std::vector<DrmDeviceInfo> devices;
};

// The memory of one GPU with the source of each number, libdrm first, sysfs otherwise.
struct GpuMemoryView {
  int gpu = 0;  // index into Facts::gpus
  std::optional<SourcedBytes> vram_total;
  std::optional<SourcedBytes> vram_usable;
  std::optional<SourcedBytes> vis_vram_total;
  std::optional<SourcedBytes> gtt_total;
  std::optional<SourcedBytes> gtt_usable;
  std::optional<SourcedBytes> hsa_coarse_pool;  // the GPU agent's first global coarse-grained pool
  std::optional<SourcedBytes> kfd_memory;       // KFD mem_banks
  // "VRAM total: libdrm 16 GiB, sysfs 8 GiB" -- sources that should agree and do not.
  std::vector<std::string> disagreements;
};

struct RuntimeFacts {
  bool probed = false;  // the runtime probe ran (or a recorded result was replayed)
  HsaFacts hsa;
  LibdrmFacts libdrm;
  std::vector<GpuMemoryView> memory;  // one per Facts::gpus entry that any source has numbers for
};

// "HSA_STATUS_ERROR_OUT_OF_RESOURCES" for 0x1008; nullopt for codes amdml does not know.
std::optional<std::string> hsa_status_name(std::uint32_t code);

}  // namespace amdml
