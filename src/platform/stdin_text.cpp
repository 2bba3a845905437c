#include "platform/stdin_text.hpp"

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace amdml::platform {

Result<StdinText> read_stdin_tail(std::size_t max_bytes) {
  StdinText out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(std::string("cannot read stdin: ") + std::strerror(errno), errno);
    }
    if (n == 0) break;
    out.total += static_cast<std::size_t>(n);
    out.text.append(buf, static_cast<std::size_t>(n));
    // Trim only once the text is twice the bound: each byte is moved at most once more.
    if (out.text.size() > 2 * max_bytes) out.text.erase(0, out.text.size() - max_bytes);
  }
  if (out.text.size() > max_bytes) out.text.erase(0, out.text.size() - max_bytes);
  return out;
}

}  // namespace amdml::platform
