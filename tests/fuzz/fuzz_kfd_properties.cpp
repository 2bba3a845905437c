// Fuzz target: KFD topology "key value" files (nodes/N/properties, mem_banks/N/properties).
#include <algorithm>

#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto kv = amdml::formats::parse::kfd_properties(text);
  auto lines = amdml::text::split_lines(text);
  FUZZ_CHECK(kv.malformed >= 0);
  FUZZ_CHECK(kv.values.size() + static_cast<std::size_t>(kv.malformed) <= lines.size());
  for (const auto& [k, v] : kv.values) {
    FUZZ_CHECK(!k.empty());
    FUZZ_CHECK(k.find_first_of(" \t\n") == std::string::npos);
    FUZZ_CHECK(kv.get(k) == v);
  }
  return 0;
}
