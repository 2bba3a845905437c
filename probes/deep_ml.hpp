// The frameworks' part of doctor --deep (docs/deep.md): after the HSA steps, within what
// is left of the same --deep-timeout budget, each ROCm PyTorch environment's interpreter
// runs formats::mlparse::torch_probe_program() in a child (import, is_available, a matmul per
// visible device). Under --root the recorded output is replayed through Host::run.
#pragma once

#include <chrono>

#include "probes/collect.hpp"

namespace amdml::probes {

void deep_torch(const ProbeContext& ctx, Facts& f, std::chrono::steady_clock::time_point deadline);

}  // namespace amdml::probes
