// fill_aftercare(): what a person does once a recipe is applied (reboot, a new login, a
// service restart) and the check that shows it worked, as data for `fix --format json`.
#include <algorithm>
#include <string>

#include "base/text.hpp"
#include "fix/fix.hpp"

namespace amdml::fix {

namespace {

// `amdml check --min-gtt`: the GTT a limit of `pages` gives, in MiB (the flag takes SIZE).
std::string min_gtt_check(std::uint64_t pages) {
  return "amdml check --min-gtt " + std::to_string(Pages{pages}.bytes().value / (1024 * 1024)) + "MiB";
}

// A system account (uid below 1000, such as ollama) has no logins: its services read
// their groups when they start.
bool service_account(const Facts& facts, const std::string& user) {
  return std::any_of(facts.identity.passwd.begin(), facts.identity.passwd.end(),
                     [&](const PasswdEntry& pw) { return pw.name == user && pw.uid < 1000; });
}

std::string verify_of(const RecipePlan& rp, const Facts& facts) {
  if (const auto* t = std::get_if<TtmLimitParams>(&rp.ref.params); t && t->pages_limit)
    return min_gtt_check(t->pages_limit->value);
  if (const auto* c = std::get_if<KernelCmdlineParams>(&rp.ref.params)) {
    for (const auto& [k, v] : c->set)
      if (k.size() > 12 && k.compare(k.size() - 12, 12, ".pages_limit") == 0)
        if (auto pages = text::u64(v)) return min_gtt_check(*pages);
    return "cat /proc/cmdline";
  }
  if (const auto* g = std::get_if<GroupsParams>(&rp.ref.params))
    return service_account(facts, g->user) ? "id -nG " + text::shell_word(g->user) : "amdml check --require runtime";
  if (const auto* r = std::get_if<RocmInstallParams>(&rp.ref.params))
    return r->release.empty() ? "amdml check --require runtime"
                              : "amdml check --require runtime --rocm " + text::shell_word(">=" + r->release);
  if (std::holds_alternative<EnvParams>(rp.ref.params) && rp.recipe)
    for (const auto& step : rp.recipe->steps)
      if (const auto* e = std::get_if<EnvFileStep>(&step); e && !e->unit.empty())
        return "systemctl show " + text::shell_word(e->unit) + " -p Environment";
  return "amdml check --require runtime";
}

}  // namespace

void fill_aftercare(RecipePlan& rp, const Facts& facts) {
  Aftercare& a = rp.aftercare;
  a.needs_reboot = std::find(rp.follow_ups.begin(), rp.follow_ups.end(), FollowUp::reboot) != rp.follow_ups.end();
  const bool relogin = std::find(rp.follow_ups.begin(), rp.follow_ups.end(), FollowUp::relogin) != rp.follow_ups.end();
  std::string user;
  if (const auto* g = std::get_if<GroupsParams>(&rp.ref.params)) user = g->user;
  if (const auto* r = std::get_if<RocmInstallParams>(&rp.ref.params)) user = r->user;
  const bool service = !user.empty() && service_account(facts, user);
  a.needs_relogin = relogin && !service;
  a.needs_service_restart = relogin && service;
  // A service's environment: the recipe restarts it when systemd runs and it is running;
  // without systemd nobody restarts it but the person.
  if (rp.recipe)
    for (const auto& step : rp.recipe->steps)
      if (std::holds_alternative<RestartIfRunningStep>(step) &&
          std::none_of(rp.commands.begin(), rp.commands.end(),
                       [](const Command& c) { return c.argv.size() > 1 && c.argv[1] == "try-restart"; }))
        a.needs_service_restart = true;
  a.verify = verify_of(rp, facts);
}

}  // namespace amdml::fix
