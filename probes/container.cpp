// Container facts. Inside a container: which runtime (the Host decides, from live markers
// or the manifest's "container" key), whether it runs in a user namespace -- rootless
// podman or docker, userns-remap, an unprivileged LXC -- and whether KFD's sysfs is
// visible. On a host: is the docker CLI installed and who may use its daemon socket.
//
// The user-namespace facts are plain files (/run/.containerenv, /proc/self/uid_map), so a
// --root tree carries them like any other file. The socket's owner is not a file a
// fixture can hold, so it is recorded in amdml-host.json under "docker" (see docs/ci.md).
#include <nlohmann/json.hpp>

#include "probes/probe_util.hpp"
#include "base/text.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

namespace {

constexpr const char* kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// One uid_map/gid_map line: "inside outside count". Only the single line "0 0 4294967295"
// is the initial namespace; anything else means ids are translated.
struct IdMapLine {
  std::uint64_t inside = 0, outside = 0, count = 0;
};

std::optional<std::vector<IdMapLine>> parse_id_map(const std::string& text) {
  std::vector<IdMapLine> out;
  for (auto line : text::split_lines(text)) {
    auto fields = text::split_ws(line);
    if (fields.empty()) continue;
    if (fields.size() != 3) return std::nullopt;
    auto a = text::u64(fields[0]), b = text::u64(fields[1]), c = text::u64(fields[2]);
    if (!a || !b || !c) return std::nullopt;
    out.push_back({*a, *b, *c});
  }
  if (out.empty()) return std::nullopt;
  return out;
}

bool is_identity_map(const std::vector<IdMapLine>& m) {
  return m.size() == 1 && m[0].inside == 0 && m[0].outside == 0 && m[0].count == 4294967295ULL;
}

void inside(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto& c = f.container;
  c.sys_kfd_visible = h.exists("/sys/class/kfd");
  // podman writes rootless=1 into /run/.containerenv for rootless containers.
  if (auto env = h.read_file("/run/.containerenv", 1 << 14)) {
    for (const auto& [k, v] : formats::parse::os_release(*env))
      if (k == "rootless" && v == "1") {
        c.rootless = true;
        c.rootless_why = "/run/.containerenv rootless=1";
      }
  }
  if (auto map = h.read_file("/proc/self/uid_map", 1 << 14)) {
    auto lines = parse_id_map(*map);
    if (!lines) {
      f.error("container", "/proc/self/uid_map", "not \"inside outside count\" lines");
    } else {
      c.user_namespace = !is_identity_map(*lines);
      if (*c.user_namespace && !c.rootless) {
        c.rootless = true;
        const auto& l = lines->front();
        c.rootless_why = "/proc/self/uid_map maps uid " + std::to_string(l.inside) + " to host uid " +
                         std::to_string(l.outside) + " (user namespace)";
      }
    }
  } else if (map.error().code != ENOENT) {
    f.error("container", "/proc/self/uid_map", map.error().message);
  }
}

std::optional<std::string> find_docker(const platform::Host& h) {
  std::string path = h.env("PATH").value_or(kDefaultPath);
  std::vector<std::string> dirs;
  for (const std::string_view dir : text::split(path, ':'))
    if (!dir.empty() && dir[0] == '/') dirs.emplace_back(dir);
  dirs.push_back("/usr/bin");
  for (const auto& dir : dirs) {
    std::string candidate = (dir.back() == '/' ? dir : dir + "/") + "docker";
    if (auto st = h.stat(candidate); st && st->type == FileType::regular && (st->mode & 0111)) return candidate;
  }
  return std::nullopt;
}

// mode "0660" as the manifest spells it, or an integer.
std::optional<std::uint32_t> manifest_mode(const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s.empty() || s.size() > 5 || s.find_first_not_of("01234567") != std::string::npos) return std::nullopt;
    return static_cast<std::uint32_t>(std::stoul(s, nullptr, 8));
  }
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= 07777) return static_cast<std::uint32_t>(v.get<std::uint64_t>());
  return std::nullopt;
}

std::optional<std::uint32_t> manifest_id(const nlohmann::json& obj, const char* key) {
  if (!obj.contains(key) || !obj[key].is_number_unsigned()) return std::nullopt;
  auto v = obj[key].get<std::uint64_t>();
  if (v > 0xffffffffULL) return std::nullopt;
  return static_cast<std::uint32_t>(v);
}

void docker_host(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto& d = f.container.docker;
  d.binary = find_docker(h);
  if (!d.binary) return;
  d.docker_host = h.env("DOCKER_HOST");
  if (h.live()) {
    auto st = h.stat(d.socket_path);
    d.socket_exists = st.ok() && st->type == FileType::socket;
    nlohmann::json rec = {{"socket", nullptr}};
    if (*d.socket_exists) {
      d.socket_mode = st->mode;
      d.socket_uid = st->uid;
      d.socket_gid = st->gid;
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", st->mode);
      rec["socket"] = {{"path", d.socket_path}, {"mode", mode}, {"uid", st->uid}, {"gid", st->gid}};
    }
    h.record_fact("docker", rec);
  } else if (auto rec = h.recorded("docker"); rec && rec->is_object() && rec->contains("socket")) {
    const auto& s = (*rec)["socket"];
    if (s.is_null()) {
      d.socket_exists = false;
    } else if (s.is_object()) {
      d.socket_exists = true;
      if (s.contains("path") && s["path"].is_string()) d.socket_path = s["path"].get<std::string>();
      if (s.contains("mode")) d.socket_mode = manifest_mode(s["mode"]);
      d.socket_uid = manifest_id(s, "uid");
      d.socket_gid = manifest_id(s, "gid");
    } else {
      f.error("container", "amdml-host.json docker.socket", "must be an object or null");
    }
  }
  if (d.socket_gid) d.socket_group = f.identity.group_name(*d.socket_gid);
}

}  // namespace

void container(const ProbeContext& ctx, Facts& f) {
  f.container.kind = ctx.host.container();
  if (f.container.kind) inside(ctx, f);
  else {
    f.container.sys_kfd_visible = ctx.host.exists("/sys/class/kfd");
    docker_host(ctx, f);
  }
}

}  // namespace amdml::probes
