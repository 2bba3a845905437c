// `amdml fix` for people: the recipe list, the plan, the outcome of an apply and of an
// undo, and the re-diagnosis after an apply, drawn from the fix engine's data.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "amdml/finding.hpp"
#include "amdml/plan.hpp"
#include "amdml/recipe.hpp"

namespace amdml::render {

std::string format_recipe_list(const std::vector<Recipe>& recipes);
std::string format_plan(const FixPlan& plan, bool rooted, const std::string& sudo_command);
std::string format_apply(const ApplyOutcome& out, const FixPlan& plan);
// The same, naming `undo_command` (the engine's `amdml fix --undo TXN`, with --root and
// --recipes when the run had them) as the way back.
std::string format_apply(const ApplyOutcome& out, const FixPlan& plan, const std::string& undo_command);
// Before/after findings of the re-probe: gone, waiting for a reboot or login, still there.
// The follow-ups of the recipes that were applied, each once (reboot first).
std::vector<std::pair<FollowUp, std::string>> applied_follow_ups(const FixPlan& plan, const ApplyOutcome& out);
// verdicts: fix::classify_verify's, in its order.
std::string format_verify(const FixPlan& plan, const ApplyOutcome& out, const std::vector<VerifyLine>& verdicts);
std::string format_undo(const UndoOutcome& out);

// A unified diff (---/+++ headers, 3 lines of context) of before -> after.
std::string unified_diff(const std::string& path, const std::optional<std::string>& before, const std::string& after);

}  // namespace amdml::render