// What `amdml update` says: one line per outcome (and a second naming the next step),
// built here so the engine writes only render's text.
#pragma once

#include <string>

namespace amdml::render {

struct UpdateOutcome {
  enum class Kind { installed, up_to_date, available, rolled_back } kind = Kind::up_to_date;
  std::string bundle_date;  // the downloaded bundle's (installed/up_to_date/available), or the one now current (rolled_back)
  std::string in_use;       // the knowledge in use before: its date
  std::string in_use_source;  // "built-in" or "installed"
  std::string url;
  std::string root;  // "" live, else the --root DIR (named in the commands printed)
  std::string args;  // the flags to repeat in a command printed (" --url 'http://...'"), shell-quoted
};

std::string render_update_text(const UpdateOutcome& o);

}  // namespace amdml::render