// DRM cards driven by amdgpu (AMD vendor id): identity, memory sizes and the render
// node that belongs to the same PCI device.
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "base/paths.hpp"
#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

namespace {

// The PCI slot a class entry's device is: the uevent's PCI_SLOT_NAME, else the last
// component of the resolved device link; empty when neither can be read (a dangling link).
std::string slot_of(const platform::Host& h, const std::string& entry) {
  std::string slot;
  if (auto c = h.canonical(entry + "/device")) slot = paths::basename(*c);
  if (auto ue = h.read_file(entry + "/device/uevent", 1 << 14)) {
    auto kv = formats::parse::uevent(*ue);
    if (kv.count("PCI_SLOT_NAME")) slot = kv["PCI_SLOT_NAME"];
  }
  return slot;
}

std::optional<std::uint32_t> render_minor(const std::string& name) {
  if (!name.starts_with("renderD")) return std::nullopt;
  auto minor = text::u64(name.substr(7));
  if (!minor || *minor > 1023) return std::nullopt;
  return static_cast<std::uint32_t>(*minor);
}

using RenderNode = std::pair<std::string, std::uint32_t>;

}  // namespace

void drm(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  const std::string base = "/sys/class/drm";
  auto entries = h.list_dir(base);
  if (!entries) {
    if (entries.error().code != ENOENT) f.error("drm", base, entries.error().message);
    return;
  }
  // Every render node's PCI slot, resolved from its class link: only needed for a card
  // whose device has no readable drm/ directory (built on first use).
  std::optional<std::map<std::string, RenderNode>> all_renders;
  auto render_by_slot = [&](const std::string& slot) -> std::optional<RenderNode> {
    if (!all_renders) {
      all_renders.emplace();
      for (const auto& e : *entries)
        if (auto minor = render_minor(e.name))
          if (std::string s = slot_of(h, base + "/" + e.name); !s.empty()) (*all_renders)[s] = {"/dev/dri/" + e.name, *minor};
    }
    auto it = all_renders->find(slot);
    if (it == all_renders->end()) return std::nullopt;
    return it->second;
  };
  // The card's render node from its own device's drm/ directory: a real MI300X has 8
  // render nodes per GPU in /sys/class/drm, 7 of them XCP partitions on platform devices,
  // so resolving every class link was most of this probe's cost (issue 16). A candidate
  // counts only when its class entry resolves back to the card's slot, as before, so a
  // dangling class link still gives no render node; the last match in class order wins.
  std::optional<std::unordered_map<std::string, std::size_t>> class_index;  // name -> place in entries
  auto render_of = [&](const std::string& dev, const std::string& slot) -> std::optional<RenderNode> {
    auto own = h.list_dir(dev + "/drm");
    if (!own) return render_by_slot(slot);
    // Each of the device's own render nodes looked up among the class entries by name,
    // rather than a pass over every class entry per card (16 GPUs: 259 entries).
    if (!class_index) {
      class_index.emplace();
      for (std::size_t i = 0; i < entries->size(); ++i) (*class_index)[(*entries)[i].name] = i;
    }
    std::optional<RenderNode> found;
    std::size_t found_at = 0;
    for (const auto& o : *own) {
      if (!render_minor(o.name)) continue;
      auto it = class_index->find(o.name);
      if (it == class_index->end() || (found && it->second < found_at)) continue;
      if (slot_of(h, base + "/" + o.name) != slot) continue;
      found = RenderNode{"/dev/dri/" + o.name, *render_minor(o.name)};
      found_at = it->second;
    }
    return found;
  };
  // The cards of the AMD PCI devices the pci probe found, from each device's own drm/
  // directory; the other cards (the XCP partitions' platform devices, a BMC) are not
  // read. Without a PCI list, or when a device's drm/ cannot be listed (no driver bound,
  // or a tree that lays sysfs out differently), every card's vendor is read as before.
  std::optional<std::set<std::string>> amd_cards;
  if (!f.pci.empty()) {
    amd_cards.emplace();
    for (const auto& g : f.pci) {
      auto own = h.list_dir("/sys/bus/pci/devices/" + g.slot + "/drm");
      if (!own) {
        amd_cards.reset();
        break;
      }
      for (const auto& e : *own)
        if (e.name.starts_with("card")) amd_cards->insert(e.name);
    }
  }
  for (const auto& e : *entries) {
    if (!e.name.starts_with("card") || e.name.find('-') != std::string::npos) continue;
    if (!text::u64(e.name.substr(4))) continue;
    if (amd_cards && !amd_cards->count(e.name)) continue;
    const std::string dev = base + "/" + e.name + "/device";
    auto vendor = read_hex(h, f, "drm", dev + "/vendor");
    if (!vendor || *vendor != 0x1002) continue;
    DrmCard c;
    c.card = e.name;
    c.vendor = 0x1002;
    if (auto v = read_hex(h, f, "drm", dev + "/device"); v && *v <= 0xffff) c.device = static_cast<std::uint16_t>(*v);
    if (auto v = read_hex(h, f, "drm", dev + "/revision"); v && *v <= 0xff) c.revision = static_cast<std::uint8_t>(*v);
    if (auto canon = h.canonical(dev)) c.pci_slot = paths::basename(*canon);
    if (auto ue = h.read_file(dev + "/uevent", 1 << 14)) {
      auto kv = formats::parse::uevent(*ue);
      if (kv.count("PCI_SLOT_NAME")) c.pci_slot = kv["PCI_SLOT_NAME"];
      if (kv.count("DRIVER")) c.driver = kv["DRIVER"];
    }
    if (auto v = read_u64(h, f, "drm", dev + "/mem_info_vram_total")) c.vram_total = Bytes{*v};
    if (auto v = read_u64(h, f, "drm", dev + "/mem_info_vis_vram_total")) c.vis_vram_total = Bytes{*v};
    if (auto v = read_u64(h, f, "drm", dev + "/mem_info_gtt_total")) c.gtt_total = Bytes{*v};
    if (auto v = read_value(h, f, "drm", dev + "/unique_id"); v && !v->empty()) c.unique_id = *v;
    if (auto v = read_value(h, f, "drm", dev + "/product_name"); v && !v->empty()) c.product_name = *v;
    if (!c.pci_slot.empty()) {
      if (auto r = render_of(dev, c.pci_slot)) {
        c.render_node = r->first;
        c.render_minor = r->second;
      }
    }
    f.drm.cards.push_back(std::move(c));
  }
}

}  // namespace amdml::probes
