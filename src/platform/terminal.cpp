#include "platform/terminal.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace amdml::platform {

bool stdout_is_tty() { return ::isatty(STDOUT_FILENO) == 1; }
bool stdin_is_tty() { return ::isatty(STDIN_FILENO) == 1; }

std::optional<std::string> process_env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

bool stdout_wants_color() {
  if (auto v = process_env("NO_COLOR"); v && !v->empty()) return false;
  if (auto v = process_env("CLICOLOR_FORCE"); v && !v->empty() && *v != "0") return true;
  if (auto v = process_env("TERM"); v && *v == "dumb") return false;
  return stdout_is_tty();
}

}  // namespace amdml::platform
