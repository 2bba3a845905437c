// Terminal policy: whether stdout is a terminal and whether colour is wanted. The one
// place that decides about colour (NO_COLOR, CLICOLOR_FORCE, TERM=dumb, --color).
#pragma once

#include <optional>
#include <string>

namespace amdml::platform {

bool stdout_is_tty();
bool stdin_is_tty();
// mode: "auto", "always", "never".
bool want_color(const std::string& mode);
// The real process environment (not the host's): for amdml's own settings.
std::optional<std::string> process_env(const char* name);

}  // namespace amdml::platform
