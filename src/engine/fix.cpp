// amdml fix: show the plan (default), --apply it (root; journaled; verified by a second
// doctor run), --undo a transaction, --list the recipes. Exit codes: 0 done or nothing
// to do, 1 a step failed (and was rolled back) or a recipe was refused, 2 usage, 4
// --apply or --undo without root.
#include "base/text.hpp"
#include "engine/pipeline.hpp"
#include "fix/fix.hpp"
#include "formats/recipe_toml.hpp"
#include "render/fix_json.hpp"
#include "render/fix_text.hpp"
#include "platform/host.hpp"
#include "platform/prompt.hpp"
#include "platform/safe_tree.hpp"
#include "platform/terminal.hpp"
#include "render/render.hpp"

namespace amdml::engine {

namespace {

// `amdml fix ARGS` for this machine: with --root and --recipes as given, each quoted
// like every printed word (args come quoted already).
std::string fix_command(const GlobalOptions& g, const Session& s, const std::string& args) {
  std::string cmd = "amdml fix " + args;
  if (!s.host->live()) cmd += " --root " + text::shell_word(s.host->root());
  if (!g.recipes.empty()) cmd += " --recipes " + text::shell_word(g.recipes);
  return cmd;
}

std::string sudo_command(const GlobalOptions& g, const Session& s, const std::string& args) {
  return "sudo " + fix_command(g, s, args);
}

// Root is judged by the host: live, the real euid; with --root, the manifest's
// process.euid, so tests exercise both answers.
bool host_is_root(const platform::Host& host) {
  auto id = host.identity();
  return id.euid && *id.euid == 0;
}

void emit_json(const nlohmann::json& doc) { emit("", render::json_text(doc) + "\n"); }

int need_root(const std::string& what, const std::string& cmd, const FixOptions& o, const char* mode) {
  if (o.format == Format::json) emit_json(render::fix_error_json(mode, what + " needs root: " + cmd));
  return need_root_line(what, cmd);
}

fix::ApplyOptions apply_options(const Session& s) {
  fix::ApplyOptions ao;
  ao.live = s.host->live();
  ao.run_commands = s.host->live();
  return ao;
}

// --undo [TXN]: the journal's old bytes back, newest transaction unless TXN.
int undo(const GlobalOptions& g, const FixOptions& o, const Session& s, platform::SafeTree& tree) {
  const std::string& txn_arg = *o.undo;
  std::string args = "--undo" + (txn_arg.empty() ? std::string() : " " + text::shell_word(txn_arg));
  if (!host_is_root(*s.host)) return need_root("amdml fix --undo", sudo_command(g, s, args), o, "undo");
  std::optional<std::string> txn;
  if (!txn_arg.empty()) txn = txn_arg;
  auto r = stage("undo", [&] { return fix::undo_transaction(txn, *s.host, tree, tree, apply_options(s)); });
  if (!r) {
    error_line(r.error().message);
    if (o.format == Format::json) emit_json(render::fix_error_json("undo", r.error().message));
    return kExitFindings;
  }
  if (o.format == Format::json) emit_json(render::fix_undo_json(*r, !s.host->live()));
  else emit_text("", render::format_undo(*r));
  return r->skipped.empty() ? kExitOk : kExitFindings;  // partly undone
}

}  // namespace

int fix(const GlobalOptions& g, const FixOptions& o) {
  Session s = open_session(g);  // stages host, knowledge
  const auto& recipes = stage("recipes", [&]() -> const Result<std::vector<Recipe>>& { return session_recipes(s); });
  if (!recipes) throw UsageError(recipes.error().message);
  const bool json = o.format == Format::json;
  if (o.list) {
    if (json) throw UsageError("--list has no JSON form; `amdml fix --format json` is the plan");
    emit_text("", render::format_recipe_list(*recipes));
    return kExitOk;
  }
  // A JSON reader cannot answer a question on the terminal.
  if (json && o.apply && !o.yes && platform::stdin_is_tty())
    throw UsageError("--apply --format json does not ask for confirmation: add --yes");
  if (!o.only.empty() && !fix::find_recipe(*recipes, o.only))
    throw UsageError("--only " + o.only + ": no such recipe (amdml fix --list)");
  if (o.undo && o.apply) throw UsageError("--undo and --apply cannot be combined");

  platform::SafeTree tree(s.host->root());
  if (o.undo) return undo(g, o, s, tree);

  for (const auto& txn : fix::interrupted_transactions(tree))
    error_line("transaction " + txn + " was interrupted before it finished; its files are each old or new. `" +
                   sudo_command(g, s, "--undo " + text::shell_word(txn)) + "` puts them back.",
               "amdml: warning: ");
  // Plan: what the doctor sees now, and the recipes for its findings, planned once by
  // the advice stage (with --only, that recipe alone).
  probes::ProbeOptions po = o.probe.options();
  AdviceOptions ao;
  ao.offline = false;
  ao.tree = &tree;
  if (!o.only.empty()) ao.only = o.only;
  FixPlan plan;
  Report before = run_doctor(s, po, ao, plan);  // stages probes, rules, advice
  const std::string only_arg = o.only.empty() ? std::string() : " --only " + text::shell_word(o.only);
  std::string apply_cmd = sudo_command(g, s, "--apply" + only_arg) + o.probe.args();

  const bool rooted = !s.host->live();
  if (!o.apply) {
    if (json) emit_json(render::fix_plan_json(plan, rooted, apply_cmd));
    else emit_text("", render::format_plan(plan, rooted, apply_cmd));
    return plan.refused() ? kExitFindings : kExitOk;
  }
  if (!host_is_root(*s.host)) return need_root("amdml fix --apply", apply_cmd, o, "apply");
  if (!plan.pending()) {
    if (json) emit_json(render::fix_apply_json(plan, rooted, ApplyOutcome{}, {}, ""));
    else emit_text("", render::format_plan(plan, rooted, apply_cmd));
    return plan.refused() ? kExitFindings : kExitOk;
  }
  if (!json && !o.yes && platform::stdin_is_tty()) {
    emit_text("", render::format_plan(plan, !s.host->live(), apply_cmd));
    if (!platform::ask_yes_no("Apply these changes?")) {
      emit_text("", "Nothing was changed.\n");
      return kExitOk;
    }
  }
  // The signing keys the plan writes, fetched now and checked against the fingerprints
  // pinned in the knowledge: a key that differs stops the apply before anything is written.
  if (auto keys = stage("keys", [&] { return fix::fetch_keys(plan, *s.host); }); !keys) {
    error_line("nothing was changed: " + keys.error().message);
    if (json) emit_json(render::fix_error_json("apply", "nothing was changed: " + keys.error().message));
    return kExitFindings;
  }
  // Apply: journaled, each file atomically; a failed step rolls the transaction back.
  auto applied = stage("apply", [&] { return fix::apply_plan(plan, *s.host, tree, tree, apply_options(s)); });
  if (!applied) {
    error_line("nothing was changed: " + applied.error().message);
    if (json) emit_json(render::fix_error_json("apply", "nothing was changed: " + applied.error().message));
    return kExitFindings;
  }
  const std::string undo_cmd = fix_command(g, s, "--undo " + text::shell_word(applied->txn));
  // Verify: the doctor again, and what each recipe's findings became.
  std::optional<std::vector<Finding>> after;
  if (applied->ok) {
    Stage verify("verify");
    after = run_doctor(s, po).findings;
  }
  std::vector<VerifyLine> verdicts;
  if (after) verdicts = fix::classify_verify(plan, *applied, before.findings, *after);
  if (json) {
    emit_json(render::fix_apply_json(plan, rooted, *applied, verdicts, undo_cmd));
  } else {
    std::string text = render::format_apply(*applied, plan, undo_cmd);
    if (after) text += render::format_verify(plan, *applied, verdicts);
    for (const auto& rp : plan.recipes)
      if (rp.refused) text += "Not applied: " + rp.ref.recipe + ": " + rp.refused->message + "\n";
    emit_text("", text);
  }
  if (!applied->ok) return kExitFindings;
  return plan.refused() ? kExitFindings : kExitOk;
}

}  // namespace amdml::engine
