// LiveHost: the machine amdml runs on, through real syscalls.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "base/fd.hpp"
#include "platform/fs.hpp"
#include "platform/host.hpp"
#include "platform/hosts.hpp"
#include "platform/kernel_log_live.hpp"
#include "platform/process.hpp"

extern char** environ;

namespace amdml::platform {
namespace {

class LiveHost final : public Host {
 public:
  bool live() const override { return true; }
  const std::string& root() const override { return root_; }

  Result<std::string> read_file(const std::string& path, std::size_t limit) const override {
    return read_real_file(path, path, limit);
  }
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override { return list_real_dir(path, path); }
  Result<std::string> read_link(const std::string& path) const override { return read_real_link(path, path); }
  Result<FileStat> stat(const std::string& path) const override { return stat_real(path, path, true); }
  Result<FileStat> lstat(const std::string& path) const override { return stat_real(path, path, false); }
  Result<std::string> canonical(const std::string& path) const override {
    char* r = ::realpath(path.c_str(), nullptr);
    if (!r) return make_error(path + ": " + errno_text(errno), errno);
    std::string out = r;
    std::free(r);
    return out;
  }

  Identity identity() const override {
    Identity id;
    id.uid = ::getuid();
    id.gid = ::getgid();
    id.euid = ::geteuid();
    int n = ::getgroups(0, nullptr);
    if (n >= 0) {
      std::vector<gid_t> g(static_cast<std::size_t>(n) + 1);
      n = ::getgroups(static_cast<int>(g.size()), g.data());
      if (n >= 0) {
        std::vector<std::uint32_t> groups(g.begin(), g.begin() + n);
        id.groups = groups;
      }
    }
    struct passwd pw {};
    struct passwd* res = nullptr;
    std::vector<char> buf(16384);
    if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &res) == 0 && res) id.user = res->pw_name;
    if (const char* s = std::getenv("SUDO_USER"); s && *s) id.sudo_user = s;
    return id;
  }

  std::optional<std::string> env(const std::string& name) const override {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  }
  std::map<std::string, std::string> environment() const override {
    std::map<std::string, std::string> out;
    for (char** e = environ; e && *e; ++e) {
      std::string s = *e;
      auto eq = s.find('=');
      if (eq == std::string::npos) continue;
      out[s.substr(0, eq)] = s.substr(eq + 1);
    }
    return out;
  }
  Uname uname() const override {
    struct utsname u {};
    Uname out;
    if (::uname(&u) == 0) {
      out.release = u.release;
      out.machine = u.machine;
    }
    return out;
  }

  std::optional<std::vector<DeviceNode>> devices() const override {
    std::vector<DeviceNode> out;
    auto add = [&](const std::string& path) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) return;
      DeviceNode d;
      d.path = path;
      d.type = file_type_from_mode(st.st_mode);
      d.mode = st.st_mode & 07777;
      d.uid = st.st_uid;
      d.gid = st.st_gid;
      if (d.type == FileType::char_device) {
        if (Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)); fd) {
          d.open = OpenCheck::ok;
        } else {
          d.open = OpenCheck::failed;
          d.open_errno = errno;
        }
      }
      out.push_back(std::move(d));
    };
    add("/dev/kfd");
    add("/dev/dxg");
    if (auto entries = list_real_dir("/dev/dri", "/dev/dri"); entries.ok()) {
      for (const auto& e : *entries)
        if (e.type == FileType::char_device) add("/dev/dri/" + e.name);
    }
    return out;
  }

  std::optional<ContainerKind> container() const override { return detect_live_container(); }
  std::optional<nlohmann::json> recorded(const std::string&) const override { return std::nullopt; }

  Result<KernelLogText> kernel_log(std::size_t max_bytes, std::chrono::milliseconds timeout) const override {
    return read_live_kernel_log(max_bytes, timeout);
  }

  Result<std::string> service_journal(const std::string& unit, std::size_t max_bytes,
                                      std::chrono::milliseconds timeout) const override {
    RunOptions o;
    o.timeout = timeout;
    o.output_limit = max_bytes;
    AMDML_TRY(auto r, run_command({"journalctl", "-u", unit, "-b", "0", "-o", "short-iso", "--no-pager", "-q", "-n", "2000"}, o));
    if (r.timed_out) return make_error("journalctl -u " + unit + ": no answer in time", ETIMEDOUT);
    if (r.exit_code != 0) return make_error("journalctl -u " + unit + ": exit " + std::to_string(r.exit_code), EPERM);
    return r.out;
  }

  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const override {
    RunOptions o;
    o.timeout = timeout;
    return run_command(argv, o);
  }

 private:
  std::string root_ = "/";
};

}  // namespace

std::unique_ptr<Host> make_live_host() { return std::make_unique<LiveHost>(); }

std::optional<ContainerKind> detect_live_container() {
  auto has = [](const char* p) {
    struct stat st {};
    return ::stat(p, &st) == 0;
  };
  if (std::getenv("KUBERNETES_SERVICE_HOST")) return ContainerKind::kubernetes;
  if (has("/run/.containerenv")) return ContainerKind::podman;
  if (has("/.dockerenv")) return ContainerKind::docker;
  auto environ1 = read_real_file("/proc/1/environ", "/proc/1/environ", 1 << 16);
  if (environ1.ok()) {
    const std::string& s = *environ1;
    if (s.find("container=lxc") != std::string::npos) return ContainerKind::lxc;
    if (s.find("container=podman") != std::string::npos) return ContainerKind::podman;
    if (s.find("container=docker") != std::string::npos) return ContainerKind::docker;
    if (s.find("container=") != std::string::npos) return ContainerKind::other;
  }
  auto cgroup = read_real_file("/proc/1/cgroup", "/proc/1/cgroup", 1 << 16);
  if (cgroup.ok()) {
    const std::string& s = *cgroup;
    if (s.find("kubepods") != std::string::npos) return ContainerKind::kubernetes;
    if (s.find("/docker") != std::string::npos) return ContainerKind::docker;
    if (s.find("libpod") != std::string::npos) return ContainerKind::podman;
    if (s.find("/lxc") != std::string::npos) return ContainerKind::lxc;
  }
  return std::nullopt;
}

}  // namespace amdml::platform
