// access.kfd and access.relogin: can this user open /dev/kfd and the render nodes.
// Membership is judged by the user's groups (/etc/group, and NSS: sssd or LDAP can
// give a group /etc/group does not list) and by the running session separately,
// because a group added with usermod only reaches processes started after a new login.
// A session that has the group can open the node, whatever /etc/group says.
#include <algorithm>
#include <set>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

static std::string mode_text(std::optional<std::uint32_t> m) { return m ? text::octal_mode(*m) : "?"; }

std::optional<GroupToJoin> group_to_join(const IdentityFacts& id, const DeviceAccess& d) {
  if (!d.exists || !d.gid || d.world_accessible || d.owner_is_user) return std::nullopt;
  if (d.in_etc_group.value_or(false) || d.in_nss.value_or(false)) return std::nullopt;
  GroupToJoin j;
  j.group = d.group.value_or(std::to_string(*d.gid));
  j.local = std::any_of(id.groups.begin(), id.groups.end(), [&](const GroupEntry& g) { return g.gid == *d.gid; });
  return j;
}

void access_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const auto& id = f.identity;
  // Root needs no group; containers: container.gid; no AMD GPU: gpu.none says it (a
  // render node of another vendor's GPU is not this tool's business).
  if (id.root || in_container(f) || f.gpus.empty()) return;
  std::set<std::string> missing_groups, relogin_groups, directory_groups, relogin_nss;
  std::vector<Evidence> missing_ev, relogin_ev;
  for (const auto& d : id.devices) {
    if (!d.exists || !d.gid) continue;
    if (d.world_accessible || d.owner_is_user) continue;
    if (d.open == OpenCheck::ok) continue;
    if (d.in_session.value_or(false) && d.open != OpenCheck::failed) continue;  // the session has the group
    std::string group = d.group.value_or(std::to_string(*d.gid));
    Evidence ev{d.path, "mode " + mode_text(d.mode) + ", group " + group + " (gid " + std::to_string(*d.gid) + ")"};
    bool etc = d.in_etc_group.value_or(false);
    bool nss = d.in_nss.value_or(false);
    if ((etc || nss) && d.in_session.has_value() && !*d.in_session) {
      relogin_groups.insert(group);
      if (!etc) relogin_nss.insert(group);
      relogin_ev.push_back(ev);
    } else if (auto join = group_to_join(id, d)) {
      missing_groups.insert(join->group);
      missing_ev.push_back(ev);
      // A group /etc/group does not have at all comes from a directory service.
      if (!join->local) directory_groups.insert(join->group);
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
    if (id.nss_groups) {
      std::string gids;
      for (const auto& g : *id.nss_groups) gids += (gids.empty() ? "" : ",") + std::to_string(g.gid);
      fd.evidence.push_back({"getgrouplist " + user, gids});
    }
    if (directory_groups.empty()) {
      fd.fix = FixRef{"groups", GroupsParams{user, std::vector<std::string>(missing_groups.begin(), missing_groups.end())}};
      fd.commands.push_back("sudo usermod -a -G " + text::shell_word(join(missing_groups)) + " " + user_word(id.user));
      fd.notes.push_back("Then log out and in again (or run `newgrp " + *missing_groups.begin() + "` in this shell).");
    } else {
      // A local line for a directory group would shadow or split it: not amdml's to add.
      fd.detail += " Group " + join(directory_groups) + " is not in /etc/group: it comes from the directory service "
                   "(NSS: sssd, LDAP), so `amdml fix` does not create a local duplicate.";
      fd.notes.push_back("Ask the directory's administrator to add " + user + " to " + join(directory_groups) +
                         ", then log out and in again.");
    }
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
  if (!relogin_groups.empty()) {
    auto fd = make_finding(FindingId::access_relogin, "Log out and in again: this session lacks group " + join(relogin_groups),
                           user + " is in " + join(relogin_groups) +
                               (relogin_nss.empty() ? " per /etc/group" : " per NSS (sssd, LDAP; not in /etc/group)") +
                               ", but the running session was started before that and does not have it yet.");
    fd.evidence = relogin_ev;
    fd.evidence.push_back({"id -G", "session groups lack " + join(relogin_groups)});
    fd.commands.push_back("newgrp " + text::shell_word(*relogin_groups.begin()) + "   # this shell only; or log out and in");
    fd.notes.push_back("Services (ollama) need a restart instead: sudo systemctl restart ollama");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules
