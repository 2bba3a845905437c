// The running ollama server as doctor --deep asks it: where it listens (OLLAMA_HOST, as
// ollama's envconfig reads it), its two read-only answers (GET /api/version, GET /api/ps;
// ollama's docs/api.md) and the record amdml-host.json keeps of them ("ollama_server"),
// so a --root replay and a snapshot see what the live run saw.
//
//   /api/version  {"version": "0.12.3"}
//   /api/ps       {"models": [{"name": "llama3.2:3b", "model": "llama3.2:3b", "size": 3565551616,
//                              "size_vram": 3565551616, "digest": "...", "details": {...},
//                              "expires_at": "..."}]}
//
// `size` is what the loaded model takes, `size_vram` the part of it in GPU memory; the
// rest is in system memory and runs on the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "amdml/facts_ml.hpp"
#include "base/result.hpp"

namespace amdml::formats::ollama_api {

inline constexpr std::uint16_t kDefaultPort = 11434;  // ollama's envconfig default

// Where to ask: a loopback host and a port. OLLAMA_HOST ("0.0.0.0", ":8080",
// "http://127.0.0.1:11434", "[::1]:11434", "localhost") is honoured when it names a
// loopback address or every address (0.0.0.0 and :: listen on loopback too); any other
// host is not asked, and the default 127.0.0.1:11434 is used instead (`note` says so).
struct Address {
  std::string host = "127.0.0.1";  // "127.0.0.1", "::1"
  std::uint16_t port = kDefaultPort;
  std::string note;                // why OLLAMA_HOST was not followed, or ""
  std::string text() const;        // "127.0.0.1:11434", "[::1]:11434"
};
Address address(const std::optional<std::string>& ollama_host);

// The version /api/version reports; an error when the body is not {"version": "<text>"}.
Result<std::string> parse_version(std::string_view body);

// The models /api/ps lists; an error when the body is not {"models": [...]}. A model
// entry without a name is skipped; sizes that are not non-negative integers stay unknown.
Result<std::vector<OllamaLoadedModel>> parse_ps(std::string_view body);

// The recorded form ("ollama_server" in amdml-host.json) and back.
nlohmann::json server_json(const OllamaServer& s);
Result<OllamaServer> parse_server(const nlohmann::json& j);

}  // namespace amdml::formats::ollama_api
