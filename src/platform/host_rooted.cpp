// RootedHost: a machine described by a directory tree (--root DIR) plus
// DIR/amdml-host.json for what is not a file. Every path resolves inside DIR, by the
// kernel: openat2(2) with RESOLVE_IN_ROOT resolves a path as it would for a process
// chrooted into DIR (absolute symlinks and ".." stay inside, loops end in ELOOP), so a
// replay meets the same resolution, errors included, as the live host. On a kernel
// without openat2 (before 5.6) the one resolver in base (paths::resolve_path) walks the
// path instead. Nothing is remembered between calls: the tree is read as it is now.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/fd.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "platform/host.hpp"
#include "formats/host_manifest.hpp"
#include "platform/fs.hpp"
#include "platform/hosts.hpp"

namespace amdml::platform {
namespace {

constexpr int kMaxSymlinkHops = 40;  // the kernel's own limit
constexpr int kOpenat2Attempts = 64;
constexpr const char* kManifest = "amdml-host.json";  // formats/host_manifest.hpp reads it

class RootedHost final : public Host {
 public:
  RootedHost(std::string root, formats::HostManifest m, bool openat2)
      : root_(std::move(root)),
        m_(std::move(m)),
        root_fd_(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
        openat2_(openat2) {}

  bool live() const override { return false; }
  const std::string& root() const override { return root_; }

  Result<std::string> read_file(const std::string& path, std::size_t limit) const override {
    if (auto e = recorded_error("read", path)) return *e;
    AMDML_TRY(auto fd, open_inside(path, O_RDONLY | O_NONBLOCK | O_NOCTTY));
    return read_small_fd(fd, path, limit);
  }
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    if (auto e = recorded_error("list", path)) return *e;
    AMDML_TRY(auto fd, open_inside(path, O_RDONLY | O_DIRECTORY));
    return list_dir_fd(std::move(fd), path);
  }
  Result<std::string> read_link(const std::string& path) const override {
    if (auto e = recorded_error("readlink", path)) return *e;
    return link_text(path);
  }
  Result<FileStat> stat(const std::string& path) const override {
    if (auto e = recorded_error("stat", path)) return *e;
    AMDML_TRY(auto fd, open_inside(path, O_PATH));
    return stat_at(fd.get(), "", path, AT_EMPTY_PATH);
  }
  Result<FileStat> lstat(const std::string& path) const override {
    if (auto e = recorded_error("lstat", path)) return *e;
    return lstat_inside(path);
  }
  // As realpath(3) does on the live host: component by component, with this host's
  // lstat and readlink.
  Result<std::string> canonical(const std::string& path) const override {
    if (auto e = recorded_error("canonical", path)) return *e;
    int why = ENOENT;
    auto real = resolve(path, true, &why);
    if (!real) return make_error(path + ": " + errno_text(why), why);
    return *real;
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
  // path relative to the root's descriptor (the root itself is ".").
  static const char* inner(const std::string& p) { return p == "/" || p.empty() ? "." : p.c_str() + (p[0] == '/'); }

  // Opens path inside the root (O_CLOEXEC added): openat2 with RESOLVE_IN_ROOT, or on a
  // kernel without it, the path resolve() gives opened without following a link.
  Result<Fd> open_inside(const std::string& path, int flags) const {
    if (!root_fd_) return make_error(path + ": " + errno_text(ENOENT), ENOENT);
    if (openat2_) {
      open_how how{};
      how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
      how.resolve = RESOLVE_IN_ROOT;
      // EAGAIN: a rename or mount anywhere on the system raced a ".." on the way, and
      // the kernel could not prove the path stayed inside; it asks to be tried again
      // (openat2(2)). A path that keeps meeting the race is walked instead.
      for (int attempt = 0; attempt < kOpenat2Attempts; ++attempt) {
        const long fd = ::syscall(SYS_openat2, root_fd_.get(), path.c_str(), &how, sizeof how);
        if (fd >= 0) return Fd(static_cast<int>(fd));
        if (errno == EAGAIN || errno == EINTR) continue;
        if (errno != ENOSYS) return make_error(path + ": " + errno_text(errno), errno);
        openat2_ = false;
        break;
      }
    }
    int why = ENOENT;
    auto real = resolve(path, (flags & O_NOFOLLOW) == 0, &why);
    if (!real) return make_error(path + ": " + errno_text(why), why);
    Fd fd(::openat(root_fd_.get(), inner(*real), flags | O_CLOEXEC | O_NOFOLLOW));
    if (!fd) return make_error(path + ": " + errno_text(errno), errno);
    return fd;
  }

  // lstat: the last component opened as it is (a symlink too) and looked at.
  Result<FileStat> lstat_inside(const std::string& path) const {
    AMDML_TRY(auto fd, open_inside(path, O_PATH | O_NOFOLLOW));
    return stat_at(fd.get(), "", path, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  }
  // readlink: EINVAL for anything but a symlink, as readlink(2) says.
  Result<std::string> link_text(const std::string& path) const {
    AMDML_TRY(auto fd, open_inside(path, O_PATH | O_NOFOLLOW));
    AMDML_TRY(auto st, stat_at(fd.get(), "", path, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
    if (st.type != FileType::symlink) return make_error(path + ": " + errno_text(EINVAL), EINVAL);
    return read_real_link_at(fd.get(), "", path);
  }

  // The path with its links resolved inside the root (paths::resolve_path, each
  // component looked at with lstat and readlink); nullopt when a component is missing.
  std::optional<std::string> resolve(const std::string& path, bool follow_last, int* why = nullptr) const {
    auto lookup = [&](const std::string& p, bool) {
      paths::PathNode n;
      struct ::stat st {};
      if (!root_fd_ || ::fstatat(root_fd_.get(), inner(p), &st, AT_SYMLINK_NOFOLLOW) != 0) return n;
      if (S_ISLNK(st.st_mode)) {
        auto target = read_real_link_at(root_fd_.get(), inner(p), p);
        if (!target) return n;
        n.kind = paths::PathNode::Kind::symlink;
        n.target = std::move(*target);
      } else {
        n.kind = S_ISDIR(st.st_mode) ? paths::PathNode::Kind::directory : paths::PathNode::Kind::other;
      }
      return n;
    };
    return paths::resolve_path(path, follow_last, kMaxSymlinkHops, lookup, why);
  }

  std::optional<Error> recorded_error(const char* op, const std::string& path) const {
    auto o = m_.errors.find(op);
    if (o == m_.errors.end()) return std::nullopt;
    auto p = o->second.find(path);
    if (p == o->second.end()) return std::nullopt;
    return make_error(p->second.message, p->second.code);
  }

  std::string root_;
  formats::HostManifest m_;
  Fd root_fd_;            // invalid: the root could not be opened (every path is then missing)
  mutable bool openat2_;  // false: the kernel has no openat2, or a test asked for the walk
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
                                                             const std::optional<std::string>& manifest,
                                                             RootResolution resolution) {
  formats::HostManifest m;
  if (manifest) {
    auto parsed = formats::parse_host_manifest(*manifest);
    if (!parsed) return parsed.error();
    m = std::move(*parsed);
  }
  return std::unique_ptr<Host>(std::make_unique<RootedHost>(root, std::move(m), resolution == RootResolution::kernel));
}

}  // namespace amdml::platform
