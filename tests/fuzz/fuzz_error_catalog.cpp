// Fuzz target: the error catalogue's codec (recipes/errors/*.toml) and the matcher of
// `amdml explain` on the input as a pasted text.
#include "formats/error_catalog_toml.hpp"
#include "fuzz_check.hpp"
#include "platform/recipes_dir.hpp"
#include "rules/error_explain.hpp"

namespace {

const amdml::ErrorCatalog& shipped() {
  static const amdml::ErrorCatalog cat = [] {
    auto files = amdml::platform::recipe_files("");
    auto c = files ? amdml::formats::load_error_catalog(*files) : amdml::Result<amdml::ErrorCatalog>(files.error());
    FUZZ_CHECK(c.ok());
    return *c;
  }();
  return cat;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto cat = amdml::formats::parse_error_catalog(text, "fuzz.toml");
  if (cat) {
    // What is written parses back to the same entries.
    auto again = amdml::formats::parse_error_catalog(amdml::formats::write_error_catalog(*cat), "again.toml");
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->entries.size() == cat->entries.size());
    for (std::size_t i = 0; i < cat->entries.size(); ++i) {
      FUZZ_CHECK(again->entries[i].id == cat->entries[i].id);
      FUZZ_CHECK(again->entries[i].patterns.size() == cat->entries[i].patterns.size());
      FUZZ_CHECK(again->entries[i].causes.size() == cat->entries[i].causes.size());
    }
  } else {
    FUZZ_CHECK(cat.error().message.find('\n') == std::string::npos);
  }
  // The input as a paste: bounded, each match quoting at most kMaxQuotedLines lines.
  auto scan = amdml::scan_error_text(shipped(), text);
  FUZZ_CHECK(scan.matches.size() <= shipped().entries.size());
  for (const auto& m : scan.matches) {
    FUZZ_CHECK(!m.lines.empty() && m.lines.size() <= amdml::kMaxQuotedLines);
    FUZZ_CHECK(m.count >= m.lines.size());
    for (const auto& l : m.lines) FUZZ_CHECK(l.number >= 1 && l.number <= scan.lines && l.text.size() <= 300);
  }
  return 0;
}
