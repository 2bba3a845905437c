// Fuzz target: modprobe.d files ("options MODULE key=value", continuations, comments).
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto f = amdml::formats::parse::modprobe_conf(text);
  const int lines = static_cast<int>(amdml::text::split_lines(text).size());
  for (const auto& o : f.options) {
    FUZZ_CHECK(o.line >= 1 && o.line <= lines);
    FUZZ_CHECK(!o.module.empty());
    FUZZ_CHECK(o.module.find('-') == std::string::npos);
    FUZZ_CHECK(o.key.find('=') == std::string::npos);
    FUZZ_CHECK(o.module.find_first_of(" \t\n") == std::string::npos);
  }
  for (const auto& [line, l] : f.bad_lines) {
    FUZZ_CHECK(line >= 1 && line <= lines);
    FUZZ_CHECK(!l.empty());
  }
  return 0;
}
