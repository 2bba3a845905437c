// Fuzz target: os-release (KEY=value with shell quoting).
#include <cctype>

#include "amdml/parse.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto kv = amdml::parse::os_release(text);
  for (const auto& [k, v] : kv) {
    FUZZ_CHECK(!k.empty());
    for (char c : k) FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    FUZZ_CHECK(v.find('\n') == std::string::npos);
    FUZZ_CHECK(v.size() <= size);
  }
  return 0;
}
