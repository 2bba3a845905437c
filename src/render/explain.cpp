#include "render/explain.hpp"

#include <algorithm>
#include <cstdio>

#include "base/text.hpp"

namespace amdml::render {

namespace {

std::string hex4(std::uint32_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "%04x", v);
  return b;
}
std::string hex2(std::uint32_t v) {
  char b[8];
  std::snprintf(b, sizeof b, "%02x", v);
  return b;
}

// How a release treats a target: official, kernels (unofficial but native), an
// override to a target with kernels, or nothing.
struct ReleaseSupport {
  std::string status;  // "official", "kernels", "override", "none"
  std::string detail;
};

ReleaseSupport support_in(const GfxInfo& g, const RocmRelease& r) {
  if (r.is_official(g.target)) return {"official", "official support, native kernels"};
  if (r.has_kernels(g.target)) return {"kernels", "native kernels, not on AMD's official list"};
  if (g.override_to && r.has_kernels(*g.override_to))
    return {"override", "no kernels; HSA_OVERRIDE_GFX_VERSION=" + g.override_to->version_string()};
  return {"none", "no kernels, no override"};
}

// How to install the newest release with g's kernels: each AMD channel carrying it and
// the package (or download) with g's device code. AMD's native packages exist for the
// official targets only (RD-inst714), so a kernels-only target gets pip and tarballs.
struct InstallRow {
  const ChannelSpec* channel;
  std::string release;  // "10.1"
  std::string what;     // "amdrocm10.1-gfx1201", "rocm-sdk-device-gfx1031", a tarball URL
};

std::vector<InstallRow> install_rows(const Knowledge& kb, const GfxInfo& g) {
  const RocmRelease* r = nullptr;
  for (auto it = kb.rocm.rbegin(); it != kb.rocm.rend() && !r; ++it)
    if (it->has_kernels(g.target)) r = &*it;
  std::vector<InstallRow> out;
  if (!r) return out;
  const std::string rel = short_version(r->version);
  for (const auto* ch : kb.channels_for(r->version)) {
    if (ch->distro_own || ch->id == "amd-legacy") continue;
    if ((ch->kind == "apt" || ch->kind == "dnf") && !r->is_official(g.target)) continue;
    const auto full_it = ch->full.find(rel);
    const std::string full = full_it != ch->full.end() ? full_it->second.str() : r->version.str();
    std::string what = ch->kind == "tarball" ? ch->repo : ch->device;
    if (ch->kind == "tarball") {
      auto fam = ch->families.find(g.target.name());
      if (fam == ch->families.end()) continue;  // no tarball of its own family
      what = text::replace_all(what, "{family}", fam->second);
    }
    what = text::replace_all(text::replace_all(text::replace_all(what, "{rocm}", rel), "{version}", full), "{gfx}", g.target.name());
    out.push_back({ch, rel, what});
  }
  return out;
}

nlohmann::json gfx_json(const Knowledge& kb, const GfxInfo& g) {
  nlohmann::json j;
  j["gfx_target"] = g.target.name();
  j["gfx_target_version"] = g.kfd_version;
  j["family"] = g.family;
  j["isa"] = to_string(g.isa);
  j["wave_size"] = g.wave_size;
  j["apu"] = g.apu;
  j["products"] = g.products;
  nlohmann::json pci = nlohmann::json::array();
  for (const auto* p : kb.pci_for(g.target)) {
    nlohmann::json e{{"pci_id", "1002:" + hex4(p->device)}, {"name", p->name}};
    e["revision"] = p->revision ? nlohmann::json("0x" + hex2(*p->revision)) : nlohmann::json(nullptr);
    pci.push_back(e);
  }
  j["pci"] = pci;
  j["override"] = g.override_to ? nlohmann::json(g.override_to->version_string()) : nlohmann::json(nullptr);
  j["override_caveat"] = g.override_caveat.empty() ? nlohmann::json(nullptr) : nlohmann::json(g.override_caveat);
  j["kernel_min"] = g.kernel_min ? nlohmann::json(g.kernel_min->str()) : nlohmann::json(nullptr);
  if (const auto* req = kb.kernel_req_for(g.target)) j["kernel_min"] = req->kernel_min.str();
  j["notes"] = g.notes;
  j["rocm_never"] = g.rocm_never;
  nlohmann::json rel = nlohmann::json::array();
  for (const auto& r : kb.rocm) {
    auto s = support_in(g, r);
    nlohmann::json e{{"rocm", short_version(r.version)}, {"status", s.status}, {"detail", s.detail}};
    if (!r.date.empty()) e["date"] = r.date;
    rel.push_back(e);
  }
  j["rocm"] = rel;
  nlohmann::json install = nlohmann::json::array();
  for (const auto& row : install_rows(kb, g))
    install.push_back({{"channel", row.channel->id}, {"kind", row.channel->kind}, {"rocm", row.release},
                       {"title", row.channel->title}, {"package", row.what}});
  j["install"] = install;
  // The same choice the doctor makes (Knowledge::pytorch_for).
  auto pc = kb.pytorch_for({g.target});
  j["pytorch_index"] = pc.wheel ? nlohmann::json(pc.wheel->index) : nlohmann::json(nullptr);
  j["pytorch_needs_override"] = pc.needs_override;
  return j;
}

std::string gfx_text(const Knowledge& kb, const GfxInfo& g) {
  std::string out = g.target.name() + " - " + g.family + "\n";
  auto row = [&](const char* k, const std::string& v) {
    if (!v.empty()) out += "  " + std::string(k) + std::string(14 - std::string(k).size(), ' ') + v + "\n";
  };
  row("ISA", std::string(to_string(g.isa)) + ", wave" + std::to_string(g.wave_size) + (g.apu ? ", APU (integrated)" : ", discrete GPU"));
  row("KFD version", std::to_string(g.kfd_version) + " (override spelling " + g.target.version_string() + ")");
  row("Products", text::join(g.products, ", "));
  std::vector<std::string> ids;
  for (const auto* p : kb.pci_for(g.target))
    ids.push_back("1002:" + hex4(p->device) + (p->revision ? " rev " + hex2(*p->revision) : "") + " " + p->name);
  if (!ids.empty()) out += "  PCI ids\n";
  for (const auto& s : ids) out += "    " + s + "\n";
  if (g.override_to) {
    row("Override", "HSA_OVERRIDE_GFX_VERSION=" + g.override_to->version_string() + " (runs " + g.override_to->name() + " code)");
    row("Caveat", g.override_caveat);
  } else {
    row("Override", "none known to work");
  }
  if (const auto* req = kb.kernel_req_for(g.target))
    row("Kernel", ">= " + req->kernel_min.str() + ": " + req->why);
  else if (g.kernel_min)
    row("Kernel", ">= " + g.kernel_min->str() + ": " + g.kernel_note);
  row("Notes", g.notes);
  if (g.rocm_never) row("ROCm", "never supported by any release; use Vulkan");
  out += "\nROCm releases\n";
  for (const auto& r : kb.rocm) {
    std::string v = short_version(r.version);
    std::string date = r.date.empty() ? std::string(10, ' ') : r.date;
    out += "  " + v + std::string(v.size() < 8 ? 8 - v.size() : 1, ' ') + date + "  " + support_in(g, r).detail + "\n";
  }
  if (auto rows = install_rows(kb, g); !rows.empty()) {
    out += "\nInstall ROCm " + rows.front().release + "\n";
    for (const auto& ir : rows)
      out += "  " + ir.channel->kind + std::string(ir.channel->kind.size() < 9 ? 9 - ir.channel->kind.size() : 1, ' ') +
             ir.what + "   (" + ir.channel->title + ")\n";
  }
  if (auto pc = kb.pytorch_for({g.target}); pc.wheel) {
    out += "\nPyTorch\n  pip install torch --index-url " + pc.wheel->index + "\n";
    if (!pc.wheel->requires_dist.empty())
      out += "  (ROCm is not in the wheel: it requires " + pc.wheel->requires_dist + ", which pip takes from the same index)\n";
    if (pc.needs_override) out += "  with HSA_OVERRIDE_GFX_VERSION=" + g.override_to->version_string() + "\n";
  }
  return out;
}

// Every distinct gfx target among the products, in order of first appearance.
std::vector<const GfxInfo*> product_targets(const Knowledge& kb, const std::vector<const PciProduct*>& products) {
  std::vector<GfxTarget> targets;
  for (const auto* p : products)
    if (std::find(targets.begin(), targets.end(), p->gfx) == targets.end()) targets.push_back(p->gfx);
  std::vector<const GfxInfo*> out;
  for (const auto& t : targets)
    if (const auto* info = kb.find_gfx(t)) out.push_back(info);
  return out;
}

// The products of a PCI id or a product-name search, and every gfx target among them.
std::string products_text(const Knowledge& kb, const std::vector<const PciProduct*>& products) {
  std::string text;
  for (const auto* p : products)
    text += "  " + std::string(p->revision ? "rev " + hex2(*p->revision) : "default") + std::string(p->revision ? 2 : 1, ' ') +
            "  " + p->name + " (" + p->gfx.name() + ", 1002:" + hex4(p->device) + ")\n";
  for (const auto* info : product_targets(kb, products)) text += "\n" + gfx_text(kb, *info);
  return text;
}

void add_products_json(const Knowledge& kb, const std::vector<const PciProduct*>& products, nlohmann::json& j) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto* p : products)
    variants.push_back({{"pci_id", "1002:" + hex4(p->device)},
                        {"revision", p->revision ? nlohmann::json("0x" + hex2(*p->revision)) : nlohmann::json(nullptr)},
                        {"name", p->name},
                        {"gfx_target", p->gfx.name()}});
  j["products"] = variants;
  j["gfx"] = nlohmann::json::array();
  for (const auto* info : product_targets(kb, products)) j["gfx"].push_back(gfx_json(kb, *info));
}

}  // namespace

