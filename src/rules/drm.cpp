// drm.mismatch: do the layers that report a GPU's memory (libdrm, sysfs, KFD, the HSA
// runtime) agree on its sizes.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

void drm_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  for (const auto& v : f.runtime.memory) {
    if (v.disagreements.empty()) continue;
    auto fd = make_finding(FindingId::drm_mismatch, gpu_label(f, v.gpu) + ": memory sizes disagree between layers",
                           "Two interfaces that report the same memory give different numbers. The kernel's sysfs "
                           "files and the libdrm query come from the same driver, so a difference means a stale "
                           "value or a driver bug; between KFD and the HSA runtime it means the runtime is not "
                           "reading the topology the kernel has now.");
    for (const auto& d : v.disagreements) fd.evidence.push_back({"memory", d});
    fd.gpus.push_back(v.gpu);
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
