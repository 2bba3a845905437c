// plan_fixes(): from the findings' fix references to the exact bytes and commands.
//
// Everything the apply will do is decided here, from files read through SafeTree
// (which refuses symlinks), so the plan a person reads is the plan that runs: apply
// re-checks every file against the bytes the plan saw before it writes.
#include <algorithm>
#include <variant>

#include "base/text.hpp"
#include "base/paths.hpp"
#include "fix/fix.hpp"
#include "platform/host.hpp"
#include "formats/system_files.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "formats/fix_params_json.hpp"
#include "platform/safe_tree.hpp"
#include "fix/plan_internal.hpp"

namespace amdml::fix {

const Recipe* find_recipe(const std::vector<Recipe>& recipes, const std::string& id) {
  for (const auto& r : recipes)
    if (r.id == id) return &r;
  return nullptr;
}

namespace {


void plan_group_members(Ctx& c, const GroupMembersStep& step, const GroupsParams& p) {
  for (const auto& path : step.files) {
    auto f = c.state(path);
    bool shadow = path.find("shadow") != std::string::npos;
    if (!f) {
      if (shadow && f.error().code == EACCES) {
        c.rp.notes.push_back(path + " is readable by root only; --apply adds " + p.user + " there too");
        continue;
      }
      c.rp.refused = f.error();
      return;
    }
    if (!f->exists) {
      if (shadow) continue;  // no shadow group file on this system: nothing to keep in step
      c.rp.refused = make_error(path + " does not exist");
      return;
    }
    auto e = add_group_members(f->bytes, p.user, p.groups);
    if (!e.missing.empty()) {
      std::string names;
      for (const auto& m : e.missing) names += (names.empty() ? "" : ", ") + m;
      if (!shadow) {
        // A directory group (sssd, LDAP): a local line would be a second group of that name.
        const auto& nss = c.in.facts.identity.nss_groups;
        bool directory = nss && std::any_of(e.missing.begin(), e.missing.end(), [&](const std::string& m) {
          return std::any_of(nss->begin(), nss->end(), [&](const GroupEntry& g) { return g.name == m; });
        });
        c.rp.refused = make_error("group " + names + " does not exist in " + path +
                                  (directory ? ": it comes from the directory service (NSS: sssd, LDAP), and amdml does "
                                               "not create a local duplicate; add the user there"
                                             : ""));
        return;
      }
      c.rp.notes.push_back(path + " has no line for " + names + "; left as it is (grpck can add it)");
    }
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = e.text;
    std::string added;
    for (const auto& g : e.added) added += (added.empty() ? "" : ",") + g;
    fc.why = added.empty() ? p.user + " is already a member" : "add " + p.user + " to " + added;
    c.rp.files.push_back(std::move(fc));
  }
}

// Parameters on one line, as the report's JSON spells them (bytes that are not UTF-8
// become U+FFFD instead of an exception).
std::string params_text(const FixParams& p) {
  return formats::fix_params_json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool systemd_running(const platform::Host& host) { return !host.live() || host.exists("/run/systemd/system"); }

void build(Ctx& c) {
  const Recipe& r = *c.rp.recipe;
  if (auto st = check_params(r, c.rp.ref.params, c.in.facts); !st) {
    c.rp.refused = st.error();
    return;
  }
  std::optional<GroupsParams> groups;
  std::optional<TtmLimits> ttm;
  std::optional<EnvSettings> env;
  std::optional<KernelCmdlineParams> cmdline;
  std::optional<RocmInstallParams> rocm;
  const AptSourceStep* source = nullptr;
  switch (r.params) {
    case ParamSchema::groups: groups = *parse_groups_params(c.rp.ref.params, c.in.facts); break;
    case ParamSchema::ttm: ttm = *parse_ttm_params(c.rp.ref.params, c.in.facts); break;
    case ParamSchema::hsa: env = *parse_hsa_params(c.rp.ref.params); break;
    case ParamSchema::env: env = *parse_env_params(r.id, c.rp.ref.params); break;
    case ParamSchema::cmdline: cmdline = *parse_cmdline_params(c.rp.ref.params, c.in.facts); break;
    case ParamSchema::rocm:
      rocm = *parse_rocm_params(c.rp.ref.params, c.in.facts);
      // Its group-members and follow-up steps add the user named, when there is one.
      if (!rocm->user.empty()) groups = *parse_groups_params(GroupsParams{rocm->user, rocm->groups}, c.in.facts);
      // Why this release, these packages, DKMS or not: the rule's reasons, said once.
      for (const auto& fd : c.rp.findings)
        for (const auto& n : fd.notes)
          if (std::find(c.rp.notes.begin(), c.rp.notes.end(), n) == c.rp.notes.end()) c.rp.notes.push_back(n);
      break;
  }
  for (const auto& step : r.steps) {
    if (c.rp.refused) return;
    switch (kind_of(step)) {
      case StepKind::group_members:
        if (rocm && !groups) break;  // nobody to add
        if (!groups) c.rp.refused = make_error(r.file + ": group-members needs params = \"groups\"");
        else plan_group_members(c, std::get<GroupMembersStep>(step), *groups);
        break;
      case StepKind::modprobe_option:
        if (!ttm) c.rp.refused = make_error(r.file + ": modprobe-option needs params = \"ttm\"");
        else plan_modprobe(c, std::get<ModprobeOptionStep>(step), *ttm);
        break;
      case StepKind::env_file:
        if (!env) c.rp.refused = make_error(r.file + ": env-file needs params = \"hsa\" or \"env\"");
        else plan_env_file(c, std::get<EnvFileStep>(step), *env);
        break;
      case StepKind::daemon_reload:
        if (systemd_running(c.in.host)) c.rp.commands.push_back({{"systemctl", "daemon-reload"}, "make systemd read the drop-in"});
        else c.rp.notes.push_back("systemd is not running here: no daemon-reload");
        break;
      case StepKind::restart_if_running: {
        const auto& unit = std::get<RestartIfRunningStep>(step).unit;
        if (systemd_running(c.in.host))
          c.rp.commands.push_back({{"systemctl", "try-restart", unit}, "restart " + unit + " if it is running"});
        break;
      }
      case StepKind::initramfs:
        if (!ttm) c.rp.refused = make_error(r.file + ": initramfs needs params = \"ttm\"");
        else plan_initramfs(c, *ttm);
        break;
      case StepKind::login_env_clear:
        if (!env) c.rp.refused = make_error(r.file + ": login-env-clear needs params = \"hsa\" or \"env\"");
        else plan_login_env_clear(c, std::get<LoginEnvClearStep>(step), *env);
        break;
      case StepKind::apt_source:
        if (!rocm) c.rp.refused = make_error(r.file + ": apt-source needs params = \"rocm\"");
        else plan_apt_source(c, *(source = &std::get<AptSourceStep>(step)), *rocm);
        break;
      case StepKind::apt_install:
        if (!rocm) c.rp.refused = make_error(r.file + ": apt-install needs params = \"rocm\"");
        else plan_apt_install(c, source, *rocm);
        break;
      case StepKind::follow_up: {
        const auto& f = std::get<FollowUpStep>(step);
        if (rocm && !groups) break;  // its follow-ups are about the group
        std::string text = f.text;
        if (groups && !f.service_text.empty())
          for (const auto& pw : c.in.facts.identity.passwd)
            if (pw.name == groups->user && pw.uid < 1000) text = f.service_text;
        if (groups) {
          text = text::replace_all(text, "{user}", groups->user);
          text = text::replace_all(text, "{group}", groups->groups.front());
        }
        c.rp.follow_ups.push_back(f.need);
        c.rp.follow_up_text.push_back(text);
        break;
      }
      case StepKind::kernel_cmdline:
        if (!cmdline) c.rp.refused = make_error(r.file + ": kernel-cmdline needs params = \"cmdline\"");
        else plan_kernel_cmdline(c, std::get<KernelCmdlineStep>(step), *cmdline);
        break;
    }
  }
}

// Two findings asking the same recipe: merge what can be merged (more groups for the
// same user, more environment names), otherwise keep the first and say so.
bool merge_params(ParamSchema schema, FixParams& into, const FixParams& more) {
  if (into == more) return true;
  auto* groups = std::get_if<GroupsParams>(&into);
  const auto* more_groups = std::get_if<GroupsParams>(&more);
  if (schema == ParamSchema::groups && groups && more_groups && !groups->user.empty() && groups->user == more_groups->user) {
    for (const auto& g : more_groups->groups)
      if (std::find(groups->groups.begin(), groups->groups.end(), g) == groups->groups.end()) groups->groups.push_back(g);
    return true;
  }
  // The same module and limit, one of them also naming page_pool_size: one change.
  auto* ttm = std::get_if<TtmLimitParams>(&into);
  const auto* more_ttm = std::get_if<TtmLimitParams>(&more);
  if (schema == ParamSchema::ttm && ttm && more_ttm && !ttm->module.empty() && ttm->module == more_ttm->module &&
      ttm->pages_limit && ttm->pages_limit == more_ttm->pages_limit) {
    if (ttm->page_pool_size && more_ttm->page_pool_size && ttm->page_pool_size != more_ttm->page_pool_size) return false;
    if (more_ttm->page_pool_size) ttm->page_pool_size = more_ttm->page_pool_size;
    return true;
  }
  // Kernel parameters: one set of words, as long as no name is asked two ways.
  auto* cl = std::get_if<KernelCmdlineParams>(&into);
  const auto* more_cl = std::get_if<KernelCmdlineParams>(&more);
  if (schema == ParamSchema::cmdline && cl && more_cl) {
    KernelCmdlineParams merged = *cl;
    for (const auto& [k, v] : more_cl->set) {
      if (merged.set.count(k) && merged.set[k] != v) return false;
      if (std::find(merged.remove.begin(), merged.remove.end(), k) != merged.remove.end()) return false;
      merged.set[k] = v;
    }
    for (const auto& n : more_cl->remove) {
      if (merged.set.count(n)) return false;
      if (std::find(merged.remove.begin(), merged.remove.end(), n) == merged.remove.end()) merged.remove.push_back(n);
    }
    into = std::move(merged);
    return true;
  }
  // The same override values: the shell's variables in the way, all of them.
  auto* hsa = std::get_if<HsaParams>(&into);
  const auto* more_hsa = std::get_if<HsaParams>(&more);
  if (schema == ParamSchema::hsa && hsa && more_hsa && hsa->value == more_hsa->value && hsa->per_node == more_hsa->per_node) {
    for (const auto& n : more_hsa->shell_unset)
      if (std::find(hsa->shell_unset.begin(), hsa->shell_unset.end(), n) == hsa->shell_unset.end()) hsa->shell_unset.push_back(n);
    return true;
  }
  const auto* env = std::get_if<EnvParams>(&into);
  const auto* more_env = std::get_if<EnvParams>(&more);
  if (schema == ParamSchema::env && env && more_env) {
    EnvParams merged = *env;
    for (const auto& [k, v] : more_env->env) {
      if (merged.env.count(k) && merged.env[k] != v) return false;
      merged.env[k] = v;
    }
    for (const auto& n : more_env->unset)
      if (std::find(merged.unset.begin(), merged.unset.end(), n) == merged.unset.end()) merged.unset.push_back(n);
    into = std::move(merged);
    return true;
  }
  return false;
}

}  // namespace

FixPlan plan_fixes(const PlanRequest& in) {
  FixPlan plan;
  std::vector<std::pair<const Finding*, std::string>> conflicts;
  for (const auto& f : in.findings) {
    if (!f.fix) continue;
    if (in.only && f.fix->recipe != *in.only) continue;
    bool placed = false;
    for (auto& rp : plan.recipes) {
      if (rp.ref.recipe != f.fix->recipe || !rp.recipe) continue;
      if (merge_params(rp.recipe->params, rp.ref.params, f.fix->params)) {
        rp.findings.push_back(f);
        placed = true;
        break;
      }
    }
    if (placed) continue;
    auto it = std::find_if(plan.recipes.begin(), plan.recipes.end(),
                           [&](const RecipePlan& rp) { return rp.ref.recipe == f.fix->recipe; });
    // Group memberships of different users go together; two different page limits or
    // overrides cannot both be right: the first one wins and the plan says so.
    if (it != plan.recipes.end() && (!it->recipe || it->recipe->params != ParamSchema::groups)) {
      it->notes.push_back(std::string(to_string(f.id)) + " asks for different parameters (" + params_text(f.fix->params) +
                          "); run `amdml fix` again after this one");
      it->deferred.push_back(f);
      continue;
    }
    RecipePlan rp;
    rp.ref = *f.fix;
    rp.findings.push_back(f);
    rp.recipe = find_recipe(in.recipes, f.fix->recipe);
    if (!rp.recipe) rp.refused = make_error("no recipe named \"" + f.fix->recipe + "\" (amdml fix --list)");
    plan.recipes.push_back(std::move(rp));
  }
  // What a killed run had started is planned again, so this run finishes it. A
  // request for the same recipe (for groups: the same user) already judges every file.
  for (const auto& [txn, ref] : in.resume_interrupted ? interrupted_requests(in.tree)
                                                     : std::vector<std::pair<std::string, FixRef>>{}) {
    if (ref.recipe.empty() || (in.only && ref.recipe != *in.only)) continue;
    const Recipe* r = find_recipe(in.recipes, ref.recipe);
    if (!r || !check_params(*r, ref.params, in.facts)) continue;
    auto user = [](const FixParams& p) {
      const auto* g = std::get_if<GroupsParams>(&p);
      return g ? g->user : std::string();
    };
    RecipePlan* same = nullptr;
    for (auto& rp : plan.recipes)
      if (rp.ref.recipe == ref.recipe && (r->params != ParamSchema::groups || user(rp.ref.params) == user(ref.params))) same = &rp;
    if (same) {
      if (r->params == ParamSchema::groups) merge_params(r->params, same->ref.params, ref.params);
      if (std::find(same->resumes.begin(), same->resumes.end(), txn) == same->resumes.end()) same->resumes.push_back(txn);
      continue;
    }
    RecipePlan rp;
    rp.ref = ref;
    rp.recipe = r;
    rp.resumes.push_back(txn);
    rp.notes.push_back("finishes transaction " + txn + ", which was interrupted before it finished");
    plan.recipes.push_back(std::move(rp));
  }
  // --only RECIPE when no finding asks for it, but a finding it is meant for has no fix
  // (rocm.missing on a GPU no ROCm release runs): the plan says why, not "nothing to do".
  if (in.only && plan.recipes.empty())
    if (const Recipe* r = find_recipe(in.recipes, *in.only); r && r->params == ParamSchema::rocm)
      for (const auto& f : in.findings) {
        if (f.fix || std::find(r->resolves.begin(), r->resolves.end(), to_string(f.id)) == r->resolves.end()) continue;
        RecipePlan rp;
        rp.recipe = r;
        rp.ref.recipe = r->id;
        rp.findings.push_back(f);
        std::string why;
        for (const auto& n : f.notes) why += (why.empty() ? "" : " ") + n;
        rp.refused = make_error(std::string(to_string(f.id)) + " has no plan here: " + (why.empty() ? f.title : why));
        plan.recipes.push_back(std::move(rp));
        return plan;
      }
  std::vector<RecipePlan> done;
  for (auto& rp : plan.recipes) {
    if (rp.recipe) {
      Ctx c{in, done, rp};
      build(c);
      add_owed_commands(rp, in.tree);
      fill_aftercare(rp, in.facts);
    }
    done.push_back(rp);
  }
  return plan;
}

}  // namespace amdml::fix
