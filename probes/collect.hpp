// Probes: read-only collectors that fill Facts through the Host. They never throw:
// what they cannot read becomes a ProbeError or an empty optional.
//
// One table (probe_table) registers them in run order; `amdml doctor --list`
// and the docs come from it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "amdml/facts.hpp"
#include "platform/host.hpp"
#include "amdml/knowledge.hpp"

namespace amdml::probes {

struct ProbeOptions {
  bool runtime = true;  // run the HSA/libdrm runtime probes (live) or replay them (--root)
  std::chrono::milliseconds runtime_timeout{10000};
  // The program whose hidden `__probe-hsa` / `__probe-drm` subcommands run the runtime
  // probes' children; empty means this executable. Tests point it at the amdml binary.
  std::string runtime_helper;
  std::optional<std::string> python;  // --python PATH
  bool deep = false;                  // --deep: import torch in a child process, run the deep steps
  // --deep-timeout: the whole of the deep steps (docs/deep.md); each step's child gets
  // what is left of it, at most kDeepStepLimit.
  std::chrono::milliseconds deep_timeout{20000};
};

struct EarlyRuntime;  // probes/runtime.cpp

struct ProbeContext {
  ProbeContext(const platform::Host& h, const Knowledge& k, const ProbeOptions& o) : host(h), kb(k), options(o) {}
  const platform::Host& host;
  const Knowledge& kb;
  const ProbeOptions& options;
  // Live, the HSA child when it was started before the other probes, so their file
  // reads overlap its start-up (probes::start_runtime_early); collected by the runtime
  // probe.
  std::shared_ptr<EarlyRuntime> early_runtime;
};

using ProbeFn = void (*)(const ProbeContext&, Facts&);

struct ProbeSpec {
  const char* name;
  const char* what;
  ProbeFn fn;
};

const std::vector<ProbeSpec>& probe_table();

// Told after each probe how long it took (`amdml -v` prints it).
using ProbeObserver = std::function<void(const ProbeSpec&, std::chrono::nanoseconds)>;

// Runs every probe in table order and returns the facts.
Facts collect_facts(const platform::Host& host, const Knowledge& kb, const ProbeOptions& options,
                    const ProbeObserver& observe = {});

// Environment variable names worth reporting (ROCm, HIP, HSA, OLLAMA, GGML, PATH-like).
bool is_relevant_env(const std::string& name);

}  // namespace amdml::probes