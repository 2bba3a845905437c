// Fuzz target: libdrm's amdgpu.ids (device, revision, marketing name) as the gpus probe
// reads it from /usr/share/libdrm.
#include "formats/amdgpu_ids.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto ids = amdml::formats::parse_amdgpu_ids(text);
  FUZZ_CHECK(ids.malformed >= 0);
  FUZZ_CHECK(ids.version.size() <= size);
  for (const auto& e : ids.entries) {
    FUZZ_CHECK(!e.name.empty() && e.name.size() <= 128);
    FUZZ_CHECK(e.name.find('\n') == std::string::npos);
    // libdrm's lookup finds an entry for its own (device, revision).
    const std::string* n = ids.find(e.device, e.revision);
    FUZZ_CHECK(n != nullptr);
    const std::string* only = ids.only_name(e.device);
    FUZZ_CHECK(only == nullptr || *only == e.name);  // one name for the device: every entry has it
  }
  return 0;
}
