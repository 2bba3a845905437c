// The PCIe path of a discrete GPU (probes/deep_link.hpp).
#include "probes/deep_link.hpp"

#include <cctype>

#include "base/paths.hpp"
#include "formats/pcie_link.hpp"

namespace amdml::probes {
namespace {

// "0000:03:00.0": domain:bus:device.function in hex, as sysfs names a PCI device.
bool is_pci_address(const std::string& s) {
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i == 4 || i == 7 || i == 10) continue;
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

PcieLink read_link(const platform::Host& h, const std::string& dir, const char* speed, const char* width) {
  PcieLink l;
  if (auto t = h.read_file(dir + "/" + speed, 256)) l.gts = formats::pcie::link_speed(*t);
  if (auto t = h.read_file(dir + "/" + width, 256)) l.width = formats::pcie::link_width(*t);
  return l;
}

}  // namespace

std::optional<DeepLink> read_pcie_link(const platform::Host& h, const std::string& slot) {
  if (!is_pci_address(slot)) return std::nullopt;
  auto dev = h.canonical("/sys/bus/pci/devices/" + slot);
  if (!dev) return std::nullopt;
  DeepLink link;
  link.slot = slot;
  link.max = read_link(h, *dev, "max_link_speed", "max_link_width");
  double least = 0;
  // Up the path: the GPU, then the switch ports and bridges above it (a discrete Radeon
  // has a switch of its own on the board), to the root port; "pci0000:00", the host
  // bridge, ends it. A bounded walk: PCI buses nest at most 256 deep.
  std::string dir = *dev;
  for (int depth = 0; depth < 256 && is_pci_address(paths::basename(dir)); ++depth, dir = paths::dirname(dir)) {
    PcieLink cur = read_link(h, dir, "current_link_speed", "current_link_width");
    if (!cur.gts || !cur.width) continue;
    ++link.links;
    double bw = *cur.gts * *cur.width;
    if (link.links == 1 || bw < least) {
      least = bw;
      link.current = cur;
      link.limited_at = paths::basename(dir);
    }
  }
  if (link.links == 0 && !link.max.gts && !link.max.width) return std::nullopt;
  return link;
}

}  // namespace amdml::probes
