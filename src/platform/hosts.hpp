// The concrete hosts behind make_host(): live and rooted.
#pragma once

#include <memory>

#include "amdml/host.hpp"

namespace amdml::platform {

std::unique_ptr<Host> make_live_host();
Result<std::unique_ptr<Host>> make_rooted_host(const std::string& root);
std::optional<ContainerKind> detect_live_container();

}  // namespace amdml::platform
