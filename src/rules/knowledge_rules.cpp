// Diagnoses that need the GPU knowledge base (gfx overrides, memory limits, kernel
// and ROCm versions); see the knowledge-base issue.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

void knowledge_rules(const RuleContext&, std::vector<Finding>&) {}

const std::vector<FindingSpec>& knowledge_catalog() {
  static const std::vector<FindingSpec> c = {};
  return c;
}

}  // namespace amdml::rules
