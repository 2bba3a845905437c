// Fuzz target: EnvironmentFile= files (NAME=VALUE lines, quotes, escapes, continuations).
#include "formats/system_files.hpp"
#include "formats/systemd_unit.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto f = amdml::formats::systemd_unit::parse_env_file(text, "/etc/default/ollama");
  const int lines = static_cast<int>(amdml::text::split_lines(text).size());
  FUZZ_CHECK(f.vars.size() <= static_cast<std::size_t>(lines));
  for (const auto& [name, value] : f.vars) {
    FUZZ_CHECK(!name.empty());
    FUZZ_CHECK(value.size() <= size);
  }
  for (const auto& i : f.issues) {
    FUZZ_CHECK(i.line >= 1 && i.line <= lines);
    FUZZ_CHECK(!i.message.empty() && i.message.find('\n') == std::string::npos);
  }
  return 0;
}
