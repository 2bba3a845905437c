// Fuzz target: the kernel command line (/proc/cmdline): words, key=value, quotes.
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto words = amdml::formats::parse::cmdline(text);
  FUZZ_CHECK(words.size() <= size);
  std::size_t total = 0;
  for (const auto& [k, v] : words) {
    FUZZ_CHECK(k.find('=') == std::string::npos);
    FUZZ_CHECK(k.find('"') == std::string::npos && v.find('"') == std::string::npos);
    total += k.size() + v.size();
  }
  FUZZ_CHECK(total <= size);
  return 0;
}
