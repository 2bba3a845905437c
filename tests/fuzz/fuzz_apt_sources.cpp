// Fuzz target: apt's source lists (formats/apt_sources.hpp), both forms. Any bytes read
// back byte for byte; turning any entry off keeps every line outside it and leaves an
// entry fewer (one-line) or that entry disabled (deb822).
#include "formats/apt_sources.hpp"
#include "fuzz_check.hpp"

namespace {

void check(const amdml::formats::apt::SourcesFile& f, std::string_view text, bool deb822) {
  namespace apt = amdml::formats::apt;
  FUZZ_CHECK(f.text() == text);
  for (std::size_t i = 0; i < f.entries.size() && i < 8; ++i) {
    const std::string off = apt::disable(f, f.entries[i], "off");
    auto again = deb822 ? apt::parse_deb822(off) : apt::parse_one_line(off);
    FUZZ_CHECK(again.text() == off);
    std::string head;
    for (std::size_t l = 0; l < f.entries[i].first; ++l) head += f.lines[l];
    FUZZ_CHECK(off.compare(0, head.size(), head) == 0);
    if (!deb822) FUZZ_CHECK(again.entries.size() + 1 == f.entries.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  check(amdml::formats::apt::parse_one_line(text), text, false);
  check(amdml::formats::apt::parse_deb822(text), text, true);
  return 0;
}
