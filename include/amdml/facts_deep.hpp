// Deep facts: what `doctor --deep` proved by running, beside what the other probes
// inferred. For each GPU agent the HSA runtime listed, three steps, each in its own child
// process with a time limit (docs/deep.md):
//   memory  allocate from the GPU's VRAM pool and from the system pool up to what the
//           runtime and the GTT/TTM limit promise, in chunks, then free -- never more than
//           the limit, never more than MemAvailable minus a margin;
//   copy    host -> device -> host with hsa_amd_memory_async_copy, checksummed, timed;
//   fill    hsa_amd_memory_fill on device memory (the runtime's own blit kernel), read back.
// Live, the results are recorded under "deep" in amdml-host.json (snapshots keep them);
// under --root they are replayed from there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amdml/units.hpp"

namespace amdml {

enum class DeepStepKind { memory, copy, fill };
const char* to_string(DeepStepKind k);
std::optional<DeepStepKind> parse_deep_step_kind(const std::string& s);

// How one step ended. The spelling (to_string) is the recorded "status".
enum class DeepOutcome {
  ok,           // ran and the data checked
  failed,       // a runtime call returned an error, or the data read back was wrong
  init_failed,  // hsa_init (or finding the agent) failed in the step's child
  crashed,      // the child died on a signal, or exited without an answer
  timed_out,    // the child did not answer within its share of the time budget
  bad_output,   // the child's output was not amdml's JSON
  not_run,      // the time budget was spent before the step could start
};
const char* to_string(DeepOutcome o);
std::optional<DeepOutcome> parse_deep_outcome(const std::string& s);

// Why an allocation sweep stopped. The spelling is the recorded "stop".
enum class DeepAllocStop {
  target,    // reached what was promised: the proof
  meminfo,   // the next chunk would have left less than the margin of MemAvailable
  error,     // the runtime refused a chunk (error names the status)
  deadline,  // the step's time was up
  no_pool,   // the agent has no such pool that allows allocation
};
const char* to_string(DeepAllocStop s);
std::optional<DeepAllocStop> parse_deep_alloc_stop(const std::string& s);

// One allocation sweep over one pool.
struct DeepAlloc {
  std::string pool;               // "vram" (the GPU's coarse-grained pool) or "system" (the CPU agent's)
  Bytes target{0};                // what the sweep aimed for: the pool size, or the GTT/TTM limit
  Bytes allocated{0};             // the most held at once
  Bytes chunk{0};                 // the chunk size
  DeepAllocStop stop = DeepAllocStop::target;
  std::optional<std::string> error;       // stop == error: the status name
  std::optional<Bytes> mem_available;     // MemAvailable when the sweep began (system memory bound)
  std::optional<Bytes> bound;             // the most the sweep would hold: MemAvailable minus the margin
};

struct DeepStep {
  DeepStepKind kind = DeepStepKind::memory;
  DeepOutcome outcome = DeepOutcome::not_run;
  std::optional<std::string> call;     // the call that failed ("hsa_amd_memory_fill")
  std::optional<std::string> error;    // its status name ("HSA_STATUS_ERROR_INVALID_ISA")
  std::string message;                 // one line: status text, why it failed, or the runtime's last stderr line
  std::optional<std::string> last_step;  // the child's last progress marker (crashed, timeout)
  std::uint64_t elapsed_ms = 0;
  std::uint64_t timeout_ms = 0;
  std::vector<DeepAlloc> allocs;       // memory
  std::optional<Bytes> bytes;          // copy, fill: the size moved
  std::optional<double> h2d_gbps;      // copy: host -> device, GB/s (10^9 bytes per second)
  std::optional<double> d2h_gbps;      // copy: device -> host
  std::optional<bool> data_ok;         // copy: the checksum matched; fill: every word read back
  std::optional<std::uint64_t> mismatch_at;  // the first byte offset that differed
};

// One PCIe link as sysfs gives it (current_link_speed "16.0 GT/s PCIe", current_link_width
// "16"; formats/pcie_link.hpp reads them). nullopt: "Unknown", absent or unreadable.
struct PcieLink {
  bool operator==(const PcieLink&) const = default;
  std::optional<double> gts;          // transfer rate per lane, GT/s
  std::optional<std::uint32_t> width;  // lanes
};

// The PCIe path between a discrete GPU and the CPU, read in the deep probe right after the
// copy step (a link may slow down when idle: ASPM, link power management). The copy
// crosses every link from the GPU up to the root port, so the slowest speed and the
// narrowest width along them limit it.
struct DeepLink {
  bool operator==(const DeepLink&) const = default;
  std::string slot;        // the GPU's PCI address ("0000:03:00.0")
  PcieLink current;        // the slowest current speed and the narrowest current width on the path
  PcieLink max;            // what the GPU itself can do: its max_link_speed and max_link_width
  std::string limited_at;  // the device whose link gave the slowest speed (else the narrowest width)
  std::uint32_t links = 0;  // how many devices on the path had link files
};

// The steps of one GPU agent, joined to Facts::gpus.
struct DeepGpu {
  std::optional<int> gpu;  // index into Facts::gpus
  int agent = 0;           // index among the runtime's GPU agents (what the child is told)
  std::string name;        // the agent's ISA name ("gfx1103")
  std::vector<DeepStep> steps;
  std::optional<DeepLink> link;  // discrete GPUs: the PCIe path (none for an APU, or when unreadable)
};

struct DeepFacts {
  bool asked = false;      // --deep was given
  bool recorded = false;   // replayed from amdml-host.json
  std::string reason;      // when nothing ran: why (one line)
  std::uint64_t budget_ms = 0;
  std::uint64_t elapsed_ms = 0;
  bool budget_spent = false;  // a step was cut short or not started for want of time
  std::vector<DeepGpu> gpus;
};

}  // namespace amdml
