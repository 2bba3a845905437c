// ML-stack facts: ollama, PyTorch, llama.cpp and friends, as installed on the host.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace amdml {

struct MlFacts {
  bool probed = false;
};

}  // namespace amdml
