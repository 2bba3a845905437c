// RootedHost: a machine described by a directory tree (--root DIR) plus
// DIR/amdml-host.json for what is not a file. Every path resolves inside DIR.
#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/errno_names.hpp"
#include "formats/json.hpp"
#include "platform/host.hpp"
#include "formats/system_files.hpp"
#include "formats/snapshot.hpp"
#include "platform/fs.hpp"
#include "platform/hosts.hpp"

namespace amdml::platform {
namespace {

constexpr int kMaxSymlinkHops = 40;
constexpr const char* kManifest = "amdml-host.json";

// An errno by its symbolic name (base/errno_names.hpp); an unknown name reads as EACCES.
int errno_or_eacces(const std::string& name) { return errno_from_name(name).value_or(EACCES); }

// Reads a json field of an expected kind; a wrong kind is a manifest error.
template <class T>
Status get_opt(const nlohmann::json& obj, const char* key, const std::string& where, std::optional<T>& out) {
  if (!obj.contains(key) || obj[key].is_null()) return {};
  const auto& v = obj[key];
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

struct Manifest {
  nlohmann::json doc = nlohmann::json::object();
  Identity identity;
  Uname uname;
  std::map<std::string, std::string> env;
  std::optional<std::vector<DeviceNode>> devices;
  std::optional<ContainerKind> container;
  std::map<std::string, std::map<std::string, Error>> errors;  // op -> path -> recorded failure
};

Result<Manifest> parse_manifest(const std::string& text) {
  Manifest m;
  auto parsed = parse_json(text);
  if (!parsed) return make_error(std::string(kManifest) + ": " + parsed.error().message);
  nlohmann::json doc = std::move(*parsed);
  if (!doc.is_object()) return make_error(std::string(kManifest) + ": must be a JSON object");
  if (doc.contains("format") && !(doc["format"].is_number_integer() && doc["format"].get<long long>() == 1))
    return make_error(std::string(kManifest) + ": unsupported format (amdml reads format 1)");
  if (doc.contains("uname") && !doc["uname"].is_null()) {
    const auto& u = doc["uname"];
    if (!u.is_object()) return make_error(std::string(kManifest) + ": uname must be an object");
    AMDML_TRY_STATUS(get_opt(u, "release", "uname.", m.uname.release));
    AMDML_TRY_STATUS(get_opt(u, "machine", "uname.", m.uname.machine));
  }
  if (doc.contains("process") && !doc["process"].is_null()) {
    const auto& p = doc["process"];
    if (!p.is_object()) return make_error(std::string(kManifest) + ": process must be an object");
    AMDML_TRY_STATUS(get_opt(p, "user", "process.", m.identity.user));
    AMDML_TRY_STATUS(get_opt(p, "uid", "process.", m.identity.uid));
    AMDML_TRY_STATUS(get_opt(p, "gid", "process.", m.identity.gid));
    AMDML_TRY_STATUS(get_opt(p, "euid", "process.", m.identity.euid));
    if (p.contains("groups") && !p["groups"].is_null()) {
      if (!p["groups"].is_array()) return make_error(std::string(kManifest) + ": process.groups must be an array");
      std::vector<std::uint32_t> g;
      for (const auto& x : p["groups"]) {
        if (!x.is_number_integer() || x.get<long long>() < 0)
          return make_error(std::string(kManifest) + ": process.groups must hold non-negative integers");
        g.push_back(static_cast<std::uint32_t>(x.get<long long>()));
      }
      m.identity.groups = g;
    }
  }
  AMDML_TRY_STATUS(get_opt(doc, "sudo_user", "", m.identity.sudo_user));
  if (doc.contains("env") && !doc["env"].is_null()) {
    if (!doc["env"].is_object()) return make_error(std::string(kManifest) + ": env must be an object");
    for (const auto& [k, v] : doc["env"].items()) {
      if (!v.is_string()) return make_error(std::string(kManifest) + ": env." + k + " must be a string");
      m.env[k] = v.get<std::string>();
    }
  }
  if (doc.contains("devices") && !doc["devices"].is_null()) {
    if (!doc["devices"].is_object()) return make_error(std::string(kManifest) + ": devices must be an object");
    std::vector<DeviceNode> nodes;
    for (const auto& [path, v] : doc["devices"].items()) {
      if (!v.is_object()) return make_error(std::string(kManifest) + ": devices." + path + " must be an object");
      DeviceNode d;
      d.path = path;
      std::optional<std::string> type;
      AMDML_TRY_STATUS(get_opt(v, "type", "devices." + path + ".", type));
      if (type && *type == "block") d.type = FileType::block_device;
      else if (type && *type == "dir") d.type = FileType::directory;
      else d.type = FileType::char_device;
      if (v.contains("mode") && !v["mode"].is_null()) {
        if (v["mode"].is_string()) {
          const std::string ms = v["mode"].get<std::string>();
          char* end = nullptr;
          unsigned long mode = std::strtoul(ms.c_str(), &end, 8);
          if (ms.empty() || *end != '\0' || mode > 07777)
            return make_error(std::string(kManifest) + ": devices." + path + ".mode must be octal like \"0660\"");
          d.mode = static_cast<std::uint32_t>(mode);
        } else if (v["mode"].is_number_integer() && v["mode"].get<long long>() >= 0 && v["mode"].get<long long>() <= 07777) {
          d.mode = static_cast<std::uint32_t>(v["mode"].get<long long>());
        } else {
          return make_error(std::string(kManifest) + ": devices." + path + ".mode must be octal like \"0660\"");
        }
      }
      AMDML_TRY_STATUS(get_opt(v, "uid", "devices." + path + ".", d.uid));
      AMDML_TRY_STATUS(get_opt(v, "gid", "devices." + path + ".", d.gid));
      std::optional<std::string> open;
      AMDML_TRY_STATUS(get_opt(v, "open", "devices." + path + ".", open));
      if (open) {
        if (*open == "ok") d.open = OpenCheck::ok;
        else {
          d.open = OpenCheck::failed;
          d.open_errno = errno_or_eacces(*open);
        }
      }
      nodes.push_back(std::move(d));
    }
    m.devices = std::move(nodes);
  }
  if (doc.contains("container") && !doc["container"].is_null()) {
    if (!doc["container"].is_string()) return make_error(std::string(kManifest) + ": container must be a string or null");
    auto k = parse_container_kind(doc["container"].get<std::string>());
    if (!k) return make_error(std::string(kManifest) + ": container must be one of docker, podman, kubernetes, lxc, other");
    m.container = *k;
  }
  if (doc.contains("commands") && !doc["commands"].is_null()) {
    if (!doc["commands"].is_object()) return make_error(std::string(kManifest) + ": commands must be an object");
    // Checked here so run() can read the fields without a type error thrown mid-probe.
    for (const auto& [key, c] : doc["commands"].items()) {
      if (c.is_string()) continue;
      const std::string where = std::string(kManifest) + ": commands." + key;
      if (!c.is_object()) return make_error(where + " must be a string or an object");
      for (const char* f : {"exit_code", "signal"})
        if (c.contains(f) && !(c[f].is_number_integer() && c[f].get<long long>() >= -255 && c[f].get<long long>() <= 255))
          return make_error(where + "." + f + " must be an integer from -255 to 255");
      for (const char* f : {"stdout", "stderr"})
        if (c.contains(f) && !c[f].is_string()) return make_error(where + "." + f + " must be a string");
      if (c.contains("timed_out") && !c["timed_out"].is_boolean())
        return make_error(where + ".timed_out must be true or false");
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
        std::string msg = e.value("message", path + ": " + errno_text(errno_or_eacces(e["errno"].get<std::string>())));
        m.errors[op][path] = make_error(msg, errno_or_eacces(e["errno"].get<std::string>()));
      }
    }
  }
  m.doc = std::move(doc);
  return m;
}

class RootedHost final : public Host {
 public:
  RootedHost(std::string root, Manifest m) : root_(std::move(root)), m_(std::move(m)) {}

