// Fuzz target: /proc/meminfo ("MemTotal:  32768000 kB" -> bytes).
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto kv = amdml::formats::parse::meminfo(text);
  FUZZ_CHECK(kv.size() <= amdml::text::split_lines(text).size());
  for (const auto& [k, v] : kv) {
    FUZZ_CHECK(k.find(':') == std::string::npos);
    FUZZ_CHECK(k.find('\n') == std::string::npos);
  }
  return 0;
}
