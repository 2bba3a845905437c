// Rules: pure functions from Facts (and the knowledge base) to Findings. No I/O.
//
// One table (rule_table) registers them; the finding catalog lists every id a rule
// may emit with its default severity, and docs/findings/<id>.md documents each.
#pragma once

#include <vector>

#include "amdml/facts.hpp"
#include "amdml/finding.hpp"
#include "amdml/knowledge.hpp"

namespace amdml {

struct RuleContext {
  const Facts& facts;
  const Knowledge& kb;
};

using RuleFn = void (*)(const RuleContext&, std::vector<Finding>&);

struct RuleSpec {
  const char* name;
  RuleFn fn;
};

struct FindingSpec {
  const char* id;
  Severity severity;  // default severity
  const char* summary;
};

const std::vector<RuleSpec>& rule_table();
const std::vector<FindingSpec>& finding_catalog();
const FindingSpec* find_finding_spec(const std::string& id);

// Runs every rule; findings come out errors first, then warnings, then infos, each
// group in rule-table order (stable, so output and JSON are reproducible).
std::vector<Finding> diagnose(const Facts& facts, const Knowledge& kb);

// The `amdml fix` command that plans fd's recipe: "sudo amdml fix --apply --only RECIPE",
// plus the probe flags (--python PATH, --deep) a torch.* finding needs for fix to see
// it at all, as the facts record them. Empty without a fix.
std::string fix_command(const Finding& fd, const Facts& facts);

}  // namespace amdml
