// The deep steps' child side: what `amdml __deep-hsa STEP` does (docs/deep.md).
//
// Like the runtime probe's child (runtime_child.hpp), this is the only code that makes
// the HSA runtime allocate, copy and run, and it runs only in a child process that the
// parent started with a time limit (probes/deep.cpp). It writes nothing on the machine:
// what it allocates it frees, and the process ends at once after the answer.
#pragma once

#include <cstdint>
#include <string>

#include "amdml/facts_deep.hpp"

namespace amdml::platform {

struct DeepRequest {
  DeepStepKind step = DeepStepKind::memory;
  int agent = 0;                    // index among the runtime's GPU agents, in iteration order
  std::uint64_t system_limit = 0;   // memory: bytes the GTT/TTM limit promises (0: no system sweep)
  bool apu = false;                 // memory: the VRAM pool is system memory too (bounded by MemAvailable)
  std::uint64_t timeout_ms = 5000;  // the child's share of the budget: it stops sweeping before it
  std::string meminfo = "/proc/meminfo";
};

// The margin of MemAvailable a sweep leaves untouched: the larger of 2 GiB and a tenth
// of MemTotal, so that the desktop and the page cache keep room while amdml holds memory.
std::uint64_t deep_meminfo_margin(std::uint64_t mem_total);

// Runs one step against the runtime (hsa_library_candidates()), frees what it took and
// returns what it saw. Never throws; progress markers go to stderr.
DeepStep deep_step_in_child(const DeepRequest& request);

}  // namespace amdml::platform
