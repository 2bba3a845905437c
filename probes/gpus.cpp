// Joins the three views of a GPU -- KFD node, DRM card, PCI device -- into the one list
// the report shows: KFD nodes in order, then GPUs KFD does not have, in PCI slot order.
// Join keys, most reliable first: render minor, PCI slot, then device id.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <set>

#include "formats/amdgpu_ids.hpp"
#include "platform/host.hpp"
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

static void fill_from_card(Gpu& g, const DrmCard& c) {
  g.card = c.card;
  if (!g.pci_slot && !c.pci_slot.empty()) g.pci_slot = c.pci_slot;
  if (!g.vendor_id) g.vendor_id = c.vendor;
  if (!g.device_id) g.device_id = c.device;
  if (!g.revision) g.revision = c.revision;
  g.vram = c.vram_total;
  g.vis_vram = c.vis_vram_total;
  g.gtt = c.gtt_total;
  if (c.render_node) g.render_node = c.render_node;
  if (c.driver) g.driver = c.driver;
  if (!g.unique_id && c.unique_id) g.unique_id = c.unique_id;
  if (!g.marketing_name && c.product_name) g.marketing_name = c.product_name;
}

static void fill_from_pci(Gpu& g, const PciGpu& p) {
  if (!g.pci_slot) g.pci_slot = p.slot;
  if (!g.vendor_id) g.vendor_id = p.vendor;
  if (!g.device_id) g.device_id = p.device;
  if (!g.revision) g.revision = p.revision;
  if (!g.driver) g.driver = p.driver;
}

// The marketing name by (device, revision), most specific first: the system's
// amdgpu.ids for exactly this revision, the built-in table for it, then -- the revision
// unknown to both -- the one name amdgpu.ids gives every revision of the device, else
// the built-in default, which names the family rather than guess a model.
static std::optional<std::string> pci_name(const Knowledge& kb, const formats::AmdgpuIds& ids, std::uint16_t device,
                                           std::optional<std::uint8_t> revision) {
  if (revision)
    if (const auto* n = ids.find(device, *revision)) return *n;
  const auto* prod = kb.find_pci(device, revision);
  if (prod && prod->revision && revision && *prod->revision == *revision) return prod->name;
  if (const auto* n = ids.only_name(device)) return *n;
  if (prod && !prod->revision) return prod->name;
  return std::nullopt;
}

static void fill_from_knowledge(Gpu& g, const Knowledge& kb, const formats::AmdgpuIds& ids) {
  if (g.device_id) {
    if (const auto* prod = kb.find_pci(*g.device_id, g.revision))
      if (!g.gfx) g.gfx = prod->gfx;
    // A product name by PCI id beats KFD's asic name; an FRU product name (Instinct)
    // was set from the card already and is kept.
    if (!g.marketing_name) g.marketing_name = pci_name(kb, ids, *g.device_id, g.revision);
  }
  if (g.gfx) {
    if (!g.gfx_target_version) g.gfx_target_version = g.gfx->kfd_version();
    if (const auto* info = kb.find_gfx(*g.gfx)) {
      if (!g.apu) g.apu = info->apu;
      if (!g.wave_size) g.wave_size = static_cast<std::uint32_t>(info->wave_size);
    }
  }
}

// libdrm's amdgpu.ids from the first place it is installed; empty when none is.
static formats::AmdgpuIds read_amdgpu_ids(const platform::Host& h, Facts& f) {
  for (const char* path : formats::kAmdgpuIdsPaths) {
    auto text = h.read_file(path, 1 << 20);
    if (text) {
      auto ids = formats::parse_amdgpu_ids(*text);
      if (ids.entries.empty()) f.error("gpus", path, "no device entries (not libdrm's amdgpu.ids format)");
      return ids;
    }
    if (text.error().code != ENOENT && text.error().code != ENOTDIR) f.error("gpus", path, text.error().message);
  }
  return {};
}

