// amdml fix: show the plan (default), --apply it (root; journaled; re-diagnosed),
// --undo a transaction, --list the recipes. Exit codes: 0 done or nothing to do,
// 1 a step failed (and was rolled back) or a recipe was refused, 2 usage, 4 --apply
// or --undo without root.
#include "fix/fix.hpp"
#include "formats/recipe_toml.hpp"
#include "render/fix_text.hpp"
#include "platform/host.hpp"
#include "render/render.hpp"
#include "cli/cli.hpp"
#include "platform/prompt.hpp"
#include "platform/safe_tree.hpp"
#include "platform/terminal.hpp"

namespace amdml::cli {

namespace {

struct FixOptions {
  bool apply = false;
  bool yes = false;
  bool list = false;
  std::string only;
  std::string undo_txn;
  CLI::Option* undo = nullptr;
  ProbeFlags probe;
};

std::string sudo_command(const GlobalOptions& g, const Session& s, const std::string& args) {
  std::string cmd = "sudo amdml fix " + args;
  if (!s.host->live()) cmd += " --root " + s.host->root();
  if (!g.recipes.empty()) cmd += " --recipes " + g.recipes;
  return cmd;
}

// Root is judged by the host: live, the real euid; with --root, the manifest's
// process.euid, so tests exercise both answers.
bool host_is_root(const Host& host) {
  auto id = host.identity();
  return id.euid && *id.euid == 0;
}

int need_root(const std::string& what, const std::string& cmd) {
  std::fprintf(stderr, "amdml: error: %s needs root. Run:\n  %s\n", what.c_str(), cmd.c_str());
  return kExitNeedRoot;
}

}  // namespace

CommandRunner setup_fix(CLI::App& sub, const GlobalOptions& g) {
  auto o = std::make_shared<FixOptions>();
  sub.add_flag("--apply", o->apply, "Make the changes (needs root): journaled, atomic, re-diagnosed afterwards");
  sub.add_flag("--yes,-y", o->yes, "Do not ask for confirmation on a terminal");
  sub.add_option("--only", o->only, "Plan or apply this recipe only (see --list)");
  sub.add_flag("--list", o->list, "List the fix recipes, then exit");
  o->undo = sub.add_option("--undo", o->undo_txn, "Restore the last transaction (or TXN) byte for byte (needs root)")
                ->expected(0, 1);
  o->probe.add_to(sub);
  return [o, &g]() -> int {
    Session s = open_session(g);
    auto recipes = load_recipes(s.recipes);
    if (!recipes) throw UsageError(recipes.error().message);
    if (o->list) {
      emit_text("", format_recipe_list(*recipes));
      return kExitOk;
    }
    if (!o->only.empty() && !fix::find_recipe(*recipes, o->only))
      throw UsageError("--only " + o->only + ": no such recipe (amdml fix --list)");
    bool undo = o->undo->count() > 0;
    if (undo && o->apply) throw UsageError("--undo and --apply cannot be combined");

    platform::SafeTree tree(s.host->root());
    fix::ApplyOptions ao;
    ao.live = s.host->live();
    ao.run_commands = s.host->live();

    if (undo) {
      std::string args = "--undo" + (o->undo_txn.empty() ? std::string() : " " + o->undo_txn);
      if (!host_is_root(*s.host)) return need_root("amdml fix --undo", sudo_command(g, s, args));
      std::optional<std::string> txn;
      if (!o->undo_txn.empty()) txn = o->undo_txn;
      auto r = fix::undo_transaction(txn, *s.host, tree, tree, ao);
      if (!r) {
        error_line(r.error().message);
        return kExitFindings;
      }
      emit_text("", format_undo(*r));
      return kExitOk;
    }

    for (const auto& txn : fix::interrupted_transactions(tree))
      std::fprintf(stderr, "amdml: warning: transaction %s was interrupted before it finished; its files are each old or new. "
                           "`sudo amdml fix --undo %s` puts them back.\n", txn.c_str(), txn.c_str());
    ProbeOptions po = o->probe.options();
    Report before = run_doctor(s, po);
    std::optional<std::string> only;
    if (!o->only.empty()) only = o->only;
    fix::PlanInputs in{*s.host, tree, before.facts, before.findings, *recipes, only};
    Plan plan = fix::plan_fixes(in);
    std::string apply_cmd = sudo_command(g, s, "--apply" + (o->only.empty() ? std::string() : " --only " + o->only)) +
                            o->probe.args();

    if (!o->apply) {
      emit_text("", format_plan(plan, !s.host->live(), apply_cmd));
      return plan.refused() ? kExitFindings : kExitOk;
    }
    if (!host_is_root(*s.host)) return need_root("amdml fix --apply", apply_cmd);
    if (!plan.pending()) {
      emit_text("", format_plan(plan, !s.host->live(), apply_cmd));
      return plan.refused() ? kExitFindings : kExitOk;
    }
    if (!o->yes && platform::stdin_is_tty()) {
      emit_text("", format_plan(plan, !s.host->live(), apply_cmd));
      if (!platform::ask_yes_no("Apply these changes?")) {
        emit_text("", "Nothing was changed.\n");
        return kExitOk;
      }
    }
    auto applied = fix::apply_plan(plan, *s.host, tree, tree, ao);
    if (!applied) {
      error_line("nothing was changed: " + applied.error().message);
      return kExitFindings;
    }
    std::string text = format_apply(*applied, plan);
    if (applied->ok) {
      Report after = run_doctor(s, po);
      text += format_verify(plan, *applied, before.findings, after.findings);
    }
    for (const auto& rp : plan.recipes)
      if (rp.refused) text += "Not applied: " + rp.ref.recipe + ": " + rp.refused->message + "\n";
    emit_text("", text);
    if (!applied->ok) return kExitFindings;
    return plan.refused() ? kExitFindings : kExitOk;
  };
}

}  // namespace amdml::cli
