// The runtime children's parent side, shared by the runtime probe (runtime.cpp) and the
// deep steps (deep.cpp): run `amdml __<child> ...` through Host::run with a time limit and
// say how it ended -- its JSON document, or timeout, a signal, a non-zero exit, output
// that is not JSON -- with the child's last progress marker and the end of its stderr.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/facts_runtime.hpp"
#include "probes/collect.hpp"

namespace amdml::probes {

struct ChildOutcome {
  HsaOutcome outcome = HsaOutcome::ok;
  std::optional<nlohmann::json> doc;  // the child's JSON, when it printed one
  std::string reason;
  int signal = 0;
  std::optional<int> exit_code;
  std::optional<std::string> last_step;
  std::string stderr_tail;
  std::uint64_t elapsed_ms = 0;
};

// Runs the helper (ProbeOptions::runtime_helper, else /proc/self/exe) with args.
ChildOutcome run_child(const ProbeContext& ctx, std::vector<std::string> args, std::chrono::milliseconds timeout);

}  // namespace amdml::probes
