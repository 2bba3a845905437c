// The environment variables that change what ROCm, HIP, ollama or llama.cpp do.
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

void env(const ProbeContext& ctx, Facts& f) {
  for (const auto& [k, v] : ctx.host.environment())
    if (is_relevant_env(k)) f.env[k] = v;
}

}  // namespace amdml::probes
