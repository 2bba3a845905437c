// /etc/amdml/update.conf's codec (see update_conf.hpp).
#include "formats/update_conf.hpp"

#include "base/text.hpp"
#include "formats/toml.hpp"

namespace amdml::formats {

Result<UpdateConf> parse_update_conf(const std::string& text, const std::string& shown) {
  toml::table root;
  try {
    root = toml::parse(text, shown);
  } catch (const toml::parse_error& err) {
    return make_error(shown + ":" + std::to_string(err.source().begin.line) + ": " + text::one_line(std::string(err.description())));
  }
  UpdateConf c;
  for (const auto& [k, v] : root) {
    const std::string line = shown + ":" + std::to_string(v.source().begin.line) + ": ";
    const std::string key(k.str());
    auto s = v.value<std::string>();
    if (key != "url" && key != "keyring") return make_error(line + "unknown key '" + text::one_line(key) + "' (url, keyring)");
    if (!s || s->empty()) return make_error(line + "'" + key + "' must be a non-empty string");
    if (key == "url") {
      if (!s->starts_with("https://") && !s->starts_with("http://") && !s->starts_with("file:///"))
        return make_error(line + "'url' must start with https://, http:// or file:///");
      c.url = *s;
    } else {
      if ((*s)[0] != '/') return make_error(line + "'keyring' must be an absolute path");
      c.keyring = *s;
    }
  }
  return c;
}

}  // namespace amdml::formats