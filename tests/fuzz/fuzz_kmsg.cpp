// Fuzz target: /dev/kmsg records, journalctl lines and ollama's journal, then the
// classification of what they say.
#include "formats/kmsg.hpp"
#include "formats/ollama_log.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  for (const auto& p : {amdml::formats::kmsg::parse(text), amdml::formats::kmsg::parse_journal(text)}) {
    for (const auto& r : p.records) {
      FUZZ_CHECK(r.level >= 0 && r.level <= 7);
      FUZZ_CHECK(r.text.size() <= amdml::formats::kmsg::kMaxLineBytes);
    }
    // What is written parses back to the same records.
    auto again = amdml::formats::kmsg::parse(amdml::formats::kmsg::write(p.records));
    FUZZ_CHECK(again.records.size() == p.records.size());
    for (const auto& e : amdml::formats::kmsg::classify(p.records)) FUZZ_CHECK(!e.line.empty());
  }
  auto t = amdml::formats::kmsg::tail(text, 100);
  FUZZ_CHECK(t.size() <= 100);
  FUZZ_CHECK(amdml::formats::kmsg::mask_macs(text).size() == text.size());
  for (const auto& l : amdml::formats::ollama_log::last_start(text)) FUZZ_CHECK(l.line.size() <= 4096);
  return 0;
}
