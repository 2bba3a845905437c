// ollama's server log (its journal, `journalctl -u ollama`): the GPU discovery lines of
// its last start. ollama logs with Go's slog: `time=... level=WARN source=amd_linux.go:376
// msg="amdgpu is not supported (...)" gpu_type=gfx1031 gpu=0 library=/usr/lib/ollama`;
// journalctl puts "Mon DD HH:MM:SS host ollama[PID]: " in front. Pure; a fuzz target.
#pragma once

#include <string_view>
#include <vector>

#include "amdml/facts_boot.hpp"

namespace amdml::formats::ollama_log {

// The discovery lines of the last start (from the last "server config" or "Listening
// on" line on), each with the reason it gives; lines that say nothing about it are left out.
std::vector<OllamaJournalLine> last_start(std::string_view text);

}  // namespace amdml::formats::ollama_log