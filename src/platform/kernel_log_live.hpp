// The live host's kernel log (see Host::kernel_log).
#pragma once

#include <chrono>

#include "amdml/host.hpp"

namespace amdml::platform {

Result<KernelLogText> read_live_kernel_log(std::size_t max_bytes, std::chrono::milliseconds timeout);

}  // namespace amdml::platform
