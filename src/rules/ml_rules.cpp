// Diagnoses of the ML stack (ollama, PyTorch, llama.cpp); see the ML-stack issue.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

void ml_rules(const RuleContext&, std::vector<Finding>&) {}

const std::vector<FindingSpec>& ml_catalog() {
  static const std::vector<FindingSpec> c = {};
  return c;
}

}  // namespace amdml::rules
