// Fuzz target: dpkg's status read by package-name predicate (formats::parse::dpkg_packages): the
// packages it returns are the stanzas the predicate accepted, named as it was asked,
// each a name without a newline, installed only when on disk, and every stanza's name is
// asked at most once.
#include <string>
#include <vector>

#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

namespace formats = amdml::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  std::vector<std::string> asked;
  auto all = amdml::formats::parse::dpkg_packages(text, [&](std::string_view n) {
    asked.emplace_back(n);
    return true;
  });
  FUZZ_CHECK(all.size() == asked.size());
  FUZZ_CHECK(all.size() <= amdml::formats::parse::dpkg_stanzas(text).size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    FUZZ_CHECK(all[i].name == asked[i] && !all[i].name.empty());
    FUZZ_CHECK(all[i].name.find('\n') == std::string::npos && all[i].version.find('\n') == std::string::npos);
    // Installed is one of the on-disk states.
    FUZZ_CHECK(!all[i].installed() || all[i].on_disk());
  }
  // A predicate that takes every other name returns exactly those.
  std::size_t k = 0;
  auto half = amdml::formats::parse::dpkg_packages(text, [&](std::string_view) { return k++ % 2 == 0; });
  FUZZ_CHECK(half.size() == (all.size() + 1) / 2);
  for (std::size_t i = 0; i < half.size(); ++i) FUZZ_CHECK(half[i].name == all[2 * i].name);
  return 0;
}