  bool live() const override { return false; }
  const std::string& root() const override { return root_; }

  Result<std::string> read_file(const std::string& path, std::size_t limit) const override {
    if (auto e = recorded_error("read", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    return read_real_file(root_ + real.second, path, limit);
  }
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    if (auto e = recorded_error("list", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    return list_real_dir(root_ + real.second, path);
  }
  Result<std::string> read_link(const std::string& path) const override {
    if (auto e = recorded_error("readlink", path)) return *e;
    AMDML_TRY(auto real, resolve(path, false));
    return read_real_link(root_ + real.second, path);
  }
  Result<FileStat> stat(const std::string& path) const override {
    if (auto e = recorded_error("stat", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    return stat_real(root_ + real.second, path, false);
  }
  Result<FileStat> lstat(const std::string& path) const override {
    if (auto e = recorded_error("lstat", path)) return *e;
    AMDML_TRY(auto real, resolve(path, false));
    return stat_real(root_ + real.second, path, false);
  }
  Result<std::string> canonical(const std::string& path) const override {
    if (auto e = recorded_error("canonical", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    if (!real.first) return make_error(path + ": " + errno_text(ENOENT), ENOENT);
    return real.second;
  }

  Identity identity() const override { return m_.identity; }
  std::optional<std::string> env(const std::string& name) const override {
    auto it = m_.env.find(name);
    if (it == m_.env.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, std::string> environment() const override { return m_.env; }
  Uname uname() const override { return m_.uname; }
  std::optional<std::vector<DeviceNode>> devices() const override { return m_.devices; }
  std::optional<ContainerKind> container() const override { return m_.container; }
  std::optional<nlohmann::json> recorded(const std::string& key) const override {
    if (!m_.doc.contains(key)) return std::nullopt;
    return m_.doc[key];
  }
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override {
    std::string key;
    for (const auto& a : argv) key += (key.empty() ? "" : " ") + a;
    if (!m_.doc.contains("commands") || !m_.doc["commands"].contains(key))
      return make_error(key + ": not recorded in amdml-host.json", ENOENT);
    const auto& c = m_.doc["commands"][key];
    // A program that could not be started on the recorded machine.
    if (c.is_object() && c.contains("error") && c["error"].is_string())
      return make_error(c["error"].get<std::string>(),
                        c.contains("errno") && c["errno"].is_string() ? errno_or_eacces(c["errno"].get<std::string>()) : ENOENT);
    CommandResult r;
    if (c.is_string()) {
      r.exit_code = 0;
      r.out = c.get<std::string>();
      return r;
    }
    if (!c.is_object()) return make_error(std::string(kManifest) + ": commands." + key + " must be an object");
    r.exit_code = c.value("exit_code", 0);
    r.out = c.value("stdout", std::string());
    r.err = c.value("stderr", std::string());
    r.timed_out = c.value("timed_out", false);
    r.signal = c.value("signal", 0);
    return r;
  }

 private:
  std::optional<Error> recorded_error(const char* op, const std::string& path) const {
    auto o = m_.errors.find(op);
    if (o == m_.errors.end()) return std::nullopt;
    auto p = o->second.find(path);
    if (p == o->second.end()) return std::nullopt;
    return p->second;
  }

  // Resolves path inside the root. Returns (exists, inner path with symlinks resolved);
  // a missing component ends resolution there (the caller's syscall reports ENOENT).
  //
  // The walk lstat()s each component, which made a run on a 4-GPU tree cost ~1800
  // stat calls (sysfs device paths are ten components deep and every file re-walked
  // them). A recorded machine does not change while amdml reads it, so what each
  // component is -- a directory or file, or a symlink and its target -- is looked up
  // once per host and remembered. Missing components are not remembered, and the final
  // syscall always runs on the real path, so a stale entry can only make a read fail.
  Result<std::pair<bool, std::string>> resolve(const std::string& path, bool follow_last) const {
    std::vector<std::string> todo = paths::split_path(path);
    std::reverse(todo.begin(), todo.end());
    std::string cur;  // the resolved inner path so far ("" is the root)
    int hops = 0;
    bool exists = true;
    auto pop = [&cur] {
      auto slash = cur.rfind('/');
      cur.resize(slash == std::string::npos ? 0 : slash);
    };
    while (!todo.empty()) {
      std::string c = std::move(todo.back());
      todo.pop_back();
      if (c == ".") continue;
      if (c == "..") {
        if (!cur.empty()) pop();
        continue;
      }
      cur += '/';
      cur += c;
      if (!exists) continue;
      if (todo.empty() && !follow_last) break;
      const Node* node = lookup(cur);
      if (!node) {
        exists = false;
        continue;
      }
      if (!node->symlink) continue;
      if (++hops > kMaxSymlinkHops) return make_error(path + ": too many levels of symbolic links", ELOOP);
      pop();
      if (!node->target.empty() && node->target[0] == '/') cur.clear();
      auto parts = paths::split_path(node->target);
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
    }
    return std::make_pair(exists, cur.empty() ? std::string("/") : cur);
  }

  struct Node {
    bool symlink = false;
    std::string target;  // the link's text, when symlink
  };

  // What the component at inner path p is, or nullptr when it does not exist.
  const Node* lookup(const std::string& p) const {
    if (auto it = nodes_.find(p); it != nodes_.end()) return &it->second;
    std::string real = root_ + p;
    struct ::stat st {};
    if (::lstat(real.c_str(), &st) != 0) return nullptr;
    Node n;
    if (S_ISLNK(st.st_mode)) {
      auto target = read_real_link(real, p);
      if (!target) return nullptr;
      n.symlink = true;
      n.target = std::move(*target);
    }
    return &nodes_.emplace(p, std::move(n)).first->second;
  }

  mutable std::unordered_map<std::string, Node> nodes_;
  std::string root_;
  Manifest m_;
};

}  // namespace

Result<std::unique_ptr<Host>> make_rooted_host(const std::string& root_in) {
  std::string root = root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  struct ::stat st {};
  if (::stat(root.c_str(), &st) != 0)
    return make_error("--root " + root_in + ": " + errno_text(errno), errno);
  if (!S_ISDIR(st.st_mode)) return make_error("--root " + root_in + ": not a directory", ENOTDIR);
  char* abs = ::realpath(root.c_str(), nullptr);
  if (abs) {
    root = abs;
    std::free(abs);
  }
  std::optional<std::string> manifest;
  std::string mpath = root + "/" + kManifest;
  if (::lstat(mpath.c_str(), &st) == 0) {
    AMDML_TRY(manifest, read_real_file(mpath, mpath, kMaxManifestBytes));
  }
  auto host = make_rooted_host_from_manifest(root, manifest);
  if (!host) return make_error(root_in + "/" + host.error().message);
  return host;
}

Result<std::unique_ptr<Host>> make_rooted_host_from_manifest(const std::string& root,
                                                             const std::optional<std::string>& manifest) {
  Manifest m;
  if (manifest) {
    auto parsed = parse_manifest(*manifest);
    // Messages name the manifest's keys, which may hold newlines: keep them one line.
    if (!parsed) return make_error(text::one_line(parsed.error().message), parsed.error().code);
    m = std::move(*parsed);
  }
  return std::unique_ptr<Host>(std::make_unique<RootedHost>(root, std::move(m)));
}

}  // namespace amdml::platform
