// Fuzz target: /proc/PID/environ (NUL-separated NAME=VALUE), as the ollama probe and the
// snapshot filter read it: only followed, non-secret names come back, and writing them
// then reading again gives the same entries.
#include "formats/process_environ.hpp"
#include "formats/secrets.hpp"
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto env = amdml::formats::followed_environ(text);
  for (const auto& [k, v] : env) {
    FUZZ_CHECK(!k.empty() && k.find('=') == std::string::npos && k.find('\0') == std::string::npos);
    FUZZ_CHECK(amdml::formats::parse::login_env_followed(k) && !amdml::formats::is_secret_name(k));
    FUZZ_CHECK(v.find('\0') == std::string::npos);
  }
  FUZZ_CHECK(amdml::formats::followed_environ(amdml::formats::write_environ(env)) == env);
  return 0;
}
