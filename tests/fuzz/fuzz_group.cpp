// Fuzz target: /etc/group (name:password:gid:members).
#include "formats/group_lines.hpp"
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
  // The line model gives the bytes back, and a member added is then read as one.
  auto ls = amdml::formats::group::lines(text);
  FUZZ_CHECK(amdml::formats::group::join(ls) == text);
  for (auto& l : ls)
    if (!l.fields.empty()) {
      amdml::formats::group::add_member(l, "alice");
      auto again = amdml::formats::group::lines(l.body);
      FUZZ_CHECK(again.size() == 1 && again[0].fields.size() == 4);
      auto m = amdml::formats::group::members(again[0].fields[3]);
      FUZZ_CHECK(!m.empty() && m.back() == "alice");
    }
  return 0;
}
