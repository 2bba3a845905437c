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
  for (const std::string_view s : parse::dpkg_stanzas(text)) {
    const std::string stanza(s);
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

// A device node's field as the parse saw it: only what the checks below ask of it.
struct RawValue {
  enum class Kind { none, other, negative, non_negative, string } kind = Kind::none;  // none: absent or null
  unsigned long long number = 0;  // non_negative
  std::string text;               // string
};

// "devices": {PATH: {"type", "mode", "uid", "gid", "open"}} as they are in the text; the
// value of a path that is not an object is remembered as such, to be refused in order.
struct RawDevice {
  bool object = false;
  RawValue type, mode, uid, gid, open;
};

// "devices" as read: every path with its value, in the order of the text.
struct RawDevices {
  std::vector<std::pair<std::string, RawDevice>> list;

  // Path order, each path once with its last value (as a document keeps a repeated key).
  std::vector<const std::pair<std::string, RawDevice>*> sorted() const {
    std::vector<const std::pair<std::string, RawDevice>*> out;
    out.reserve(list.size());
    for (const auto& d : list) out.push_back(&d);
    std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    std::size_t n = 0;
    for (const auto* d : out) {
      if (n > 0 && out[n - 1]->first == d->first) out[n - 1] = d;  // a later one of the same path
      else out[n++] = d;
    }
    out.resize(n);
    return out;
  }
};

// The manifest's parse: every key into a JSON document as parse_json builds it, except
// the "devices" object, read straight into RawDevices (a 16-GPU MI300X node has 258
// device nodes: a document of them was most of reading the manifest). The document gets
// null in its place. Keys repeat as in a document: the last one wins.
class ManifestSax {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<json>;

  explicit ManifestSax(json& doc) : dom_(doc, false) {}

  // The last "devices" value, when it was an object.
  std::optional<RawDevices> devices;

  bool null() { return scalar(RawValue{}, [&] { return dom_.null(); }); }
  bool boolean(bool v) { return scalar(RawValue{RawValue::Kind::other, 0, {}}, [&] { return dom_.boolean(v); }); }
  bool number_integer(json::number_integer_t v) {
    // A negative number; "-0" reads as an integer 0, which a non-negative field takes.
    RawValue r{v == 0 ? RawValue::Kind::non_negative : RawValue::Kind::negative, 0, {}};
    return scalar(std::move(r), [&] { return dom_.number_integer(v); });
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return scalar(RawValue{RawValue::Kind::non_negative, v, {}}, [&] { return dom_.number_unsigned(v); });
  }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return scalar(RawValue{RawValue::Kind::other, 0, {}}, [&] { return dom_.number_float(v, s); });
  }
  bool string(json::string_t& v) {
    if (!in_devices()) return forward_value([&] { return dom_.string(v); });
    return scalar(RawValue{RawValue::Kind::string, 0, v}, [] { return true; });
  }
  bool binary(json::binary_t& v) { return forward_value([&] { return dom_.binary(v); }); }
  bool start_object(std::size_t n) {
    if (depth_ == 1 && devices_next_) {  // "devices": {
      devices_next_ = false;
      devices.emplace();
      devices_depth_ = ++depth_;
      return dom_.null();
    }
    if (in_devices()) {
      if (depth_ == devices_depth_) device_->object = true;
      else if (depth_ == devices_depth_ + 1 && field_) field_->kind = RawValue::Kind::other;
      ++depth_;
      return true;
    }
    ++depth_;
    return dom_.start_object(n);
  }
  bool end_object() {
    --depth_;
    if (devices_depth_ && depth_ == devices_depth_ - 1) {  // the devices object closes
      devices_depth_ = 0;
      return true;
    }
    if (in_devices()) return true;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    if (in_devices()) {
      if (depth_ == devices_depth_ + 1 && field_) field_->kind = RawValue::Kind::other;
      ++depth_;
      return true;
    }
    devices_next_ = false;
    ++depth_;
    return dom_.start_array(n);
  }
  bool end_array() {
    --depth_;
    if (in_devices()) return true;
    return dom_.end_array();
  }
  bool key(json::string_t& k) {
    if (in_devices()) {
      if (depth_ == devices_depth_) {
        device_ = &devices->list.emplace_back(k, RawDevice{}).second;
        field_ = nullptr;
      } else if (depth_ == devices_depth_ + 1) {
        field_ = k == "type" ? &device_->type
                 : k == "mode" ? &device_->mode
                 : k == "uid"  ? &device_->uid
                 : k == "gid"  ? &device_->gid
                 : k == "open" ? &device_->open
                               : nullptr;
      }
      return true;
    }
    if (depth_ == 1 && k == "devices") {
      devices_next_ = true;
      devices.reset();  // a later "devices" replaces an earlier one
    }
    return dom_.key(k);
  }
  bool parse_error(std::size_t pos, const std::string& token, const nlohmann::detail::exception& e) {
    return dom_.parse_error(pos, token, e);
  }

 private:
  // Inside the devices object (its own depth and below).
  bool in_devices() const { return devices_depth_ > 0 && depth_ >= devices_depth_; }

  template <class F>
  bool forward_value(F&& f) {
    devices_next_ = false;
    return f();
  }
  // A scalar: a device's field (the last one wins), or the document's value.
  template <class F>
  bool scalar(RawValue v, F&& f) {
    if (!in_devices()) return forward_value(std::forward<F>(f));
    if (depth_ == devices_depth_) device_->object = false;
    else if (depth_ == devices_depth_ + 1 && field_) *field_ = std::move(v);
    return true;
  }

  Dom dom_;
  int depth_ = 0;              // containers open at this event
  int devices_depth_ = 0;      // inside the devices object: its depth (2), else 0
  bool devices_next_ = false;  // the last event was the top-level key "devices"
  RawDevice* device_ = nullptr;
  RawValue* field_ = nullptr;
};

