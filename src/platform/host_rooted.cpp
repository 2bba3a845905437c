// RootedHost: a machine described by a directory tree (--root DIR) plus
// DIR/amdml-host.json for what is not a file. Every path resolves inside DIR.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/fd.hpp"
#include "base/text.hpp"
#include "platform/host.hpp"
#include "formats/system_files.hpp"
#include "formats/host_manifest.hpp"
#include "platform/fs.hpp"
#include "platform/hosts.hpp"

namespace amdml::platform {
namespace {

constexpr int kMaxSymlinkHops = 40;
constexpr const char* kManifest = "amdml-host.json";  // formats/host_manifest.hpp reads it

class RootedHost final : public Host {
 public:
  // The root's descriptor: the files and links below it are opened relative to it, so
  // the kernel does not walk the root's own path for each (and no root+path string is
  // built); without it (it could not be opened), by their full paths.
  RootedHost(std::string root, formats::HostManifest m)
      : root_(std::move(root)), m_(std::move(m)), root_fd_(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}

  bool live() const override { return false; }
  const std::string& root() const override { return root_; }

  // Each file is read once per probe run: the PCI and DRM probes read the same sysfs
  // files, by different paths (/sys/bus/pci/devices/SLOT/vendor is
  // /sys/class/drm/cardN/device/vendor), so what was read is remembered by the path its
  // directory resolves to, until forget(). An error names the path asked for, so it is
  // reused only for that path.
  Result<std::string> read_file(const std::string& path, std::size_t limit) const override {
    if (auto e = recorded_error("read", path)) return *e;
    AMDML_TRY(auto parent, resolve(path, false));
    if (parent.err) return missing(path, parent.err);
    if (auto it = reads_.find(parent.path);
        it != reads_.end() && it->second.limit == limit && (it->second.result || it->second.shown == path))
      return it->second.result;
    auto r = read_uncached(path, parent.path, limit);
    reads_.insert_or_assign(std::move(parent.path), Read{limit, r ? std::string() : path, r});
    return r;
  }
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    if (auto e = recorded_error("list", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    if (real.err) return missing(path, real.err);
    // A directory is listed once per probe run (the DRM probe lists a device's drm/
    // through its PCI and its class link); lookup() takes what its entries are from the
    // listing rather than an lstat.
    if (auto it = lists_.find(real.path); it != lists_.end()) return it->second;
    auto r = list_real_dir(root_ + real.path, path);
    if (!r) return r;
    return lists_.emplace(real.path, std::move(*r)).first->second;
  }
  Result<std::string> read_link(const std::string& path) const override {
    if (auto e = recorded_error("readlink", path)) return *e;
    AMDML_TRY(auto real, resolve(path, false));
    if (real.err) return missing(path, real.err);
    return read_real_link(root_ + real.path, path);
  }
  Result<FileStat> stat(const std::string& path) const override {
    if (auto e = recorded_error("stat", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    if (real.err) return missing(path, real.err);
    return stat_real(root_ + real.path, path, false);
  }
  Result<FileStat> lstat(const std::string& path) const override {
    if (auto e = recorded_error("lstat", path)) return *e;
    AMDML_TRY(auto real, resolve(path, false));
    if (real.err) return missing(path, real.err);
    return stat_real(root_ + real.path, path, false);
  }
  Result<std::string> canonical(const std::string& path) const override {
    if (auto e = recorded_error("canonical", path)) return *e;
    AMDML_TRY(auto real, resolve(path, true));
    if (real.err) return make_error(path + ": " + errno_text(ENOENT), ENOENT);
    return real.path;
  }

  void forget() const override {
    nodes_.clear();
    dirs_.clear();
    reads_.clear();
    lists_.clear();
  }

  Identity identity() const override { return m_.identity.value_or(Identity{}); }
  std::optional<std::string> env(const std::string& name) const override {
    auto it = m_.env.find(name);
    if (it == m_.env.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, std::string> environment() const override { return m_.env; }
  Uname uname() const override { return m_.uname.value_or(Uname{}); }
  std::optional<std::vector<DeviceNode>> devices() const override { return m_.devices; }
  std::optional<ContainerKind> container() const override { return m_.container; }
  std::optional<nlohmann::json> recorded(const std::string& key) const override {
    auto it = m_.facts.find(key);
    if (it == m_.facts.end()) return std::nullopt;
    return it->second;
  }
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override {
    // Words joined by one blank, an empty first word too (" x" stays " x").
    const std::string key = text::join(argv, " ");
    auto it = m_.commands.find(key);
    if (it == m_.commands.end()) return make_error(key + ": not recorded in amdml-host.json", ENOENT);
    // A program that could not be started on the recorded machine.
    if (it->second.error) return *it->second.error;
    return it->second.result.value_or(CommandResult{});
  }

 private:
  // The error the syscall on path would give: a component on its way is missing (or
  // not a directory, or unreadable), as its lstat said.
  static Error missing(const std::string& path, int err) { return make_error(path + ": " + errno_text(err), err); }

  // The parents resolved (each component remembered), the file itself opened with
  // O_NOFOLLOW rather than lstat'ed first; only a symlink there (ELOOP) is resolved.
  // inner: path with its directory resolved.
  Result<std::string> read_uncached(const std::string& path, const std::string& inner, std::size_t limit) const {
    auto r = read_below_root(inner, path, limit, O_NOFOLLOW);
    if (r || r.error().code != ELOOP) return r;
    AMDML_TRY(auto real, resolve(path, true));
    if (real.err) return missing(path, real.err);
    return read_below_root(real.path, path, limit, 0);
  }

  // read_small_file of the inner path p, relative to the root's descriptor.
  Result<std::string> read_below_root(const std::string& p, const std::string& shown, std::size_t limit,
                                      int flags) const {
    if (!root_fd_) return read_small_file_at(AT_FDCWD, (root_ + p).c_str(), shown, limit, flags);
    return read_small_file_at(root_fd_.get(), p == "/" ? "." : p.c_str() + 1, shown, limit, flags);
  }

  std::optional<Error> recorded_error(const char* op, const std::string& path) const {
    auto o = m_.errors.find(op);
    if (o == m_.errors.end()) return std::nullopt;
    auto p = o->second.find(path);
    if (p == o->second.end()) return std::nullopt;
    return make_error(p->second.message, p->second.code);
  }

  struct Resolved {
    int err = 0;       // 0, or why a component on the way is not there (its lstat's errno)
    std::string path;  // the inner path with symlinks resolved
  };

  // Resolves path inside the root. A missing component ends resolution there: err says
  // why, and the caller fails with it without a syscall.
  //
  // The walk looks at each component (one readlink each: EINVAL means "not a link"), which
  // made a run on a 4-GPU tree cost ~1800 stat calls when it lstat'ed them all afresh
  // (sysfs device paths are ten components deep and every file re-walked them). A recorded machine does not change while amdml reads it, so what each
  // component is -- a directory or file, a symlink and its target, or missing (/usr in
  // most fixtures) -- is looked up once per probe run and remembered until forget().
  // The final syscall runs on the real path, so a stale entry can only make a read fail.
  //
  // Most paths share their directory with one resolved before (a device's files): each
  // directory is resolved once, from its own parent, and remembered too; a symlink is
  // followed by resolving its target the same way. hops counts the links followed on
  // the way; past the limit, or on any error, the component-by-component walk decides,
  // so loops and their messages are exactly the walk's.
  Result<Resolved> resolve(const std::string& path, bool follow_last, int hops = 0) const {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos || hops > kMaxSymlinkHops) return walk(path, follow_last);
    const std::string_view base = std::string_view(path).substr(slash + 1);
    if (base.empty()) return walk(path, follow_last);
    static const Resolved kRoot{0, "/"};
    const Resolved* parent = &kRoot;
    if (slash > 0) {
      auto it = dirs_.find(std::string_view(path).substr(0, slash));
      if (it == dirs_.end()) {
        std::string dir = path.substr(0, slash);
        auto d = resolve(dir, true, hops);
        if (!d) return walk(path, follow_last);  // the error names path
        it = dirs_.emplace(std::move(dir), std::move(*d)).first;
      }
      parent = &it->second;  // stays valid: an unordered_map keeps its elements in place
    }
    if (parent->err || base == ".") return *parent;
    std::string cur = parent->path == "/" ? std::string() : parent->path;
    if (base == "..") {  // the resolved parent's parent, as the walk pops
      cur.resize(cur.empty() ? 0 : cur.rfind('/'));
      return Resolved{0, cur.empty() ? std::string("/") : cur};
    }
    const std::size_t dir_end = cur.size();
    cur += '/';
    cur += base;
    if (!follow_last) return Resolved{0, std::move(cur)};
    const Node& node = lookup(cur);
    if (!node.symlink) return Resolved{node.err, std::move(cur)};
    auto target = resolve(link_target(cur.substr(0, dir_end), node.target), true, hops + 1);
    if (!target) return walk(path, true);
    return target;
  }

  // The path a symlink in the resolved directory dir points to. A relative target's
  // leading ".." pop dir itself, as the walk pops the resolved path (dir holds no links):
  // sysfs links are "../../devices/...", so /sys/class/drm/card1 and
  // /sys/bus/pci/devices/SLOT lead to the same /sys/devices/... directories, resolved
  // and remembered once, rather than to /sys/class/drm/../../devices/... and
  // /sys/bus/pci/devices/../../../devices/... (issue 16).
  static std::string link_target(std::string dir, std::string_view target) {
    if (!target.empty() && target[0] == '/') return std::string(target);
    for (;;) {
      if (target.rfind("./", 0) == 0) {
        target.remove_prefix(2);
      } else if (target.rfind("../", 0) == 0) {
        target.remove_prefix(3);
        dir.resize(dir.empty() ? 0 : dir.rfind('/'));
      } else {
        break;
      }
    }
    dir += '/';
    dir += target;
    return dir;
  }

  // resolve() without the remembered directories: component by component.
  Result<Resolved> walk(const std::string& path, bool follow_last) const {
    std::vector<std::string> todo = paths::split_path(path);
    std::reverse(todo.begin(), todo.end());
    std::string cur;  // the resolved inner path so far ("" is the root)
    int hops = 0;
    int err = 0;
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
      if (err) continue;
      if (todo.empty() && !follow_last) break;
      const Node& node = lookup(cur);
      if (node.err) {
        err = node.err;
        continue;
      }
      if (!node.symlink) continue;
      if (++hops > kMaxSymlinkHops) return make_error(path + ": too many levels of symbolic links", ELOOP);
      pop();
      if (!node.target.empty() && node.target[0] == '/') cur.clear();
      auto parts = paths::split_path(node.target);
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
    }
    return Resolved{err, cur.empty() ? std::string("/") : cur};
  }

  struct Node {
    int err = 0;  // not there: the errno of its readlink (an lstat's)
    bool symlink = false;
    std::string target;  // the link's text, when symlink
  };

  // What the component at inner path p is: its readlink (which answers what an lstat
  // would), or its entry in its directory's listing (kfd nodes, PCI devices, class links).
  const Node& lookup(const std::string& p) const {
    if (auto it = nodes_.find(p); it != nodes_.end()) return it->second;
    Node n;
    const std::optional<FileType> listed = listed_type(p);
    if (!listed || *listed == FileType::symlink) {
      // One readlink says what an lstat would (EINVAL: there, and not a link) and gives
      // a link's target with it.
      auto target = root_fd_ ? read_real_link_at(root_fd_.get(), p.c_str() + 1, p) : read_real_link(root_ + p, p);
      if (target) {
        n.symlink = true;
        n.target = std::move(*target);
      } else if (target.error().code != EINVAL) {
        n.err = target.error().code;
      }
    }
    return nodes_.emplace(p, std::move(n)).first->second;
  }

  // What the listing of p's directory, when it was listed, says p is (nullopt: not
  // listed, or the listing did not know).
  std::optional<FileType> listed_type(std::string_view p) const {
    const auto slash = p.rfind('/');
    auto it = lists_.find(slash == 0 ? std::string("/") : std::string(p.substr(0, slash)));
    if (it == lists_.end()) return std::nullopt;
    const std::string_view name = p.substr(slash + 1);
    auto e = std::lower_bound(it->second.begin(), it->second.end(), name,
                              [](const DirEntry& d, std::string_view n) { return d.name < n; });
    if (e == it->second.end() || e->name != name) return std::nullopt;
    if (e->type == FileType::other) return std::nullopt;
    return e->type;
  }

  struct Read {
    std::size_t limit;
    std::string shown;  // the path asked for, which an error names (kept with an error only)
    Result<std::string> result;
  };

  // Heterogeneous lookup: a directory is found by a view into the path asked for.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  mutable std::unordered_map<std::string, Node> nodes_;
  mutable std::unordered_map<std::string, Resolved, Hash, std::equal_to<>> dirs_;
  mutable std::unordered_map<std::string, Read> reads_;
  mutable std::unordered_map<std::string, std::vector<DirEntry>> lists_;  // by resolved path
  std::string root_;
  formats::HostManifest m_;
  Fd root_fd_;  // invalid: not open
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
    AMDML_TRY(manifest, read_real_file(mpath, mpath, formats::kMaxManifestBytes));
  }
  auto host = make_rooted_host_from_manifest(root, manifest);
  if (!host) return make_error(root_in + "/" + host.error().message);
  return host;
}

Result<std::unique_ptr<Host>> make_rooted_host_from_manifest(const std::string& root,
                                                             const std::optional<std::string>& manifest) {
  formats::HostManifest m;
  if (manifest) {
    auto parsed = formats::parse_host_manifest(*manifest);
    if (!parsed) return parsed.error();
    m = std::move(*parsed);
  }
  return std::unique_ptr<Host>(std::make_unique<RootedHost>(root, std::move(m)));
}

}  // namespace amdml::platform
