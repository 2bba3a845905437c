// Fuzz target: systemd unit files and drop-ins (ollama.service, ollama.service.d/*.conf):
// sections, continuations, comments, and the Environment= word splitting and unescaping.
#include "formats/system_files.hpp"
#include "formats/systemd_unit.hpp"
#include "fuzz_check.hpp"

namespace formats = amdml::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto unit = formats::systemd_unit::parse_unit_text(text, "/etc/systemd/system/fuzz.service");
  const int lines = static_cast<int>(amdml::text::split_lines(text).size());
  for (const auto& a : unit.assignments) {
    FUZZ_CHECK(a.line >= 1 && a.line <= lines);
    FUZZ_CHECK(!a.key.empty());
    FUZZ_CHECK(a.key.find('=') == std::string::npos);
    FUZZ_CHECK(a.file == "/etc/systemd/system/fuzz.service");
    if (a.key == "Environment") {
      auto env = formats::systemd_unit::split_environment(a.value);
      FUZZ_CHECK(env.words.size() <= a.value.size());
      if (env.error) FUZZ_CHECK(!env.error->empty());
    }
  }
  for (const auto& i : unit.issues) {
    FUZZ_CHECK(i.line >= 1 && i.line <= lines);
    FUZZ_CHECK(!i.message.empty() && i.message.find('\n') == std::string::npos);
    (void)amdml::systemd::to_string(i.kind);
  }
  // The whole input as one Environment= value too: the unescaper sees every byte.
  auto env = formats::systemd_unit::split_environment(text);
  for (const auto& w : env.words) (void)amdml::formats::systemd_unit::env_name_valid(w.substr(0, w.find('=')));
  return 0;
}
