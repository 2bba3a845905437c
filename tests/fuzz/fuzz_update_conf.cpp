// Fuzz target: /etc/amdml/update.conf (formats/update_conf.cpp), a file a person edits.
#include "formats/update_conf.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto c = amdml::formats::parse_update_conf(std::string(amdml::fuzz::as_text(data, size)), "update.conf");
  if (!c) {
    FUZZ_CHECK(c.error().message.starts_with("update.conf"));
    FUZZ_CHECK(c.error().message.find('\n') == std::string::npos);
    return 0;
  }
  FUZZ_CHECK(c->keyring.empty() || c->keyring[0] == '/');
  FUZZ_CHECK(c->url.empty() || c->url.starts_with("http") || c->url.starts_with("file:///"));
  return 0;
}
