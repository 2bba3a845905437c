// The pure half of a snapshot: the size policy and the amdml-host.json manifest. No
// I/O here; src/platform/snapshot_writer.cpp puts the result on disk.
#include <cerrno>
#include <cstdio>

#include "base/errno_names.hpp"
#include "formats/system_files.hpp"
#include "formats/snapshot.hpp"

namespace amdml {

using nlohmann::json;

// ---- Size policy ------------------------------------------------------------------

bool is_snapshot_relevant_package(const std::string& name) {
  if (name.rfind("roc", 0) == 0 || name.rfind("libroc", 0) == 0) return true;  // rocblas, librocfft0, ...
  static const char* kParts[] = {"rocm", "hip",     "hsa",    "amdgpu", "libdrm", "comgr", "miopen",
                                 "rccl", "ollama", "torch",   "llama",  "ggml",   "vulkan", "mesa",  "firmware",
                                 "linux-image", "linux-modules", "linux-headers", "dkms", "opencl", "amd"};
  for (const char* p : kParts)
    if (name.find(p) != std::string::npos) return true;
  return false;
}

namespace {

// Keeps the stanzas (blank-line separated) whose "Package:" is relevant.
std::string trim_dpkg_status(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find("\n\n", pos);
    std::size_t next = end == std::string::npos ? text.size() : end + 2;
    std::string stanza = text.substr(pos, (end == std::string::npos ? text.size() : end + 1) - pos);
    pos = next;
    if (stanza.rfind("Package: ", 0) != 0) continue;
    std::size_t eol = stanza.find('\n');
    std::string pkg = stanza.substr(9, eol == std::string::npos ? std::string::npos : eol - 9);
    if (!is_snapshot_relevant_package(pkg)) continue;
    if (!out.empty()) out += "\n";
    out += stanza;
    if (out.back() != '\n') out += "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> trim_recording(Recording& r) {
  std::vector<std::string> trimmed;
  // amdml's own probe children (the runtime probe's __probe-hsa, __probe-drm): their
  // results are recorded facts ("hsa", "libdrm"), which is what a replay reads.
  for (auto it = r.commands.begin(); it != r.commands.end();)
    it = it->first.rfind("/proc/self/exe ", 0) == 0 ? r.commands.erase(it) : std::next(it);
  auto it = r.tree.find("/var/lib/dpkg/status");
  if (it != r.tree.end() && it->second.kind == SnapshotNode::Kind::file) {
    std::string small = trim_dpkg_status(it->second.content);
    if (small.size() < it->second.content.size()) {
      it->second.content = std::move(small);
      trimmed.push_back(it->first);
    }
  }
  return trimmed;
}

// ---- Manifest ---------------------------------------------------------------------

namespace {

// What a path is in the tree as it will be written (parents of any node exist as
// directories): nullopt when the path would not resolve there.
std::optional<SnapshotNode::Kind> kind_in_tree(const std::map<std::string, SnapshotNode>& tree, const std::string& p) {
  if (p == "/") return SnapshotNode::Kind::directory;
  auto it = tree.find(p);
  if (it != tree.end()) return it->second.kind;
  auto below = tree.lower_bound(p + "/");
  if (below != tree.end() && below->first.rfind(p + "/", 0) == 0) return SnapshotNode::Kind::directory;
  return std::nullopt;
}

// Resolves like the rooted host does; true when the path exists in the written tree.
bool resolves_in_tree(const std::map<std::string, SnapshotNode>& tree, const std::string& path, bool follow_last) {
  auto lookup = [&](const std::string& p, bool) {
    paths::PathNode n;
    auto kind = kind_in_tree(tree, p);
    if (!kind) return n;
    if (*kind == SnapshotNode::Kind::symlink) {
      n.kind = paths::PathNode::Kind::symlink;
      n.target = tree.at(p).target;
    } else {
      n.kind = *kind == SnapshotNode::Kind::directory ? paths::PathNode::Kind::directory : paths::PathNode::Kind::other;
    }
    return n;
  };
  return paths::resolve_path(path, follow_last, 40, lookup).has_value();
}

std::string octal(std::uint32_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777);
  return buf;
}

}  // namespace

json snapshot_manifest(const Recording& r, const SnapshotMeta& meta) {
  json j = json::object();
  j["format"] = 1;
  if (r.uname) {
    json u = json::object();
    if (r.uname->release) u["release"] = *r.uname->release;
    if (r.uname->machine) u["machine"] = *r.uname->machine;
    j["uname"] = u;
  }
  if (r.identity) {
    const Identity& id = *r.identity;
    json p = json::object();
    if (id.user) p["user"] = *id.user;
    if (id.uid) p["uid"] = *id.uid;
    if (id.gid) p["gid"] = *id.gid;
    if (id.euid) p["euid"] = *id.euid;
    if (id.groups) p["groups"] = *id.groups;
    j["process"] = p;
    j["sudo_user"] = id.sudo_user ? json(*id.sudo_user) : json(nullptr);
  }
  j["env"] = r.env;
  if (r.devices_asked && r.devices) {
    json devs = json::object();
    for (const auto& d : *r.devices) {
      json n = json::object();
      n["type"] = to_string(d.type);
      if (d.mode) n["mode"] = octal(*d.mode);
      if (d.uid) n["uid"] = *d.uid;
      if (d.gid) n["gid"] = *d.gid;
      if (d.open == OpenCheck::ok) n["open"] = "ok";
      else if (d.open == OpenCheck::failed) n["open"] = errno_name(d.open_errno);
      devs[d.path] = n;
    }
    j["devices"] = devs;
  }
  if (r.container_asked) j["container"] = r.container ? json(to_string(*r.container)) : json(nullptr);
  json cmds = json::object();
  for (const auto& [key, c] : r.commands) {
    if (c.result) {
      cmds[key] = {{"exit_code", c.result->exit_code},
                   {"stdout", c.result->out},
                   {"stderr", c.result->err},
                   {"timed_out", c.result->timed_out},
                   {"signal", c.result->signal}};
    } else if (c.error) {
      cmds[key] = {{"error", c.error->message}, {"errno", errno_name(c.error->code)}};
    }
  }
  if (!cmds.empty()) j["commands"] = cmds;
  json errs = json::object();
  for (const auto& [op, paths] : r.errors) {
    json byop = json::object();
    for (const auto& [path, e] : paths) {
      // "Does not exist" replays by itself when the path is absent from the tree.
      if ((e.code == ENOENT || e.code == ENOTDIR) &&
          !resolves_in_tree(r.tree, path, std::string(op) != "lstat" && std::string(op) != "readlink"))
        continue;
      byop[path] = {{"errno", errno_name(e.code)}, {"message", e.message}};
    }
    if (!byop.empty()) errs[op] = byop;
  }
  if (!errs.empty()) j["errors"] = errs;
  static const char* kReserved[] = {"format", "uname",  "process", "sudo_user", "env",
                                    "devices", "container", "commands", "errors", "snapshot"};
  for (const auto& [key, v] : r.facts) {
    bool reserved = false;
    for (const char* k : kReserved) reserved = reserved || key == k;
    if (!reserved) j[key] = v;
  }
  j["snapshot"] = {{"amdml_version", meta.amdml_version}, {"redacted", meta.redacted}, {"options", meta.options}};
  return j;
}

}  // namespace amdml
