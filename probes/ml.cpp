// ollama, PyTorch and llama.cpp probes (see the ML-stack issue); nothing collected yet.
#include "probes/probes.hpp"

namespace amdml::probes {

void ml(const ProbeContext&, Facts&) {}

}  // namespace amdml::probes
