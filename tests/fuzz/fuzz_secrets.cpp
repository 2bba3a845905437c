// Fuzz target: the secret policy (formats/secrets.hpp) that snapshots, their redaction
// and `amdml report` share. scrub_secrets keeps what surrounds a secret and cuts the
// secret: scrubbing again changes nothing, a text with nothing cut comes back as it
// was, and every cut is counted. The name and value tests answer for any bytes.
#include "formats/secrets.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));
  int count = 0;
  const std::string once = amdml::formats::scrub_secrets(text, &count);
  FUZZ_CHECK(count >= 0);
  if (count == 0) FUZZ_CHECK(once == text);
  int again_count = 0;
  const std::string twice = amdml::formats::scrub_secrets(once, &again_count);
  FUZZ_CHECK(twice == once);
  // Each line alone, as the environment probe and the redactor ask of names and values.
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    (void)amdml::formats::is_secret_name(line);
    (void)amdml::formats::looks_like_secret(line);
    pos = nl + 1;
  }
  return 0;
}
