// Asking a person on the terminal: the confirmation `amdml fix --apply` wants before
// it writes to /etc (skipped with --yes, and never asked when stdin is not a TTY).
#pragma once

#include <string>

namespace amdml::platform {

// Writes question to stderr and reads one line from stdin; true only for y/yes.
bool ask_yes_no(const std::string& question);

}  // namespace amdml::platform
