// amdml update's text (see update.hpp).
#include "render/update.hpp"

#include "base/text.hpp"

namespace amdml::render {

std::string render_update_text(const UpdateOutcome& o) {
  const std::string root = o.root.empty() ? "" : " --root " + text::shell_word(o.root);
  const std::string update = (o.root.empty() ? "sudo amdml update" : "amdml update") + root + o.args;
  const std::string was = o.in_use + " (" + o.in_use_source + ")";
  switch (o.kind) {
    case UpdateOutcome::Kind::installed:
      return "Knowledge updated to " + o.bundle_date + " (was " + was + "), verified and installed from " + o.url +
             ".\nThe previous knowledge is kept: `amdml update --rollback" + root + "` goes back to it.\n";
    case UpdateOutcome::Kind::up_to_date:
      return "Knowledge is up to date: " + was + "; " + o.url + " offers " + o.bundle_date + ".\n";
    case UpdateOutcome::Kind::available:
      return "Newer knowledge is available: " + o.bundle_date + " (in use: " + was + ", signature verified).\n" +
             "Install it with `" + update + "`.\n";
    case UpdateOutcome::Kind::rolled_back:
      return "Knowledge rolled back to " + o.bundle_date + " (was " + o.in_use +
             "); `amdml update` installs the newest again.\n";
  }
  return {};
}

}  // namespace amdml::render