// advise(): the advice stage. Every fixable finding's recipe is planned once; the plan
// gives the finding's hand commands (the same files, the same bytes the recipe writes),
// and a recipe the plan refuses loses its `fix:` line for the reason and the by-hand step.
#include <algorithm>
#include <string>
#include <vector>

#include "base/text.hpp"
#include "fix/fix.hpp"
#include "fix/edits.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

// The plan reads through SafeTree; the host is asked for the same files first, so a
// recording host (amdml snapshot) carries them and a replay advises the same.
void read_through_host(const platform::Host& host, const Recipe& r) {
  for (const auto& step : r.steps) {
    if (const auto* m = std::get_if<ModprobeOptionStep>(&step)) {
      if (auto names = host.list_dir(m->dir))
        for (const auto& n : *names) (void)host.read_file(m->dir + "/" + n.name, 1 << 20);
      (void)host.read_file(m->path, 1 << 20);
    } else if (const auto* k = std::get_if<KernelCmdlineStep>(&step)) {
      for (const auto* path : {&k->kernelstub, &k->grub, &k->kernel_install}) (void)host.read_file(*path, 1 << 20);
      if (auto names = host.list_dir(k->grub + ".d"))
        for (const auto& n : *names) (void)host.read_file(k->grub + ".d/" + n.name, 1 << 20);
    } else if (const auto* e = std::get_if<EnvFileStep>(&step)) {
      (void)host.read_file(e->path, 1 << 20);
    } else if (const auto* l = std::get_if<LoginEnvClearStep>(&step)) {
      for (const auto& f : l->files) {
        auto pattern = dir_pattern(f);
        if (!pattern) {
          (void)host.read_file(f, 1 << 20);
        } else if (auto names = host.list_dir(pattern->first)) {
          for (const auto& n : *names) (void)host.read_file(pattern->first + "/" + n.name, 1 << 20);
        }
      }
    }
  }
}

const RecipePlan* plan_of(const Plan& plan, const Finding& fd) {
  for (const auto& rp : plan.recipes)
    if (std::any_of(rp.findings.begin(), rp.findings.end(),
                    [&](const Finding& f) { return f.id == fd.id && f.title == fd.title; }))
      return &rp;
  return nullptr;
}

// The finding's hand commands from its recipe's plan: what the plan writes, the plan's
// own commands, then "sudo reboot".
void plan_hand_commands(const RecipePlan& rp, const Recipe& r, Finding& fd) {
  if (!rp.pending()) return;
  auto cmds = hand_commands(rp);
  if (cmds.empty()) return;
  // A line past Linux's limit on one argument (sed's script, a whole file) fails with
  // E2BIG when typed, and nobody pastes it: the recipe makes the same change.
  const bool too_long =
      std::any_of(cmds.begin(), cmds.end(), [](const auto& c) { return c.first.size() > text::kMaxArgStrlen; });
  if (too_long) {
    fd.notes.push_back("The command that makes this change by hand would be longer than Linux's limit of " +
                       std::to_string(text::kMaxArgStrlen / 1024) + " KiB for one argument, so it is not shown: "
                       "`sudo amdml fix --apply --only " + r.id + "` makes it.");
    return;
  }
  fd.commands.clear();
  fd.roles.clear();
  for (auto& [c, role] : cmds) fd.add_command(std::move(c), role);
}

// The plan's commands when it has them; otherwise, for a finding that carries none, the
// request's step by hand (the same words whether the plan is refused or has nothing of
// its own to write).
void plan_hand_commands_or_steps(const RecipePlan* rp, const Recipe& r, Finding& fd) {
  if (rp && !rp->refused) plan_hand_commands(*rp, r, fd);
  if (!fd.commands.empty()) return;
  for (auto& s : by_hand_steps(*fd.fix)) fd.commands.push_back(std::move(s));
}

// A TTM limit that is configured but not loaded, while an interrupted apply still owes
// the commands that make it the next boot's (the initramfs, the boot entry): the next step
// is `sudo amdml fix --apply`, which finishes that transaction, and only then the reboot.
void owed_before_reboot(platform::SafeTree& tree, std::vector<Finding>& findings) {
  if (std::none_of(findings.begin(), findings.end(), [](const Finding& f) { return f.id == FindingId::memory_ttm_pending; }))
    return;
  for (const auto& [txn, ref] : interrupted_requests(tree)) {
    if (ref.recipe != "ttm-pages-limit" && ref.recipe != "kernel-cmdline") continue;
    for (auto& fd : findings) {
      if (fd.id != FindingId::memory_ttm_pending) continue;
      fd.commands.clear();
      fd.roles.clear();
      fd.add_command("sudo amdml fix --apply", CommandRole::run);
      fd.add_command("sudo reboot", CommandRole::then);
      fd.notes.push_back("amdml fix transaction " + txn + " (" + ref.recipe +
                         ") was interrupted before its commands ran: `sudo amdml fix --apply` finishes it, then reboot.");
    }
    return;
  }
}

}  // namespace

Plan advise(const AdviceInputs& in, std::vector<Finding>& findings) {
  derive_hand_commands(in.recipes, findings);
  if (in.offline) owed_before_reboot(in.tree, findings);
  const bool any = std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
    return f.fix && (!in.only || f.fix->recipe == *in.only);
  });
  if (!any && !in.only) return {};
  if (in.offline)
    for (const auto& r : in.recipes)
      if (std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.fix && f.fix->recipe == r.id; }))
        read_through_host(in.host, r);
  PlanRequest pi{in.host, in.tree, in.facts, findings, in.recipes, in.only};
  // The doctor's advice runs no child at all: no initramfs lister, no package-manager
  // simulation, no key fetched (a plan says what it fetches when applied), and leaves an
  // interrupted transaction to `fix`.
  pi.list_initramfs = !in.offline;
  pi.resume_interrupted = !in.offline;
  pi.offline = in.offline;
  Plan plan = plan_fixes(pi);
  for (auto& fd : findings) {
    if (!fd.fix || (in.only && fd.fix->recipe != *in.only)) continue;
    const Recipe* r = find_recipe(in.recipes, fd.fix->recipe);
    const RecipePlan* rp = plan_of(plan, fd);
    if (!r) continue;
    // The rules write no command text for a recipe planned by hand: the plan's commands,
    // else (refused, or nothing of its own to write) the request's step by hand.
    const bool by_hand = planned_by_hand(*r);
    if (by_hand) plan_hand_commands_or_steps(rp, *r, fd);
    if (!rp) continue;
    if (rp->refused) {
      // No `fix:` line for a plan fix would refuse: the reason and the steps by hand.
      if (in.offline) {
        std::string why = rp->refused->message;
        if (!why.empty() && why.back() != '.') why += '.';
        fd.notes.push_back("`amdml fix` cannot make this change here: " + why);
        fd.fix.reset();
      }
      continue;
    }
  }
  // A refused recipe's plan shows what its findings say to do by hand instead: the
  // steps given above (the plan copied the findings before them).
  for (auto& rp : plan.recipes) {
    if (!rp.refused) continue;
    for (auto& pf : rp.findings)
      for (const auto& fd : findings)
        if (fd.id == pf.id && fd.title == pf.title && pf.commands.empty()) {
          pf.commands = fd.commands;
          pf.roles = fd.roles;
        }
  }
  return plan;
}

}  // namespace amdml::fix
