// ForwardingHost: a Host that hands every call to another Host. Tests derive from it
// to change one or two answers (a failing read, a command that "runs", a counter)
// without spelling out the other fifteen methods again. record_fact keeps Host's default.
#pragma once

#include "platform/host.hpp"

namespace amdml::test {

class ForwardingHost : public platform::Host {
 public:
  explicit ForwardingHost(const platform::Host& inner) : inner_(inner) {}
  bool live() const override { return inner_.live(); }
  const std::string& root() const override { return inner_.root(); }
  Result<std::string> read_file(const std::string& p, std::size_t limit) const override {
    return inner_.read_file(p, limit);
  }
  Result<std::vector<DirEntry>> list_dir(const std::string& p) const override { return inner_.list_dir(p); }
  Result<std::string> read_link(const std::string& p) const override { return inner_.read_link(p); }
  Result<FileStat> stat(const std::string& p) const override { return inner_.stat(p); }
  Result<FileStat> lstat(const std::string& p) const override { return inner_.lstat(p); }
  Result<std::string> canonical(const std::string& p) const override { return inner_.canonical(p); }
  Identity identity() const override { return inner_.identity(); }
  std::optional<std::string> env(const std::string& n) const override { return inner_.env(n); }
  std::map<std::string, std::string> environment() const override { return inner_.environment(); }
  Uname uname() const override { return inner_.uname(); }
  std::optional<std::vector<DeviceNode>> devices() const override { return inner_.devices(); }
  std::optional<ContainerKind> container() const override { return inner_.container(); }
  std::optional<nlohmann::json> recorded(const std::string& k) const override { return inner_.recorded(k); }
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds t) const override {
    return inner_.run(argv, t);
  }
  Result<KernelLogText> kernel_log(std::size_t max_bytes, std::chrono::milliseconds t) const override {
    return inner_.kernel_log(max_bytes, t);
  }
  Result<std::string> service_journal(const std::string& unit, std::size_t max_bytes,
                                      std::chrono::milliseconds t) const override {
    return inner_.service_journal(unit, max_bytes, t);
  }

 protected:
  const platform::Host& inner_;
};

}  // namespace amdml::test
