// ollama's discovery lines (see ollama_log.hpp). The message texts are ollama's own
// (discover/amd_linux.go, discover/gpu.go, llm/server.go across v0.1.3x-v0.12), as
// quoted in ollama/ollama#3838, #8710, #7650, #14921 and Jeffser/Alpaca#564.
#include "formats/ollama_log.hpp"

#include <string>

#include "base/text.hpp"

namespace amdml::formats::ollama_log {
namespace {

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// "key=value" or key="quoted value" after the message.
std::string field(std::string_view s, std::string_view key) {
  std::string k = " " + std::string(key) + "=";
  auto at = s.find(k);
  if (at == std::string_view::npos) return "";
  s.remove_prefix(at + k.size());
  if (!s.empty() && s[0] == '"') {
    auto end = s.find('"', 1);
    return std::string(s.substr(1, end == std::string_view::npos ? s.size() - 1 : end - 1));
  }
  return std::string(s.substr(0, s.find(' ')));
}

// The slog part of a journal line: from "time=" or "level=" on (the prefix names the host).
std::string_view message_part(std::string_view line) {
  for (std::string_view k : {"time=", "level="}) {
    auto at = line.find(k);
    if (at != std::string_view::npos) return line.substr(at);
  }
  return line;
}

std::optional<OllamaJournalLine> classify(std::string_view raw) {
  std::string_view l = message_part(text::trim(raw));
  if (l.size() > 4096) l = l.substr(0, 4096);
  OllamaJournalLine o;
  o.line = std::string(l);
  auto make = [&](OllamaReason r, std::string detail) {
    o.reason = r;
    o.detail = std::move(detail);
    return std::optional<OllamaJournalLine>(o);
  };
  if (has(l, "amdgpu is not supported")) return make(OllamaReason::gfx_unsupported, field(l, "gpu_type"));
  if (has(l, "unsupported Radeon iGPU") || (has(l, "iGPU") && (has(l, "skipping") || has(l, "filtering"))))
    return make(OllamaReason::igpu_filtered, field(l, "id"));
  if (has(l, "unable to verify rocm library")) return make(OllamaReason::library_unverified, field(l, "error"));
  if (has(l, "failed to finish discovery before timeout") || has(l, "didn't fully initialize"))
    return make(OllamaReason::discovery_timeout, "");
  if (has(l, "HSA_OVERRIDE_GFX_VERSION") && has(l, "invalid")) return make(OllamaReason::override_invalid, "");
  if (has(l, "no compatible GPUs were discovered") || has(l, "no compatible amdgpu devices detected"))
    return make(OllamaReason::no_compatible_gpu, "");
  if (has(l, "runner crashed") || has(l, "llama runner process has terminated"))
    return make(OllamaReason::runner_crashed, field(l, "error"));
  if (has(l, "inference compute")) {
    std::string lib = field(l, "library");
    if (lib == "rocm" || lib == "ROCm") return make(OllamaReason::gpu_found, field(l, "compute"));
  }
  return std::nullopt;
}

}  // namespace

std::vector<OllamaJournalLine> last_start(std::string_view text) {
  auto lines = text::split_lines(text);
  std::size_t start = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (has(lines[i], "msg=\"server config\"") || has(lines[i], "INFO server config") ||
        (has(lines[i], "Listening on") && (i == 0 || !has(lines[i - 1], "server config"))))
      start = i;
  // "Listening on" follows "server config" a few lines later: start at the config line.
  for (std::size_t i = start; i-- > 0 && i + 8 > start;)
    if (has(lines[i], "server config")) {
      start = i;
      break;
    }
  std::vector<OllamaJournalLine> out;
  for (std::size_t i = start; i < lines.size(); ++i)
    if (auto o = classify(lines[i])) out.push_back(std::move(*o));
  return out;
}

}  // namespace amdml::formats::ollama_log