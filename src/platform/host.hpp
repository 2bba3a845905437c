// Host: the one window every probe reads the machine through.
//
// The live host (root "/") makes real syscalls. A rooted host (--root DIR) resolves
// every absolute path inside DIR (the kernel's openat2 RESOLVE_IN_ROOT: absolute
// symlink targets are re-rooted, ".." stops at DIR, loops end in ELOOP) and takes
// everything that is not a file (identity, environment, uname, device nodes,
// container, recorded runtime results, command outputs) from DIR/amdml-host.json. No host remembers what it read: each call asks
// the machine (or the tree) as it is then. Nothing outside src/platform/ touches the OS.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "amdml/host.hpp"
#include "base/result.hpp"

namespace amdml::platform {

inline constexpr std::size_t kDefaultReadLimit = 1 << 20;

class Host {
 public:
  virtual ~Host() = default;

  virtual bool live() const = 0;
  virtual const std::string& root() const = 0;  // "/" when live

  // Files, by absolute path inside the host.
  virtual Result<std::string> read_file(const std::string& path,
                                        std::size_t limit = kDefaultReadLimit) const = 0;
  virtual Result<std::vector<DirEntry>> list_dir(const std::string& path) const = 0;
  virtual Result<std::string> read_link(const std::string& path) const = 0;
  virtual Result<FileStat> stat(const std::string& path) const = 0;   // follows symlinks
  virtual Result<FileStat> lstat(const std::string& path) const = 0;  // does not
  // The path with every symlink resolved, as seen inside the host.
  virtual Result<std::string> canonical(const std::string& path) const = 0;
  bool exists(const std::string& path) const { return stat(path).ok(); }

  // Everything else.
  virtual Identity identity() const = 0;
  virtual std::optional<std::string> env(const std::string& name) const = 0;
  virtual std::map<std::string, std::string> environment() const = 0;
  virtual Uname uname() const = 0;
  // Every node under /dev/kfd and /dev/dri (and /dev/dxg); nullopt when unknown.
  virtual std::optional<std::vector<DeviceNode>> devices() const = 0;
  // nullopt: not in a container (or unknown in a manifest that says nothing).
  virtual std::optional<ContainerKind> container() const = 0;
  // A raw value recorded in amdml-host.json (e.g. "hsa", "ollama"); live hosts return nullopt.
  virtual std::optional<nlohmann::json> recorded(const std::string& key) const = 0;
  // Runs argv (no shell) with a time limit. Rooted hosts answer from the manifest's
  // "commands" map (key: argv joined by single spaces) and never execute anything.
  virtual Result<CommandResult> run(const std::vector<std::string>& argv,
                                    std::chrono::milliseconds timeout) const = 0;

  // The kernel log of this boot, at most max_bytes of its newest records, within timeout.
  // Live: /dev/kmsg read without blocking, else `journalctl -k -b 0`; EPERM when both are
  // refused. Rooted (the default here): the regular file DIR/dev/kmsg, in the same format.
  virtual Result<KernelLogText> kernel_log(std::size_t max_bytes, std::chrono::milliseconds timeout) const;

  // A systemd service's journal of this boot (`journalctl -u UNIT -b 0`), at most
  // max_bytes of its newest lines. Rooted (the default here): the recorded file
  // DIR/var/log/amdml-journal/UNIT.log, which `snapshot` writes.
  virtual Result<std::string> service_journal(const std::string& unit, std::size_t max_bytes,
                                              std::chrono::milliseconds timeout) const;

  // A non-file fact a probe collected live (e.g. "hsa": the runtime probe's result), so
  // a recording host (amdml snapshot) can write it into amdml-host.json. No-op by default.
  virtual void record_fact(const std::string& key, const nlohmann::json& value) const {
    (void)key;
    (void)value;
  }
};

// Where a --root tree keeps a service's journal: "/var/log/amdml-journal/UNIT.log".
std::string recorded_journal_path(const std::string& unit);

// Builds the host for --root: "/" (or empty) is live, anything else is rooted. Fails
// with a one-line error when DIR does not exist or its amdml-host.json is malformed.
Result<std::unique_ptr<Host>> make_host(const std::string& root);

}  // namespace amdml::platform