// get_opt for a device's field; the error names devices.PATH.KEY.
Status raw_string(const RawValue& v, const std::string& path, const char* key, std::optional<std::string>& out) {
  if (v.kind == RawValue::Kind::none) return {};
  if (v.kind != RawValue::Kind::string)
    return make_error(std::string(kManifest) + ": devices." + path + "." + key + " must be a string");
  out = v.text;
  return {};
}
Status raw_id(const RawValue& v, const std::string& path, const char* key, std::optional<std::uint32_t>& out) {
  if (v.kind == RawValue::Kind::none) return {};
  if (v.kind != RawValue::Kind::non_negative)
    return make_error(std::string(kManifest) + ": devices." + path + "." + key + " must be a non-negative integer");
  out = static_cast<std::uint32_t>(v.number);
  return {};
}

Result<std::vector<DeviceNode>> read_devices(const RawDevices& raw) {
  std::vector<DeviceNode> nodes;
  const auto devices = raw.sorted();
  nodes.reserve(devices.size());
  for (const auto* entry : devices) {
    const auto& [path, v] = *entry;
    if (!v.object) return make_error(std::string(kManifest) + ": devices." + path + " must be an object");
    DeviceNode d;
    d.path = path;
    std::optional<std::string> type;
    if (auto s = raw_string(v.type, path, "type", type); !s) return s.error();
    if (type && *type == "block") d.type = FileType::block_device;
    else if (type && *type == "dir") d.type = FileType::directory;
    else d.type = FileType::char_device;
    if (v.mode.kind != RawValue::Kind::none) {
      unsigned long long mode = 010000;  // refused unless an octal string or an integer says less
      if (v.mode.kind == RawValue::Kind::string) {
        char* end = nullptr;
        mode = std::strtoul(v.mode.text.c_str(), &end, 8);
        if (v.mode.text.empty() || *end != '\0') mode = 010000;
      } else if (v.mode.kind == RawValue::Kind::non_negative) {
        mode = v.mode.number;
      }
      if (mode > 07777)
        return make_error(std::string(kManifest) + ": devices." + path + ".mode must be octal like \"0660\"");
      d.mode = static_cast<std::uint32_t>(mode);
    }
    if (auto s = raw_id(v.uid, path, "uid", d.uid); !s) return s.error();
    if (auto s = raw_id(v.gid, path, "gid", d.gid); !s) return s.error();
    std::optional<std::string> open;
    if (auto s = raw_string(v.open, path, "open", open); !s) return s.error();
    if (open) {
      if (*open == "ok") d.open = OpenCheck::ok;
      else {
        d.open = OpenCheck::failed;
        d.open_errno = errno_or_eacces(*open);
      }
    }
    nodes.push_back(std::move(d));
  }
  return nodes;
}

Result<HostManifest> parse_manifest_doc(const std::string& text) {
  HostManifest m;
  json doc;
  std::optional<RawDevices> devices;
  bool read = false;
  {
    ManifestSax plain(doc);
    read = parse_plain_json(text, plain);
    if (read) devices = std::move(plain.devices);
  }
  if (!read) {  // not plain JSON (or not JSON): nlohmann's parser decides, from the start
    doc = json();
    ManifestSax sax(doc);
    if (auto parsed = parse_json_sax(text, sax); !parsed)
      return make_error(std::string(kManifest) + ": " + parsed.error().message);
    devices = std::move(sax.devices);
  }
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
  if (devices) {
    AMDML_TRY(auto nodes, read_devices(*devices));
    m.devices = std::move(nodes);
  } else if (doc.contains("devices") && !doc["devices"].is_null()) {
    return make_error(std::string(kManifest) + ": devices must be an object");
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
    for (const auto& [key, c] : doc["commands"].items()) {
      RecordedCommand rc;
      if (c.is_string()) {
        // The short form: the output of a program that exited 0.
        rc.result = CommandResult{};
        rc.result->exit_code = 0;
        rc.result->out = c.get<std::string>();
        m.commands[key] = std::move(rc);
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
      m.commands[key] = std::move(rc);
    }
  }
  // "errors": {"read": {"/path": {"errno": "EACCES", "message": "..."}}, ...} -- failures
  // amdml snapshot saw on the recorded machine, replayed as they were.
  if (doc.contains("errors") && !doc["errors"].is_null()) {
    if (!doc["errors"].is_object()) return make_error(std::string(kManifest) + ": errors must be an object");
    for (const auto& [op, paths] : doc["errors"].items()) {
      if (!paths.is_object()) return make_error(std::string(kManifest) + ": errors." + op + " must be an object");
      for (const auto& [path, e] : paths.items()) {
        if (!e.is_object() || !e.contains("errno") || !e["errno"].is_string() ||
            (e.contains("message") && !e["message"].is_string()))
          return make_error(std::string(kManifest) + ": errors." + op + "." + path +
                            " must be {\"errno\": NAME, \"message\": TEXT}");
        const int code = errno_or_eacces(e["errno"].get<std::string>());
        m.errors[op][path] = RecordedError{code, e.value("message", path + ": " + std::strerror(code))};
      }
    }
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