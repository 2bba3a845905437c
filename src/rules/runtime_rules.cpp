// Diagnoses from the HSA runtime and libdrm layer; see the runtime-probe issue.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

void runtime_rules(const RuleContext&, std::vector<Finding>&) {}

const std::vector<FindingSpec>& runtime_catalog() {
  static const std::vector<FindingSpec> c = {};
  return c;
}

}  // namespace amdml::rules
