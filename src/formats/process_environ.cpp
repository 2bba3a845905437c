// /proc/PID/environ (formats/process_environ.hpp).
#include "formats/process_environ.hpp"

#include "base/text.hpp"
#include "formats/secrets.hpp"
#include "formats/system_files.hpp"

namespace amdml::formats {

EnvEntries followed_environ(std::string_view environ) {
  EnvEntries out;
  for (auto entry : text::split(environ, '\0')) {
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const auto name = entry.substr(0, eq);
    if (!parse::login_env_followed(name) || is_secret_name(name)) continue;
    out.emplace_back(std::string(name), std::string(entry.substr(eq + 1)));
  }
  return out;
}

std::string write_environ(const EnvEntries& env) {
  std::string out;
  for (const auto& [k, v] : env) out += k + "=" + v + '\0';
  return out;
}

}  // namespace amdml::formats
