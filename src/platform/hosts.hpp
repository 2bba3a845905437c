// The concrete hosts behind make_host(): live and rooted.
#pragma once

#include <memory>

#include "platform/host.hpp"

namespace amdml::platform {

std::unique_ptr<Host> make_live_host();
Result<std::unique_ptr<Host>> make_rooted_host(const std::string& root);
// The same host from amdml-host.json text already in memory (nullopt: no manifest);
// root must be absolute and is not checked. Split out so the manifest parser can be
// fuzzed without a file per input; a bad manifest's error names the file, not root.
Result<std::unique_ptr<Host>> make_rooted_host_from_manifest(const std::string& root,
                                                             const std::optional<std::string>& manifest);
std::optional<ContainerKind> detect_live_container();

}  // namespace amdml::platform
