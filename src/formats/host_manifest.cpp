// The pure half of a snapshot: the size policy, the amdml-host.json manifest (read and
// write). No I/O here; src/platform/snapshot_writer.cpp puts a snapshot
// on disk and src/platform/host_rooted.cpp serves a manifest it read.
#include "base/text.hpp"
#include "formats/host_manifest.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/errno_names.hpp"
#include "formats/json.hpp"
#include "formats/system_files.hpp"
#include "formats/snapshot.hpp"

namespace amdml::formats {

using nlohmann::json;

// ---- Size policy ------------------------------------------------------------------

bool is_snapshot_relevant_package(const std::string& name) {
  if (name.starts_with("roc") || name.starts_with("libroc")) return true;  // rocblas, librocfft0, ...
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
  for (const std::string_view s : parse::dpkg_stanzas(text)) {
    const auto pkg = parse::dpkg_field(s, "Package");
    if (!pkg || !is_snapshot_relevant_package(std::string(*pkg))) continue;
    if (!out.empty()) out += "\n";
    out += s;
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
    it = it->first.starts_with("/proc/self/exe ") ? r.commands.erase(it) : std::next(it);
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
  if (below != tree.end() && below->first.starts_with(p + "/")) return SnapshotNode::Kind::directory;
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

// The keys amdml-host.json gives a meaning of its own; every other key is a recorded fact.
bool is_manifest_key(const std::string& key) {
  static const char* kKeys[] = {"format", "uname",  "process",  "sudo_user", "env",
                                "devices", "container", "commands", "errors", "snapshot"};
  for (const char* k : kKeys)
    if (key == k) return true;
  return false;
}


}  // namespace

json host_manifest_json(const HostManifest& m) {
  json j = json::object();
  j["format"] = 1;
  if (m.uname) {
    json u = json::object();
    if (m.uname->release) u["release"] = *m.uname->release;
    if (m.uname->machine) u["machine"] = *m.uname->machine;
    j["uname"] = u;
  }
  if (m.identity) {
    const Identity& id = *m.identity;
    json p = json::object();
    if (id.user) p["user"] = *id.user;
    if (id.uid) p["uid"] = *id.uid;
    if (id.gid) p["gid"] = *id.gid;
    if (id.euid) p["euid"] = *id.euid;
    if (id.groups) p["groups"] = *id.groups;
    j["process"] = p;
    j["sudo_user"] = id.sudo_user ? json(*id.sudo_user) : json(nullptr);
  }
  j["env"] = m.env;
  if (m.devices) {
    json devs = json::object();
    for (const auto& d : *m.devices) {
      json n = json::object();
      n["type"] = to_string(d.type);
      if (d.mode) n["mode"] = text::octal_mode(*d.mode & 07777);
      if (d.uid) n["uid"] = *d.uid;
      if (d.gid) n["gid"] = *d.gid;
      if (d.open == OpenCheck::ok) n["open"] = "ok";
      else if (d.open == OpenCheck::failed) n["open"] = errno_name(d.open_errno);
      devs[d.path] = n;
    }
    j["devices"] = devs;
  }
  if (m.container_recorded || m.container) j["container"] = m.container ? json(to_string(*m.container)) : json(nullptr);
  json cmds = json::object();
  for (const auto& [key, c] : m.commands) {
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
  for (const auto& [op, paths] : m.errors) {
    json byop = json::object();
    for (const auto& [path, e] : paths) byop[path] = {{"errno", errno_name(e.code)}, {"message", e.message}};
    if (!byop.empty()) errs[op] = byop;
  }
  if (!errs.empty()) j["errors"] = errs;
  for (const auto& [key, v] : m.facts)
    if (!is_manifest_key(key)) j[key] = v;
  if (m.snapshot)
    j["snapshot"] = {{"amdml_version", m.snapshot->amdml_version},
                     {"redacted", m.snapshot->redacted},
                     {"options", m.snapshot->options}};
  return j;
}

json snapshot_manifest(const Recording& r, const SnapshotMeta& meta) {
  HostManifest m;
  m.uname = r.uname;
  m.identity = r.identity;
  m.env = r.env;
  if (r.devices_asked) m.devices = r.devices;
  m.container_recorded = r.container_asked;
  if (r.container_asked) m.container = r.container;
  m.commands = r.commands;
  for (const auto& [op, paths] : r.errors)
    for (const auto& [path, e] : paths) {
      // "Does not exist" replays by itself when the path is absent from the tree.
      if ((e.code == ENOENT || e.code == ENOTDIR) &&
          !resolves_in_tree(r.tree, path, std::string(op) != "lstat" && std::string(op) != "readlink"))
        continue;
      m.errors[op][path] = e;
    }
  m.facts = r.facts;
  m.snapshot = meta;
  return host_manifest_json(m);
}

// ---- Reading the manifest ---------------------------------------------------------

namespace {

constexpr const char* kManifest = "amdml-host.json";

// An errno by its symbolic name; an unknown name reads as EACCES.
int errno_or_eacces(const std::string& name) { return errno_from_name(name).value_or(EACCES); }

// Reads a json field of an expected kind; a wrong kind is a manifest error.
template <class T>
Status get_opt(const json& obj, const char* key, const std::string& where, std::optional<T>& out) {
  auto it = obj.find(key);  // one lookup, not three
  if (it == obj.end() || it->is_null()) return {};
  const auto& v = *it;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return make_error(std::string(kManifest) + ": " + where + key + " must be a string");
    out = v.get<std::string>();
  } else {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0))
      return make_error(std::string(kManifest) + ": " + where + key + " must be a non-negative integer");
    out = static_cast<T>(v.get<unsigned long long>());
  }
  return {};
}

// "devices": {PATH: {"type", "mode", "uid", "gid", "open"}}, in path order.
Result<std::vector<DeviceNode>> read_devices(const json& devices) {
  std::vector<DeviceNode> nodes;
  nodes.reserve(devices.size());
  for (const auto& [path, v] : devices.items()) {
    if (!v.is_object()) return make_error(std::string(kManifest) + ": devices." + path + " must be an object");
    DeviceNode d;
    d.path = path;
    const std::string where = "devices." + path + ".";
    std::optional<std::string> type;
    AMDML_TRY_STATUS(get_opt(v, "type", where, type));
    if (type && *type == "block") d.type = FileType::block_device;
    else if (type && *type == "dir") d.type = FileType::directory;
    else d.type = FileType::char_device;
    if (auto m = v.find("mode"); m != v.end() && !m->is_null()) {
      unsigned long long mode = 010000;  // refused unless an octal string or an integer says less
      if (m->is_string()) {
        const auto& ms = m->get_ref<const std::string&>();
        char* end = nullptr;
        mode = std::strtoull(ms.c_str(), &end, 8);
        if (ms.empty() || *end != '\0') mode = 010000;
      } else if (m->is_number_unsigned() || (m->is_number_integer() && m->get<long long>() == 0)) {
        mode = m->get<unsigned long long>();
      }
      if (mode > 07777) return make_error(std::string(kManifest) + ": " + where + "mode must be octal like \"0660\"");
      d.mode = static_cast<std::uint32_t>(mode);
    }
    AMDML_TRY_STATUS(get_opt(v, "uid", where, d.uid));
    AMDML_TRY_STATUS(get_opt(v, "gid", where, d.gid));
    std::optional<std::string> open;
    AMDML_TRY_STATUS(get_opt(v, "open", where, open));
    if (open) {
      if (*open == "ok") {
        d.open = OpenCheck::ok;
      } else {
        d.open = OpenCheck::failed;
        d.open_errno = errno_or_eacces(*open);
      }
    }
    nodes.push_back(std::move(d));
  }
  return nodes;
}

// "commands": {"argv joined": "stdout" | {"exit_code", "stdout", "stderr", "timed_out",
// "signal"} | {"error", "errno"}}.
Result<std::map<std::string, RecordedCommand>> read_commands(const json& commands) {
  std::map<std::string, RecordedCommand> out;
  for (const auto& [key, c] : commands.items()) {
    RecordedCommand rc;
    if (c.is_string()) {
      // The short form: the output of a program that exited 0.
      rc.result = CommandResult{};
      rc.result->exit_code = 0;
      rc.result->out = c.get<std::string>();
      out[key] = std::move(rc);
      continue;
    }
    const std::string where = std::string(kManifest) + ": commands." + key;
    if (!c.is_object()) return make_error(where + " must be a string or an object");
    for (const char* f : {"exit_code", "signal"})
      if (c.contains(f) && !(c[f].is_number_integer() && c[f].get<long long>() >= -255 && c[f].get<long long>() <= 255))
        return make_error(where + "." + f + " must be an integer from -255 to 255");
    for (const char* f : {"stdout", "stderr"})
      if (c.contains(f) && !c[f].is_string()) return make_error(where + "." + f + " must be a string");
    if (c.contains("timed_out") && !c["timed_out"].is_boolean())
      return make_error(where + ".timed_out must be true or false");
    if (c.contains("error") && c["error"].is_string()) {
      // A program that could not be started on the recorded machine.
      rc.error = make_error(c["error"].get<std::string>(),
                            c.contains("errno") && c["errno"].is_string() ? errno_or_eacces(c["errno"].get<std::string>())
                                                                          : ENOENT);
    } else {
      CommandResult r;
      r.exit_code = c.value("exit_code", 0);
      r.out = c.value("stdout", std::string());
      r.err = c.value("stderr", std::string());
      r.timed_out = c.value("timed_out", false);
      r.signal = c.value("signal", 0);
      rc.result = std::move(r);
    }
    out[key] = std::move(rc);
  }
  return out;
}

// "errors": {"read": {"/path": {"errno": "EACCES", "message": "..."}}, ...} -- failures
// amdml snapshot saw on the recorded machine, replayed as they were.
Result<std::map<std::string, std::map<std::string, RecordedError>>> read_errors(const json& errors) {
  std::map<std::string, std::map<std::string, RecordedError>> out;
  for (const auto& [op, paths] : errors.items()) {
    if (!paths.is_object()) return make_error(std::string(kManifest) + ": errors." + op + " must be an object");
    for (const auto& [path, e] : paths.items()) {
      if (!e.is_object() || !e.contains("errno") || !e["errno"].is_string() ||
          (e.contains("message") && !e["message"].is_string()))
        return make_error(std::string(kManifest) + ": errors." + op + "." + path +
                          " must be {\"errno\": NAME, \"message\": TEXT}");
      const int code = errno_or_eacces(e["errno"].get<std::string>());
      out[op][path] = RecordedError{code, e.value("message", path + ": " + std::strerror(code))};
    }
  }
  return out;
}

Result<HostManifest> parse_manifest_doc(const std::string& text) {
  HostManifest m;
  auto parsed = parse_json(text);
  if (!parsed) return make_error(std::string(kManifest) + ": " + parsed.error().message);
  json doc = std::move(*parsed);
  if (!doc.is_object()) return make_error(std::string(kManifest) + ": must be a JSON object");
  if (doc.contains("format") && !(doc["format"].is_number_integer() && doc["format"].get<long long>() == 1))
    return make_error(std::string(kManifest) + ": unsupported format (amdml reads format 1)");
  if (doc.contains("uname") && !doc["uname"].is_null()) {
    const auto& u = doc["uname"];
    if (!u.is_object()) return make_error(std::string(kManifest) + ": uname must be an object");
    m.uname.emplace();
    if (auto s = get_opt(u, "release", "uname.", m.uname->release); !s) return s.error();
    if (auto s = get_opt(u, "machine", "uname.", m.uname->machine); !s) return s.error();
  }
  Identity id;
  bool have_identity = false;
  if (doc.contains("process") && !doc["process"].is_null()) {
    const auto& p = doc["process"];
    if (!p.is_object()) return make_error(std::string(kManifest) + ": process must be an object");
    have_identity = true;
    if (auto s = get_opt(p, "user", "process.", id.user); !s) return s.error();
    if (auto s = get_opt(p, "uid", "process.", id.uid); !s) return s.error();
    if (auto s = get_opt(p, "gid", "process.", id.gid); !s) return s.error();
    if (auto s = get_opt(p, "euid", "process.", id.euid); !s) return s.error();
    if (p.contains("groups") && !p["groups"].is_null()) {
      if (!p["groups"].is_array()) return make_error(std::string(kManifest) + ": process.groups must be an array");
      std::vector<std::uint32_t> g;
      for (const auto& x : p["groups"]) {
        if (!x.is_number_integer() || x.get<long long>() < 0)
          return make_error(std::string(kManifest) + ": process.groups must hold non-negative integers");
        g.push_back(static_cast<std::uint32_t>(x.get<long long>()));
      }
      id.groups = g;
    }
  }
  if (auto s = get_opt(doc, "sudo_user", "", id.sudo_user); !s) return s.error();
  if (have_identity || id.sudo_user) m.identity = std::move(id);
  if (doc.contains("env") && !doc["env"].is_null()) {
    if (!doc["env"].is_object()) return make_error(std::string(kManifest) + ": env must be an object");
    for (const auto& [k, v] : doc["env"].items()) {
      if (!v.is_string()) return make_error(std::string(kManifest) + ": env." + k + " must be a string");
      m.env[k] = v.get<std::string>();
    }
  }
  if (doc.contains("devices") && !doc["devices"].is_null()) {
    if (!doc["devices"].is_object()) return make_error(std::string(kManifest) + ": devices must be an object");
    AMDML_TRY(auto nodes, read_devices(doc["devices"]));
    m.devices = std::move(nodes);
  }
  if (doc.contains("container")) {
    m.container_recorded = true;
    if (!doc["container"].is_null()) {
      if (!doc["container"].is_string())
        return make_error(std::string(kManifest) + ": container must be a string or null");
      auto k = parse_container_kind(doc["container"].get<std::string>());
      if (!k) return make_error(std::string(kManifest) + ": container must be one of docker, podman, kubernetes, lxc, other");
      m.container = *k;
    }
  }
  if (doc.contains("commands") && !doc["commands"].is_null()) {
    if (!doc["commands"].is_object()) return make_error(std::string(kManifest) + ": commands must be an object");
    AMDML_TRY(m.commands, read_commands(doc["commands"]));
  }
  if (doc.contains("errors") && !doc["errors"].is_null()) {
    if (!doc["errors"].is_object()) return make_error(std::string(kManifest) + ": errors must be an object");
    AMDML_TRY(m.errors, read_errors(doc["errors"]));
  }
  if (doc.contains("snapshot") && doc["snapshot"].is_object()) {
    const auto& s = doc["snapshot"];
    SnapshotMeta meta;
    if (s.contains("amdml_version") && s["amdml_version"].is_string()) meta.amdml_version = s["amdml_version"];
    if (s.contains("redacted") && s["redacted"].is_boolean()) meta.redacted = s["redacted"];
    if (s.contains("options")) meta.options = s["options"];
    m.snapshot = std::move(meta);
  }
  for (auto& [key, v] : doc.items())
    if (!is_manifest_key(key)) m.facts[key] = std::move(v);
  return m;
}

}  // namespace

Result<HostManifest> parse_host_manifest(const std::string& text) {
  auto m = parse_manifest_doc(text);
  // Messages name the manifest's keys, which may hold newlines: keep them one line.
  if (!m) return make_error(text::one_line(m.error().message), m.error().code);
  return m;
}

}  // namespace amdml::formats