// Writing a whole file so readers see the old bytes or the new bytes, never a mix:
// temp file in the same directory, fsync, rename, fsync the directory.
#pragma once

#include <optional>
#include <string>

#include "base/result.hpp"

namespace amdml::platform {

// mode: permission bits for a new file (an existing file keeps its own).
Status write_file_atomic(const std::string& path, const std::string& content, std::optional<unsigned> mode = std::nullopt);

}  // namespace amdml::platform
