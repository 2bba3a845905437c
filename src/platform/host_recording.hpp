// RecordingHost: a Host decorator for `amdml snapshot` and `amdml report`. It forwards
// every call to the host it wraps -- live or rooted -- and notes what came back: file
// contents, listings, the symlinks on every path walked, stat results, failures with
// their errno and message, identity, environment, uname, device nodes, container,
// recorded facts and command outputs. Because the probes read through it, the record
// is exactly what they read; there is no second list of paths to keep in sync.
#pragma once

#include <memory>
#include <mutex>

#include "platform/host.hpp"
#include "formats/snapshot.hpp"

namespace amdml::platform {

class RecordingHost final : public Host {
 public:
  explicit RecordingHost(const Host& inner) : inner_(inner) {}

  // What was recorded so far (copy: the probes may still be running in other threads).
  formats::Recording recording() const;

  bool live() const override { return inner_.live(); }
  const std::string& root() const override { return inner_.root(); }

  Result<std::string> read_file(const std::string& path, std::size_t limit) const override;
  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override;
  Result<std::string> read_link(const std::string& path) const override;
  Result<FileStat> stat(const std::string& path) const override;
  Result<FileStat> lstat(const std::string& path) const override;
  Result<std::string> canonical(const std::string& path) const override;

  Identity identity() const override;
  std::optional<std::string> env(const std::string& name) const override;
  std::map<std::string, std::string> environment() const override;
  Uname uname() const override;
  std::optional<std::vector<DeviceNode>> devices() const override;
  std::optional<ContainerKind> container() const override;
  std::optional<nlohmann::json> recorded(const std::string& key) const override;
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const override;
  void record_fact(const std::string& key, const nlohmann::json& value) const override;
  // Recorded as DIR/dev/kmsg, GPU lines only (formats::kmsg::gpu_relevant), MAC addresses masked.
  Result<KernelLogText> kernel_log(std::size_t max_bytes, std::chrono::milliseconds timeout) const override;
  // Recorded as DIR/var/log/amdml-journal/UNIT.log (recorded_journal_path).
  Result<std::string> service_journal(const std::string& unit, std::size_t max_bytes,
                                      std::chrono::milliseconds timeout) const override;

 private:
  // Walks path component by component on the inner host (lstat, readlink), records
  // every directory and symlink on the way and returns the symlink-free path, or
  // nullopt when a component is missing or unreadable.
  std::optional<std::string> trace(const std::string& path, bool follow_last) const;
  std::optional<FileStat> lstat_cached(const std::string& inner_path) const;
  void note_type(const std::string& inner_path, FileType type, std::uint32_t mode) const;
  void note_file(const std::string& path, std::string content) const;
  void note_error(const char* op, const std::string& path, const Error& e) const;

  const Host& inner_;
  mutable std::recursive_mutex mu_;
  mutable formats::Recording rec_;
  mutable std::map<std::string, std::optional<FileStat>> lstat_cache_;
};

}  // namespace amdml::platform
