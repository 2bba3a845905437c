// A PCI device's link attributes in sysfs (/sys/bus/pci/devices/<slot>/current_link_speed,
// current_link_width, max_link_speed, max_link_width), read for doctor --deep's copy
// bandwidth (docs/deep.md).
//
// The format, from the kernel (drivers/pci/pci-sysfs.c, the *_link_speed_show and
// *_link_width_show attributes): a speed is pci_speed_string() of the link's rate since
// Linux 5.7 -- "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe",
// "32.0 GT/s PCIe", "64.0 GT/s PCIe", or "Unknown" -- and before 5.7 the PCIE_SPEED2STR
// form without ".0" and "PCIe" ("8 GT/s", "Unknown speed"); a width is the negotiated
// lane count as "%u" ("16"), 0 when the link is down. Each file ends with a newline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amdml::formats::pcie {

// The rate in GT/s of a link speed text; nullopt for "Unknown", an empty file or
// anything that is not "<number> GT/s" (optionally followed by "PCIe").
std::optional<double> link_speed(std::string_view text);

// The lane count of a link width text (1 to 32); nullopt for 0 (no link), a number out
// of range or anything else.
std::optional<std::uint32_t> link_width(std::string_view text);

// A rate as people write it: "16 GT/s", "2.5 GT/s".
std::string speed_text(double gts);

}  // namespace amdml::formats::pcie
