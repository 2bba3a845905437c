// Fuzz target: fix parameters in JSON (the fix journal's recorded requests, the report's
// fix.params). What reads back writes out as JSON that reads back to the same value.
#include "formats/fix_params_json.hpp"
#include "formats/json.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto doc = amdml::formats::parse_json(amdml::fuzz::as_text(data, size));
  if (!doc) return 0;
  auto params = amdml::formats::parse_fix_params(*doc);
  if (!params) {
    FUZZ_CHECK(!params.error().message.empty());
    return 0;
  }
  auto again = amdml::formats::parse_fix_params(amdml::formats::fix_params_json(*params));
  FUZZ_CHECK(again && *again == *params);
  return 0;
}
