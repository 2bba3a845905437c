// HSA runtime and libdrm probes (see the runtime-probe issue); nothing collected yet.
#include "probes/probes.hpp"

namespace amdml::probes {

void runtime(const ProbeContext&, Facts&) {}

}  // namespace amdml::probes
