// Fuzz target: llama.cpp's --list-devices output (formats/llama_devices.hpp). The input is
// the child's stdout (and, read a second time, its stderr). Promises: every device has a
// name without blanks, a backend that is that name's prefix, both sizes; what a device
// prints as reads back as the same device; the evidence is bounded.
#include <string>

#include "formats/llama_devices.hpp"
#include "fuzz_check.hpp"

namespace llama = amdml::formats::llama;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = amdml::fuzz::as_text(data, size);
  auto l = llama::parse_list_devices(text);
  FUZZ_CHECK(l.header || (l.devices.empty() && l.other.empty()));
  FUZZ_CHECK(l.devices.size() <= 64 && l.other.size() <= 64);
  for (const auto& d : l.devices) {
    FUZZ_CHECK(!d.name.empty());
    FUZZ_CHECK(d.name.find_first_of(" \t\r\n") == std::string::npos);
    FUZZ_CHECK(d.name.starts_with(d.backend));
    FUZZ_CHECK(d.total_mib && d.free_mib);
    FUZZ_CHECK(d.description.find('\n') == std::string::npos);
    if (d.name.size() <= 200 && d.description.size() <= 200) {
      auto again = llama::parse_list_devices("Available devices:\n  " + llama::device_line(d) + "\n");
      FUZZ_CHECK(again.devices.size() == 1);
      FUZZ_CHECK(again.devices[0].name == d.name && again.devices[0].description == d.description);
      FUZZ_CHECK(again.devices[0].total_mib == d.total_mib && again.devices[0].free_mib == d.free_mib);
    }
  }
  amdml::CommandResult r;
  r.out = std::string(text);
  r.err = std::string(text);
  auto d = llama::device_list(r);
  FUZZ_CHECK(d.ran);
  FUZZ_CHECK(d.listed == l.header);
  FUZZ_CHECK(d.listed || d.error);
  FUZZ_CHECK(d.output.size() <= 2003);
  return 0;
}
