// Fuzz target: /etc/group (name:password:gid:members).
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto groups = amdml::formats::parse::group_file(text);
  FUZZ_CHECK(groups.size() <= amdml::text::split_lines(text).size());
  for (const auto& g : groups) {
    FUZZ_CHECK(!g.name.empty());
    FUZZ_CHECK(g.name.find_first_of(":\n") == std::string::npos);
    for (const auto& m : g.members) {
      FUZZ_CHECK(!m.empty());
      FUZZ_CHECK(m.find_first_of(":,\n") == std::string::npos);
    }
  }
  return 0;
}
