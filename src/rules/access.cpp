// access.kfd and access.relogin: can this user open /dev/kfd and the render nodes.
// Membership is judged by /etc/group and by the running session separately, because
// a group added with usermod only reaches processes started after a new login.
#include <algorithm>
#include <set>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

static std::string mode_text(std::optional<std::uint32_t> m) {
  if (!m) return "?";
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", *m);
  return buf;
}

void access_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const auto& id = f.identity;
  // Root needs no group; containers: container.gid; no AMD GPU: gpu.none says it (a
  // render node of another vendor's GPU is not this tool's business).
  if (id.root || in_container(f) || f.gpus.empty()) return;
  std::set<std::string> missing_groups, relogin_groups;
  std::vector<Evidence> missing_ev, relogin_ev;
  for (const auto& d : id.devices) {
    if (!d.exists || !d.gid) continue;
    if (d.world_accessible || d.owner_is_user) continue;
    if (d.open == OpenCheck::ok) continue;
    std::string group = d.group.value_or(std::to_string(*d.gid));
    Evidence ev{d.path, "mode " + mode_text(d.mode) + ", group " + group + " (gid " + std::to_string(*d.gid) + ")"};
    bool etc = d.in_etc_group.value_or(false);
    if (etc && d.in_session.has_value() && !*d.in_session) {
      relogin_groups.insert(group);
      relogin_ev.push_back(ev);
    } else if (!etc) {
      missing_groups.insert(group);
      missing_ev.push_back(ev);
    }
  }
  std::string user = id.user.empty() ? "$USER" : id.user;
  auto join = [](const std::set<std::string>& s) { return text::join({s.begin(), s.end()}, ","); };
  if (!missing_groups.empty()) {
    auto fd = make_finding(FindingId::access_kfd, "User " + user + " cannot open the GPU device nodes",
                           "The device nodes are group-owned with no access for others, and " + user +
                               " is not in group " + join(missing_groups) + " per /etc/group.");
    fd.evidence = missing_ev;
    fd.evidence.push_back({"/etc/group", user + " not in " + join(missing_groups)});
    fd.fix = FixRef{"groups", GroupsParams{user, std::vector<std::string>(missing_groups.begin(), missing_groups.end())}};
    fd.commands.push_back("sudo usermod -a -G " + join(missing_groups) + " " + user);
    fd.notes.push_back("Then log out and in again (or run `newgrp " + *missing_groups.begin() + "` in this shell).");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
  if (!relogin_groups.empty()) {
    auto fd = make_finding(FindingId::access_relogin, "Log out and in again: this session lacks group " + join(relogin_groups),
                           user + " is in " + join(relogin_groups) + " per /etc/group, but the running session "
                           "was started before that and does not have it yet.");
    fd.evidence = relogin_ev;
    fd.evidence.push_back({"id -G", "session groups lack " + join(relogin_groups)});
    fd.commands.push_back("newgrp " + *relogin_groups.begin() + "   # this shell only; or log out and in");
    fd.notes.push_back("Services (ollama) need a restart instead: sudo systemctl restart ollama");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
