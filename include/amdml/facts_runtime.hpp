// Runtime facts: what the HSA runtime and libdrm_amdgpu report (the runtime-probe layer).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amdml {

struct RuntimeFacts {
  bool probed = false;  // the runtime probe ran (or a recorded result was replayed)
};

}  // namespace amdml