std::string render_explain_text(const Knowledge& kb, const Explanation& e) {
  switch (e.kind) {
    case Explanation::Kind::finding:
      return e.page ? *e.page
                    : std::string(e.finding->name) + " (" + std::string(to_string(e.finding->severity)) +
                          "): " + std::string(e.finding->summary) + "\n";
    case Explanation::Kind::gfx: return gfx_text(kb, *e.gfx);
    case Explanation::Kind::pci: return "1002:" + hex4(e.pci_device) + "\n" + products_text(kb, e.products);
    case Explanation::Kind::product: return "Products matching '" + e.subject + "':\n" + products_text(kb, e.products);
    case Explanation::Kind::error: break;
  }
  return e.error + "\n";
}

nlohmann::json explain_json(const Knowledge& kb, const Explanation& e) {
  nlohmann::json j{{"schema", "amdml.explain/1"}, {"subject", e.subject}};
  switch (e.kind) {
    case Explanation::Kind::finding:
      j["kind"] = "finding";
      j["id"] = std::string(e.finding->name);
      j["severity"] = to_string(e.finding->severity);
      j["summary"] = std::string(e.finding->summary);
      j["page"] = e.page ? nlohmann::json(*e.page) : nlohmann::json(nullptr);
      break;
    case Explanation::Kind::gfx:
      j["kind"] = "gfx";
      j["gfx"] = gfx_json(kb, *e.gfx);
      break;
    case Explanation::Kind::pci:
      j["kind"] = "pci";
      j["pci_id"] = "1002:" + hex4(e.pci_device);
      add_products_json(kb, e.products, j);
      break;
    case Explanation::Kind::product:
      j["kind"] = "product";
      add_products_json(kb, e.products, j);
      break;
    case Explanation::Kind::error:
      j["kind"] = "error";
      j["error"] = e.error;
      j["suggestions"] = e.suggestions;
      break;
  }
  return j;
}

}  // namespace amdml::render