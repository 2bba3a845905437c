// classify_verify(): what became of each finding a recipe was applied for, from the
// doctor's run after the apply -- gone, waiting for a reboot, a new login or the recorded
// commands, left for the person, still there -- as data (render draws it).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fix/fix.hpp"

namespace amdml::fix {

std::vector<VerifyLine> classify_verify(const FixPlan& plan, const ApplyOutcome& out, const std::vector<Finding>& before,
                                        const std::vector<Finding>& after) {
  std::vector<VerifyLine> lines;
  if (!out.ok || out.txn.empty()) return lines;
  std::set<FindingId> after_ids;
  // Findings after the apply that still ask for a recipe: (id, recipe).
  std::set<std::pair<FindingId, std::string>> after_fixable;
  std::map<FindingId, std::string> after_title;
  for (const auto& f : after) {
    after_ids.insert(f.id);
    after_title.emplace(f.id, f.title);
    if (f.fix) after_fixable.insert({f.id, f.fix->recipe});
  }
  std::set<FindingId> before_ids;
  for (const auto& f : before) before_ids.insert(f.id);
  auto add = [&](VerifyStatus st, FindingId id, const std::string& title) { lines.push_back({st, id, title}); };
  for (const auto& rp : plan.recipes) {
    if (std::find(out.recipes_applied.begin(), out.recipes_applied.end(), rp.ref.recipe) == out.recipes_applied.end()) continue;
    bool reboot = std::find(rp.follow_ups.begin(), rp.follow_ups.end(), FollowUp::reboot) != rp.follow_ups.end();
    bool relogin = std::find(rp.follow_ups.begin(), rp.follow_ups.end(), FollowUp::relogin) != rp.follow_ups.end();
    const VerifyStatus waiting = reboot ? VerifyStatus::after_reboot : VerifyStatus::after_relogin;
    // Packages the recipe installs with commands that --root only recorded: the finding
    // goes when they run.
    // (Told by its parameters' type: the plan's recipe pointer may outlive its table.)
    // (A rename it makes runs in the tree even then; its apt-get commands do not.)
    const bool recorded = std::holds_alternative<RocmInstallParams>(rp.ref.params) &&
                          std::any_of(out.commands.begin(), out.commands.end(), [](const CommandRecord& c) { return !c.ran; });
    for (const auto& f : rp.findings) {
      if (!after_ids.count(f.id)) add(VerifyStatus::gone, f.id, f.title);
      else if (recorded) add(VerifyStatus::after_commands, f.id, f.title);
      else if (reboot || relogin) add(waiting, f.id, f.title);
      else if (!after_fixable.count({f.id, rp.ref.recipe}))
        // The recipe did its part; what remains is not a change amdml makes.
        add(VerifyStatus::left, f.id, after_title[f.id]);
      else add(VerifyStatus::still, f.id, f.title);
    }
    // Findings that asked this recipe with other parameters: gone with this change, or
    // waiting for the same follow-up, or the next run's business.
    for (const auto& f : rp.deferred) {
      if (!after_ids.count(f.id)) add(VerifyStatus::gone, f.id, f.title);
      else if (!after_fixable.count({f.id, rp.ref.recipe}) && (reboot || relogin)) add(waiting, f.id, after_title[f.id]);
      else if (!after_fixable.count({f.id, rp.ref.recipe})) add(VerifyStatus::left, f.id, after_title[f.id]);
      else add(VerifyStatus::next_run, f.id, after_title[f.id]);
    }
  }
  // Findings the change itself brings up (access.relogin after a group edit).
  for (const auto& f : after)
    if (!before_ids.count(f.id)) add(VerifyStatus::now, f.id, f.title);
  return lines;
}

}  // namespace amdml::fix
