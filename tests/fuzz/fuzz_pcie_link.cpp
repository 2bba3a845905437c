// Fuzz target: a PCI device's link attributes in sysfs (current_link_speed "16.0 GT/s
// PCIe", current_link_width "16", and the max_ pair), formats/pcie_link.hpp. Malformed
// text is "unknown" (nullopt), never a crash; what is read is in range and reads back
// the same from its own spelling, with or without the kernel's " PCIe" suffix.
#include <cmath>
#include <string>

#include "formats/pcie_link.hpp"
#include "fuzz_check.hpp"

namespace pcie = amdml::formats::pcie;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  if (auto v = pcie::link_speed(text)) {
    FUZZ_CHECK(*v > 0 && *v <= 1000);
    FUZZ_CHECK(text.find("GT/s") != std::string_view::npos);
    auto again = pcie::link_speed(pcie::speed_text(*v));
    FUZZ_CHECK(again && std::fabs(*again - *v) <= *v * 1e-3);
    auto suffixed = pcie::link_speed(pcie::speed_text(*v) + " PCIe\n");
    FUZZ_CHECK(suffixed && *suffixed == *again);
  }
  if (auto w = pcie::link_width(text)) {
    FUZZ_CHECK(*w >= 1 && *w <= 32);
    FUZZ_CHECK(pcie::link_width(std::to_string(*w) + "\n") == w);
  }
  return 0;
}
