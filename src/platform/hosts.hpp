// The concrete hosts behind make_host(): live and rooted.
#pragma once

#include <memory>

#include "platform/host.hpp"

namespace amdml::platform {

std::unique_ptr<Host> make_live_host();
Result<std::unique_ptr<Host>> make_rooted_host(const std::string& root);
// How a rooted host resolves paths inside its root: by the kernel (openat2
// RESOLVE_IN_ROOT, falling back to the walk on a kernel without it), or by the walk
// (paths::resolve_path) alone, which tests use to check the fallback.
enum class RootResolution { kernel, walk };
// The same host from amdml-host.json text already in memory (nullopt: no manifest);
// root must be absolute and is not checked. Split out so the manifest parser can be
// fuzzed without a file per input; a bad manifest's error names the file, not root.
Result<std::unique_ptr<Host>> make_rooted_host_from_manifest(const std::string& root,
                                                             const std::optional<std::string>& manifest,
                                                             RootResolution resolution = RootResolution::kernel);
std::optional<ContainerKind> detect_live_container();

}  // namespace amdml::platform
