// Who the report is about (SUDO_USER behind sudo) and whether they can open /dev/kfd
// and each AMD render node: by /etc/group, by the running session's groups, and --
// live -- by actually opening the node.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "platform/nss.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

namespace {

// The user's groups by NSS: live from getgrouplist (recorded for snapshots), under
// --root from the manifest's "nss_groups": {"alice": [{"gid": 992, "name": "render"}]}.
std::optional<std::vector<GroupEntry>> nss_groups(const platform::Host& h, const std::string& user, std::optional<std::uint32_t> gid) {
  if (user.empty()) return std::nullopt;
  std::optional<std::vector<GroupEntry>> out;
  if (h.live()) {
    if (!gid) return std::nullopt;
    auto got = platform::nss_user_groups(user, *gid);
    if (!got) return std::nullopt;
    out.emplace();
    nlohmann::json rec = nlohmann::json::array();
    for (const auto& g : *got) {
      out->push_back({g.name, g.gid, {user}});
      rec.push_back({{"gid", g.gid}, {"name", g.name}});
    }
    h.record_fact("nss_groups", {{user, rec}});
    return out;
  }
  auto rec = h.recorded("nss_groups");
  if (!rec || !rec->is_object() || !rec->contains(user) || !(*rec)[user].is_array()) return std::nullopt;
  out.emplace();
  for (const auto& e : (*rec)[user]) {
    if (!e.is_object() || !e.contains("gid") || !e["gid"].is_number_unsigned() || e["gid"].get<std::uint64_t>() > 0xffffffffULL)
      continue;
    std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    out->push_back({name, static_cast<std::uint32_t>(e["gid"].get<std::uint64_t>()), {user}});
  }
  return out;
}

}  // namespace

void identity(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto& id = f.identity;
  id.process = h.identity();
  if (auto t = h.read_file("/etc/group", 4 << 20)) id.groups = formats::parse::group_file(*t);
  else if (t.error().code != ENOENT) f.error("identity", "/etc/group", t.error().message);
  if (auto t = h.read_file("/etc/passwd", 4 << 20)) id.passwd = formats::parse::passwd_file(*t);
  else if (t.error().code != ENOENT) f.error("identity", "/etc/passwd", t.error().message);

  bool behind_sudo = id.process.sudo_user && id.process.euid == 0u && *id.process.sudo_user != "root";
  if (behind_sudo) id.user = *id.process.sudo_user;
  else if (id.process.user) id.user = *id.process.user;
  else if (id.process.uid) {
    for (const auto& p : id.passwd)
      if (p.uid == *id.process.uid) id.user = p.name;
  }
  id.root = id.process.euid == 0u && !behind_sudo;
  for (const auto& p : id.passwd)
    if (p.name == id.user) {
      id.user_uid = p.uid;
      id.user_gid = p.gid;
    }
  if (!id.user_uid && !behind_sudo) {
    id.user_uid = id.process.uid;
    id.user_gid = id.process.gid;
  }
  if (id.user_gid) id.user_groups_etc.push_back(*id.user_gid);
  for (const auto& g : id.groups)
    if (std::find(g.members.begin(), g.members.end(), id.user) != g.members.end()) id.user_groups_etc.push_back(g.gid);
  std::sort(id.user_groups_etc.begin(), id.user_groups_etc.end());
  id.user_groups_etc.erase(std::unique(id.user_groups_etc.begin(), id.user_groups_etc.end()), id.user_groups_etc.end());
  id.nss_groups = nss_groups(h, id.user, id.user_gid);

  // The nodes that matter: /dev/kfd and the render nodes of AMD GPUs (all render
  // nodes when the GPUs named none; none when there is no AMD GPU -- another vendor's
  // render node says nothing about ROCm).
  std::vector<std::string> paths = {"/dev/kfd"};
  for (const auto& g : f.gpus)
    if (g.render_node && std::find(paths.begin(), paths.end(), *g.render_node) == paths.end())
      paths.push_back(*g.render_node);
  auto devs = h.devices();
  id.devices_known = devs.has_value();
  if (devs && paths.size() == 1 && !f.gpus.empty())
    for (const auto& d : *devs)
      if (d.path.starts_with("/dev/dri/renderD")) paths.push_back(d.path);
  std::sort(paths.begin() + 1, paths.end());
  for (const auto& p : paths) {
    DeviceAccess a;
    a.path = p;
    if (devs) {
      for (const auto& d : *devs) {
        if (d.path != p) continue;
        a.exists = true;
        a.mode = d.mode;
        a.gid = d.gid;
        a.open = d.open;
        a.open_errno = d.open_errno;
        if (d.uid && id.user_uid && *d.uid == *id.user_uid) a.owner_is_user = true;
      }
    }
    if (a.exists) {
      if (a.mode) a.world_accessible = (*a.mode & 06) == 06;
      if (a.gid) {
        a.group = id.group_name(*a.gid);
        a.in_etc_group = std::binary_search(id.user_groups_etc.begin(), id.user_groups_etc.end(), *a.gid);
        if (id.nss_groups)
          a.in_nss = std::any_of(id.nss_groups->begin(), id.nss_groups->end(),
                                 [&](const GroupEntry& g) { return g.gid == *a.gid; });
        if (!behind_sudo && id.process.groups) {
          const auto& pg = *id.process.groups;
          a.in_session = std::find(pg.begin(), pg.end(), *a.gid) != pg.end() || id.process.gid == *a.gid;
        }
      }
    }
    id.devices.push_back(std::move(a));
  }
}

}  // namespace amdml::probes
