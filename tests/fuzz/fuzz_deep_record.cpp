// Fuzz target: the deep record (formats/deep_record.hpp), what the deep children print
// and amdml-host.json keeps under "deep". The input is a JSON document, read as a whole
// record, as one step, and (when it is an object) its "deep" member. A record that reads
// must write back to a record that reads to the same document.
#include <nlohmann/json.hpp>

#include "formats/deep_record.hpp"
#include "fuzz_check.hpp"

namespace {

using nlohmann::json;

void check_record(const json& doc) {
  auto r = amdml::formats::parse_deep_record(doc);
  if (!r) {
    FUZZ_CHECK(!r.error().message.empty());
    return;
  }
  const json once = amdml::formats::deep_record_json(*r);
  auto again = amdml::formats::parse_deep_record(once);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(amdml::formats::deep_record_json(*again) == once);
}

void check_step(const json& doc) {
  auto r = amdml::formats::parse_deep_step(doc);
  if (!r) {
    FUZZ_CHECK(!r.error().message.empty());
    return;
  }
  const json once = amdml::formats::deep_step_json(*r);
  FUZZ_CHECK(once.contains("step") && once.contains("status"));
  auto again = amdml::formats::parse_deep_step(once);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(amdml::formats::deep_step_json(*again) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto doc = json::parse(amdml::fuzz::as_text(data, size), nullptr, false);
  if (doc.is_discarded()) return 0;
  check_record(doc);
  check_step(doc);
  if (doc.is_object() && doc.contains("deep")) check_record(doc["deep"]);
  return 0;
}
