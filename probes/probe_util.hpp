// Helpers every probe uses to read one sysfs-style value through the Host and turn
// it into a typed value, recording a ProbeError when the text is not what it should be.
#pragma once

#include <optional>
#include <string>

#include "amdml/facts.hpp"
#include "platform/host.hpp"
#include "formats/system_files.hpp"

namespace amdml::probes {

// The trimmed file contents, or nullopt if the file is absent/unreadable. Errors other
// than "does not exist" are recorded against probe.
std::optional<std::string> read_value(const platform::Host& host, Facts& facts, const char* probe, const std::string& path);
std::optional<std::uint64_t> read_u64(const platform::Host& host, Facts& facts, const char* probe, const std::string& path);
std::optional<std::uint64_t> read_hex(const platform::Host& host, Facts& facts, const char* probe, const std::string& path);

// Kernel-generated line files (KFD properties, /proc/meminfo) always end in a newline.
// Text that does not was cut short (a half-written snapshot): its last line may hold a
// partial number ("drm_render_minor 12" for 128), so it is dropped and an error recorded.
std::string_view complete_lines(std::string_view text, Facts& facts, const char* probe, const std::string& path);

}  // namespace amdml::probes
