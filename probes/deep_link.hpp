// The PCIe path of a discrete GPU for doctor --deep (docs/deep.md): read through the Host
// from the GPU's PCI device directory in sysfs and every PCI device above it, so the
// copy bandwidth can be held against what the link moves. Plain doctor never reads it.
#pragma once

#include <optional>
#include <string>

#include "amdml/facts_deep.hpp"
#include "platform/host.hpp"

namespace amdml::probes {

// The link of the GPU at `slot` ("0000:03:00.0"): /sys/bus/pci/devices/SLOT resolved to
// its place under /sys/devices/pci..., then each directory up to the host bridge that is
// a PCI device. The copy crosses all of their links, so the slowest one limits it: as the
// kernel's pcie_bandwidth_available() does (drivers/pci/pci.c), the link with the least
// speed x width is taken, and named. nullopt when the slot does not resolve or no device
// on the path has readable link files.
std::optional<DeepLink> read_pcie_link(const platform::Host& h, const std::string& slot);

}  // namespace amdml::probes
