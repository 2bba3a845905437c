// Rules: pure functions from Facts (and the knowledge base) to Findings. No I/O.
//
// One table (rule_table) registers them; the finding catalog (amdml/finding_id.hpp)
// lists every id a rule may emit with its default severity, and docs/findings/<id>.md
// documents each.
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

const std::vector<RuleSpec>& rule_table();

// Runs every rule; findings come out errors first, then warnings, then infos, each
// group in rule-table order (stable, so output and JSON are reproducible).
std::vector<Finding> diagnose(const Facts& facts, const Knowledge& kb);

// The `amdml fix` command that plans fd's recipe: "sudo amdml fix --apply --only RECIPE",
// plus the probe flags (--python PATH, --deep) a torch.* finding needs for fix to see
// it at all, as the facts record them. Empty without a fix.
std::string fix_command(const Finding& fd, const Facts& facts);

}  // namespace amdml
