// Fuzz target: journal.json's codec (formats/journal.hpp). Any text either fails with a
// one-line error or reads to a Transaction whose written form reads back to the same
// written form: undo and the next apply only ever see what the codec checked.
#include "formats/journal.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto t = amdml::formats::read_journal(amdml::fuzz::as_text(data, size));
  if (!t) {
    FUZZ_CHECK(!t.error().message.empty() && t.error().message.find('\n') == std::string::npos);
    return 0;
  }
  const std::string once = amdml::formats::write_journal(*t);
  auto again = amdml::formats::read_journal(once);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(amdml::formats::write_journal(*again) == once);
  return 0;
}
