// Container detection: which runtime (from the host), whether KFD's sysfs is visible.
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

void container(const ProbeContext& ctx, Facts& f) {
  f.container.kind = ctx.host.container();
  f.container.sys_kfd_visible = ctx.host.exists("/sys/class/kfd");
}

}  // namespace amdml::probes
