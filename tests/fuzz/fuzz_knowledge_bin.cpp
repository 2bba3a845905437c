// Fuzz target: the compact knowledge form (formats/knowledge_bin.cpp) that every doctor
// reads from /var/lib/amdml/knowledge when a bundle is installed: a corrupt or truncated
// file must be an error, and what decodes must encode back to the same bytes.
#include "amdml/knowledge.hpp"
#include "formats/knowledge_bin.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto bytes = amdml::fuzz::as_text(data, size);
  auto kb = amdml::formats::decode_knowledge_bin(bytes);
  if (!kb) {
    FUZZ_CHECK(!kb.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(amdml::formats::encode_knowledge_bin(*kb) == bytes);
  FUZZ_CHECK(amdml::parse_day(kb->meta.date).has_value());
  return 0;
}
