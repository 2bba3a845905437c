// DRM cards driven by amdgpu (AMD vendor id): identity, memory sizes and the render
// node that belongs to the same PCI device.
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

static std::string last_component(const std::string& p) {
  auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

void drm(const ProbeContext& ctx, Facts& f) {
  const Host& h = ctx.host;
  const std::string base = "/sys/class/drm";
  auto entries = h.list_dir(base);
  if (!entries) {
    if (entries.error().code != ENOENT) f.error("drm", base, entries.error().message);
    return;
  }
  // Render nodes first: map PCI slot -> render node.
  std::map<std::string, std::pair<std::string, std::uint32_t>> render_by_slot;
  for (const auto& e : *entries) {
    if (e.name.rfind("renderD", 0) != 0) continue;
    auto minor = parse::u64(e.name.substr(7));
    if (!minor || *minor > 1023) continue;
    std::string slot;
    if (auto c = h.canonical(base + "/" + e.name + "/device")) slot = last_component(*c);
    if (auto ue = h.read_file(base + "/" + e.name + "/device/uevent", 1 << 14)) {
      auto kv = parse::uevent(*ue);
      if (kv.count("PCI_SLOT_NAME")) slot = kv["PCI_SLOT_NAME"];
    }
    if (!slot.empty()) render_by_slot[slot] = {"/dev/dri/" + e.name, static_cast<std::uint32_t>(*minor)};
  }
  for (const auto& e : *entries) {
    if (e.name.rfind("card", 0) != 0 || e.name.find('-') != std::string::npos) continue;
    if (!parse::u64(e.name.substr(4))) continue;
    const std::string dev = base + "/" + e.name + "/device";
    auto vendor = read_hex(h, f, "drm", dev + "/vendor");
    if (!vendor || *vendor != 0x1002) continue;
    DrmCard c;
    c.card = e.name;
    c.vendor = 0x1002;
    if (auto v = read_hex(h, f, "drm", dev + "/device"); v && *v <= 0xffff) c.device = static_cast<std::uint16_t>(*v);
    if (auto v = read_hex(h, f, "drm", dev + "/revision"); v && *v <= 0xff) c.revision = static_cast<std::uint8_t>(*v);
    if (auto canon = h.canonical(dev)) c.pci_slot = last_component(*canon);
    if (auto ue = h.read_file(dev + "/uevent", 1 << 14)) {
      auto kv = parse::uevent(*ue);
      if (kv.count("PCI_SLOT_NAME")) c.pci_slot = kv["PCI_SLOT_NAME"];
      if (kv.count("DRIVER")) c.driver = kv["DRIVER"];
    }
    if (auto v = read_u64(h, f, "drm", dev + "/mem_info_vram_total")) c.vram_total = Bytes{*v};
    if (auto v = read_u64(h, f, "drm", dev + "/mem_info_vis_vram_total")) c.vis_vram_total = Bytes{*v};
    if (auto v = read_u64(h, f, "drm", dev + "/mem_info_gtt_total")) c.gtt_total = Bytes{*v};
    if (auto v = read_value(h, f, "drm", dev + "/unique_id"); v && !v->empty()) c.unique_id = *v;
    if (auto v = read_value(h, f, "drm", dev + "/product_name"); v && !v->empty()) c.product_name = *v;
    if (auto it = render_by_slot.find(c.pci_slot); it != render_by_slot.end()) {
      c.render_node = it->second.first;
      c.render_minor = it->second.second;
    }
    f.drm.cards.push_back(std::move(c));
  }
}

}  // namespace amdml::probes
