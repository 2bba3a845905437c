// A read-only HTTP GET to a server on this machine's loopback interface, for doctor
// --deep's questions to a running ollama (probes/deep_ollama.cpp). The host must be a
// numeric loopback address (127.0.0.0/8 or ::1): anything else is refused before a socket
// is opened, so a doctor never reaches the network. One request, HTTP/1.0 (the answer
// ends when the server closes, never chunked), one time limit for connect, send and
// receive together, the body bounded.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace amdml::platform {

struct HttpReply {
  int status = 0;    // 200
  std::string body;  // at most kMaxHttpBody bytes
};

inline constexpr std::size_t kMaxHttpBody = 1 << 20;

// GET path from host:port. Errors: the host is not loopback, connection refused, timed
// out, no HTTP status line, a body larger than kMaxHttpBody.
Result<HttpReply> loopback_get(const std::string& host, std::uint16_t port, const std::string& path,
                               std::chrono::milliseconds timeout);

}  // namespace amdml::platform
