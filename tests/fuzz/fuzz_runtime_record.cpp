// Fuzz target: the runtime record (formats/runtime_record.hpp), the JSON the probe
// children print and amdml-host.json keeps under "hsa" and "libdrm". The input is a
// JSON document: read as an HSA record and a libdrm record, and, when it is an object,
// its "hsa" and "libdrm" members too (so a manifest seeds both). A record that reads
// must write back to a record that reads to the same facts: the children, the live
// probe and replay under --root all go through this one codec.
#include <nlohmann/json.hpp>

#include "formats/runtime_record.hpp"
#include "fuzz_check.hpp"

namespace {

using nlohmann::json;

template <class Facts>
void check(const json& doc, amdml::Result<Facts> (*parse)(const json&), json (*write)(const Facts&)) {
  auto r = parse(doc);
  if (!r) {
    FUZZ_CHECK(!r.error().message.empty());
    return;
  }
  const json once = write(*r);
  FUZZ_CHECK(once.is_object() && once.contains("status"));
  auto again = parse(once);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(write(*again) == once);
  // What the child prints is one line of text that parses back to the same document.
  FUZZ_CHECK(json::parse(once.dump(-1, ' ', false, json::error_handler_t::replace), nullptr, false) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto doc = json::parse(amdml::fuzz::as_text(data, size), nullptr, false);
  if (doc.is_discarded()) return 0;
  std::vector<const json*> records = {&doc};
  if (doc.is_object())
    for (const char* key : {"hsa", "libdrm"})
      if (doc.contains(key)) records.push_back(&doc[key]);
  for (const json* j : records) {
    check<amdml::HsaFacts>(*j, amdml::formats::parse_hsa_record, amdml::formats::hsa_record_json);
    check<amdml::LibdrmFacts>(*j, amdml::formats::parse_libdrm_record, amdml::formats::libdrm_record_json);
  }
  return 0;
}
