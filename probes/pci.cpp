// AMD GPUs on PCI (vendor 0x1002, class 0x03xxxx display, or 0x12xxxx processing
// accelerator -- how MI300-series Instinct parts identify): seen even when no driver is
// bound, so "the card is there but amdgpu is not" is diagnosable.
#include "base/paths.hpp"
#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

void pci(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  const std::string base = "/sys/bus/pci/devices";
  auto entries = h.list_dir(base);
  if (!entries) {
    if (entries.error().code != ENOENT) f.error("pci", base, entries.error().message);
    return;
  }
  for (const auto& e : *entries) {
    const std::string dir = base + "/" + e.name;
    auto vendor = read_hex(h, f, "pci", dir + "/vendor");
    if (!vendor || *vendor != 0x1002) continue;
    auto cls = read_hex(h, f, "pci", dir + "/class");
    if (!cls) continue;
    const auto base_class = (*cls >> 16) & 0xff;
    if (base_class != 0x03 && base_class != 0x12) continue;
    PciGpu g;
    g.slot = e.name;
    g.vendor = 0x1002;
    g.class_code = static_cast<std::uint32_t>(*cls);
    if (auto d = read_hex(h, f, "pci", dir + "/device"); d && *d <= 0xffff) g.device = static_cast<std::uint16_t>(*d);
    if (auto r = read_hex(h, f, "pci", dir + "/revision"); r && *r <= 0xff) g.revision = static_cast<std::uint8_t>(*r);
    if (auto s = read_hex(h, f, "pci", dir + "/subsystem_vendor"); s && *s <= 0xffff)
      g.subsystem_vendor = static_cast<std::uint16_t>(*s);
    if (auto s = read_hex(h, f, "pci", dir + "/subsystem_device"); s && *s <= 0xffff)
      g.subsystem_device = static_cast<std::uint16_t>(*s);
    if (auto link = h.read_link(dir + "/driver")) {
      g.driver = paths::basename(*link);
    } else if (auto ue = h.read_file(dir + "/uevent", 1 << 14)) {
      auto kv = formats::parse::uevent(*ue);
      if (kv.count("DRIVER")) g.driver = kv["DRIVER"];
    }
    f.pci.push_back(std::move(g));
  }
}

}  // namespace amdml::probes
