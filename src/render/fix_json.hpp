// `amdml fix --format json` (schema amdml.fix/1, docs/fix.md and
// docs/schemas/fix.schema.json): the plan, the outcome of --apply and of --undo as one
// document each, drawn from the same data as the text (amdml/plan.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/finding.hpp"
#include "amdml/plan.hpp"

namespace amdml::render {

// The plan: every recipe that would change a file ("recipes"; empty: nothing to do),
// the recipes that were refused, and the command that applies it.
nlohmann::json fix_plan_json(const FixPlan& plan, bool rooted, const std::string& apply_command);
// --apply: the plan that was applied, what was written and run, and the re-diagnosis
// (after: the findings of the doctor run after the apply; nullopt when it did not run);
// undo_command is the way back (`amdml fix --undo TXN` with the run's --root, --recipes).
nlohmann::json fix_apply_json(const FixPlan& plan, bool rooted, const ApplyOutcome& out, const std::vector<VerifyLine>& verdicts,
                              const std::string& undo_command);
// --undo: the files put back and the commands run.
nlohmann::json fix_undo_json(const UndoOutcome& out, bool rooted);
// A run that could not do what it was asked (--apply without root, a journal that
// cannot be read): mode "plan", "apply" or "undo", and the one-line error.
nlohmann::json fix_error_json(const std::string& mode, const std::string& message);

}  // namespace amdml::render