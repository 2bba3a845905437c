// make_host(). The Host enum names are model nouns: src/model/host_types.cpp.
#include "platform/host.hpp"

#include "platform/hosts.hpp"

namespace amdml {

Result<std::unique_ptr<Host>> make_host(const std::string& root) {
  if (root.empty() || root == "/") return platform::make_live_host();
  return platform::make_rooted_host(root);
}

}  // namespace amdml
