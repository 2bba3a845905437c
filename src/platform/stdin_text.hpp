// Reading a pasted text from stdin (`amdml explain -`): all of it up to end of file,
// keeping only its newest bytes when it is larger than a bound, so a huge or endless
// paste costs bounded memory.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.hpp"

namespace amdml::platform {

struct StdinText {
  std::string text;      // the last `max_bytes` bytes (all of it when it fits)
  std::size_t total = 0; // bytes read in all
};

// Reads stdin to its end; an error is one line with errno (EINTR is retried).
Result<StdinText> read_stdin_tail(std::size_t max_bytes);

}  // namespace amdml::platform
