// /etc/amdml/update.conf: where `amdml update` downloads knowledge from, for a machine
// that uses a mirror. TOML, two optional keys; anything else is an error naming the line:
//
//   url = "https://mirror.example.org/amdml/amdml-knowledge.tar.gz"
//   keyring = "/etc/amdml/mirror-key.gpg"
#pragma once

#include <string>

#include "base/result.hpp"

namespace amdml::formats {

struct UpdateConf {
  std::string url;      // "" when not set
  std::string keyring;  // "" when not set; an absolute path when set
};

// shown: the name errors start with ("/etc/amdml/update.conf").
Result<UpdateConf> parse_update_conf(const std::string& text, const std::string& shown);

}  // namespace amdml::formats