void gpus(const ProbeContext& ctx, Facts& f) {
  const bool none = f.pci.empty() && f.drm.cards.empty() && f.kfd.nodes.empty();
  const formats::AmdgpuIds ids = none ? formats::AmdgpuIds{} : read_amdgpu_ids(ctx.host, f);
  std::set<std::size_t> used_cards, used_pci;
  auto card_by = [&](auto pred) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < f.drm.cards.size(); ++i)
      if (pred(f.drm.cards[i])) return i;
    return std::nullopt;
  };
  std::size_t kfd_gpu_count = 0;
  for (const auto& n : f.kfd.nodes) kfd_gpu_count += n.cpu ? 0 : 1;
  for (const auto& n : f.kfd.nodes) {
    if (n.cpu) continue;
    Gpu g;
    g.kfd_node = n.index;
    g.gfx = n.gfx;
    g.gfx_target_version = n.gfx_target_version;
    if (n.vendor_id <= 0xffff && n.vendor_id) g.vendor_id = static_cast<std::uint16_t>(n.vendor_id);
    if (n.device_id <= 0xffff && n.device_id) g.device_id = static_cast<std::uint16_t>(n.device_id);
    // location_id 0 is 00:00.0, the host bridge: a node that reads 0 (an old kernel or a
    // truncated file) has no usable PCI location.
    if (n.location_id != 0) g.pci_slot = n.pci_slot();
    g.compute_units = n.compute_units;
    g.kfd_memory = n.memory;
    if (n.wave_front_size) g.wave_size = n.wave_front_size;
    if (n.unique_id && *n.unique_id) {
      char buf[24];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(*n.unique_id));
      g.unique_id = buf;
    }
    std::optional<std::size_t> ci;
    if (n.drm_render_minor) ci = card_by([&](const DrmCard& c) { return c.render_minor == n.drm_render_minor; });
    if (!ci && g.pci_slot)
      ci = card_by([&](const DrmCard& c) { return !c.pci_slot.empty() && c.pci_slot == *g.pci_slot; });
    if (!ci && g.device_id)
      for (std::size_t i = 0; i < f.drm.cards.size(); ++i)
        if (!used_cards.count(i) && f.drm.cards[i].device == g.device_id) {
          ci = i;
          break;
        }
    // Last resort, for a node with no join key at all: when KFD and DRM list the same
    // number of GPUs, the next card not yet joined is this node's (both enumerate in
    // probe order when nothing else distinguishes them).
    if (!ci && !n.drm_render_minor && !g.pci_slot && !g.device_id && kfd_gpu_count == f.drm.cards.size())
      for (std::size_t i = 0; i < f.drm.cards.size(); ++i)
        if (!used_cards.count(i)) {
          ci = i;
          break;
        }
    if (ci) {
      used_cards.insert(*ci);
      std::optional<std::string> kfd_slot = g.pci_slot;
      fill_from_card(g, f.drm.cards[*ci]);
      g.pci_slot = f.drm.cards[*ci].pci_slot.empty() ? kfd_slot : f.drm.cards[*ci].pci_slot;
    }
    if (n.drm_render_minor >= 128) g.render_node = "/dev/dri/renderD" + std::to_string(n.drm_render_minor);
    for (std::size_t i = 0; i < f.pci.size(); ++i)
      if (g.pci_slot && f.pci[i].slot == *g.pci_slot) {
        used_pci.insert(i);
        fill_from_pci(g, f.pci[i]);
      }
    fill_from_knowledge(g, ctx.kb, ids);
    f.gpus.push_back(std::move(g));
  }
  // GPUs without a KFD node: DRM cards not joined, then PCI devices with no card.
  std::vector<Gpu> extra;
  for (std::size_t i = 0; i < f.drm.cards.size(); ++i) {
    if (used_cards.count(i)) continue;
    Gpu g;
    fill_from_card(g, f.drm.cards[i]);
    for (std::size_t j = 0; j < f.pci.size(); ++j)
      if (f.pci[j].slot == f.drm.cards[i].pci_slot) {
        used_pci.insert(j);
        fill_from_pci(g, f.pci[j]);
      }
    fill_from_knowledge(g, ctx.kb, ids);
    extra.push_back(std::move(g));
  }
  for (std::size_t j = 0; j < f.pci.size(); ++j) {
    if (used_pci.count(j)) continue;
    Gpu g;
    fill_from_pci(g, f.pci[j]);
    fill_from_knowledge(g, ctx.kb, ids);
    extra.push_back(std::move(g));
  }
  std::stable_sort(extra.begin(), extra.end(),
                   [](const Gpu& a, const Gpu& b) { return a.pci_slot.value_or("") < b.pci_slot.value_or(""); });
  for (auto& g : extra) f.gpus.push_back(std::move(g));
}

}  // namespace amdml::probes
