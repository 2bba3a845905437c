// Terminal policy: whether stdout is a terminal and whether colour is wanted. The one
// place that decides about colour (NO_COLOR, CLICOLOR_FORCE, TERM=dumb, --color).
#pragma once

#include <optional>
#include <string>

namespace amdml::platform {

bool stdout_is_tty();
bool stdin_is_tty();
// Whether colour is wanted on stdout when the user did not say (--color=auto):
// NO_COLOR, CLICOLOR_FORCE and TERM=dumb, else whether stdout is a terminal.
bool stdout_wants_color();
// The real process environment (not the host's): for amdml's own settings.
std::optional<std::string> process_env(const char* name);

}  // namespace amdml::platform
