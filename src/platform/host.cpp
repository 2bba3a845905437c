// make_host(). The Host enum names are model nouns: src/model/host_types.cpp.
#include "platform/host.hpp"

#include "formats/kmsg.hpp"
#include "platform/hosts.hpp"

namespace amdml::platform {

Result<KernelLogText> Host::kernel_log(std::size_t max_bytes, std::chrono::milliseconds) const {
  // A recorded ring is small (snapshot keeps the GPU lines only); a bigger file is read
  // up to a hard limit and cut to its newest records like the live ring.
  AMDML_TRY(auto text, read_file("/dev/kmsg", 64u << 20));
  KernelLogText out;
  out.source = "/dev/kmsg";
  // The newest records are the file's end: cut the front off in place rather than copy
  // the (up to 2 MiB) rest into a new string.
  const std::size_t kept = formats::kmsg::tail(text, max_bytes).size();
  out.truncated = kept < text.size();
  text.erase(0, text.size() - kept);
  out.records = std::move(text);
  return out;
}

std::string recorded_journal_path(const std::string& unit) { return "/var/log/amdml-journal/" + unit + ".log"; }

Result<std::string> Host::service_journal(const std::string& unit, std::size_t max_bytes,
                                          std::chrono::milliseconds) const {
  AMDML_TRY(auto text, read_file(recorded_journal_path(unit), 64u << 20));
  return std::string(formats::kmsg::tail(text, max_bytes));
}

Result<std::unique_ptr<Host>> make_host(const std::string& root) {
  if (root.empty() || root == "/") return platform::make_live_host();
  return platform::make_rooted_host(root);
}

}  // namespace amdml::platform