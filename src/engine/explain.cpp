// amdml explain <subject>: what the knowledge base knows about a gfx target (gfx1103,
// or its override spelling 11.0.3), a PCI device (1002:15bf, 15bf), a product name
// ("7900 XTX", "780M") or a finding id --
// family, products, support per ROCm release, override and caveats, the PyTorch index,
// or the finding's documentation page. Reads no machine state.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "engine/pipeline.hpp"
#include "model/knowledge_search.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"
#include "platform/embedded.hpp"

namespace amdml::engine {

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

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : sep) + e;
  return s;
}

// How a release treats a target: official, kernels (unofficial but native), an
// override to a target with kernels, or nothing.
struct ReleaseSupport {
  std::string status;  // "official", "kernels", "override", "none"
  std::string detail;
};

ReleaseSupport support_in(const Knowledge& kb, const GfxInfo& g, const RocmRelease& r) {
  if (r.is_official(g.target)) return {"official", "official support, native kernels"};
  if (r.has_kernels(g.target)) return {"kernels", "native kernels, not on AMD's official list"};
  if (g.override_to && r.has_kernels(*g.override_to))
    return {"override", "no kernels; HSA_OVERRIDE_GFX_VERSION=" + g.override_to->version_string()};
  return {"none", "no kernels, no override"};
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
    auto s = support_in(kb, g, r);
    rel.push_back({{"rocm", short_version(r.version)}, {"status", s.status}, {"detail", s.detail}});
  }
  j["rocm"] = rel;
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
  row("Products", join(g.products));
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
    out += "  " + v + std::string(v.size() < 8 ? 8 - v.size() : 1, ' ') + support_in(kb, g, r).detail + "\n";
  }
  if (auto pc = kb.pytorch_for({g.target}); pc.wheel) {
    out += "\nPyTorch\n  pip install torch --index-url " + pc.wheel->index + "\n";
    if (pc.needs_override) out += "  with HSA_OVERRIDE_GFX_VERSION=" + g.override_to->version_string() + "\n";
  }
  return out;
}

// "1002:15bf", "0x15bf", "15bf" -> device id.
std::optional<std::uint16_t> pci_subject(const std::string& s) {
  std::string d = s;
  for (auto& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (d.rfind("1002:", 0) == 0) d = d.substr(5);
  if (d.rfind("0x", 0) == 0) d = d.substr(2);
  if (d.size() != 4 || !std::all_of(d.begin(), d.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return static_cast<std::uint16_t>(std::stoul(d, nullptr, 16));
}

const EmbeddedFile* finding_doc(const std::string& id) {
  for (const auto& f : embedded_finding_docs())
    if (std::string(f.path) == id + ".md") return &f;
  return nullptr;
}

// The products of a PCI id or a product-name search, and every gfx target among them.
void add_products(const Knowledge& kb, const std::vector<const PciProduct*>& products, nlohmann::json& j,
                  std::string& text) {
  nlohmann::json variants = nlohmann::json::array();
  std::vector<GfxTarget> targets;
  for (const auto* p : products) {
    variants.push_back({{"pci_id", "1002:" + hex4(p->device)},
                        {"revision", p->revision ? nlohmann::json("0x" + hex2(*p->revision)) : nlohmann::json(nullptr)},
                        {"name", p->name},
                        {"gfx_target", p->gfx.name()}});
    text += "  " + std::string(p->revision ? "rev " + hex2(*p->revision) : "default") + std::string(p->revision ? 2 : 1, ' ') +
            "  " + p->name + " (" + p->gfx.name() + ", 1002:" + hex4(p->device) + ")\n";
    if (std::find(targets.begin(), targets.end(), p->gfx) == targets.end()) targets.push_back(p->gfx);
  }
  j["products"] = variants;
  j["gfx"] = nlohmann::json::array();
  for (const auto& t : targets)
    if (const auto* info = kb.find_gfx(t)) {
      j["gfx"].push_back(gfx_json(kb, *info));
      text += "\n" + gfx_text(kb, *info);
    }
}

// The nearest finding ids, gfx targets and product names to a subject amdml does not
// know. Product names are also compared without "AMD Radeon (RX)", as people type them.
std::vector<std::string> suggest(const Knowledge& kb, const std::string& subject) {
  std::vector<std::string> forms, shown;
  auto add = [&](std::string form, const std::string& show) {
    forms.push_back(std::move(form));
    shown.push_back(show);
  };
  for (const auto& f : finding_catalog()) add(std::string(f.name), std::string(f.name));
  for (const auto& g : kb.gfx) add(g.target.name(), g.target.name());
  for (const auto& p : kb.pci) {
    std::string n = p.name;
    add(n, p.name);
    for (const char* prefix : {"AMD ", "Radeon ", "RX ", "Instinct ", "PRO "})
      if (n.rfind(prefix, 0) == 0) {
        n = n.substr(std::string(prefix).size());
        add(n, p.name);
      }
  }
  std::vector<std::string> out;
  for (const auto& form : nearest(subject, forms, forms.size())) {
    for (std::size_t i = 0; i < forms.size(); ++i)
      if (forms[i] == form && std::find(out.begin(), out.end(), shown[i]) == out.end()) out.push_back(shown[i]);
    if (out.size() >= 3) break;
  }
  if (out.size() > 3) out.resize(3);
  return out;
}

}  // namespace

int explain(const GlobalOptions& g, const ExplainOptions& o) {
  Session s;  // no host: explain reads no machine state
  open_knowledge(g, s);
  const Knowledge& kb = s.kb;
  const bool json = o.format == Format::json;
  nlohmann::json j{{"schema", "amdml.explain/1"}, {"subject", o.subject}};
  std::string text;

  if (const FindingSpec* spec = find_finding_spec(o.subject)) {
    const EmbeddedFile* doc = finding_doc(std::string(spec->name));
    j["kind"] = "finding";
    j["id"] = std::string(spec->name);
    j["severity"] = to_string(spec->severity);
    j["summary"] = std::string(spec->summary);
    j["page"] = doc ? nlohmann::json(doc->text) : nlohmann::json(nullptr);
    text = doc ? std::string(doc->text)
               : std::string(spec->name) + " (" + std::string(to_string(spec->severity)) + "): " + std::string(spec->summary) + "\n";
  } else if (auto t = GfxTarget::parse_name(o.subject); t && o.subject.size() > 3 && kb.find_gfx(*t)) {
    j["kind"] = "gfx";
    j["gfx"] = gfx_json(kb, *kb.find_gfx(*t));
    text = gfx_text(kb, *kb.find_gfx(*t));
  } else if (auto v = parse_hsa_override(o.subject); v.target && kb.find_gfx(*v.target)) {
    j["kind"] = "gfx";
    j["gfx"] = gfx_json(kb, *kb.find_gfx(*v.target));
    text = gfx_text(kb, *kb.find_gfx(*v.target));
  } else if (auto dev = pci_subject(o.subject); dev && kb.find_pci(*dev, std::nullopt)) {
    j["kind"] = "pci";
    j["pci_id"] = "1002:" + hex4(*dev);
    text = "1002:" + hex4(*dev) + "\n";
    std::vector<const PciProduct*> products;
    for (const auto& p : kb.pci)
      if (p.device == *dev) products.push_back(&p);
    add_products(kb, products, j, text);
  } else if (auto named = products_named(kb, o.subject); !named.empty()) {
    j["kind"] = "product";
    text = "Products matching '" + o.subject + "':\n";
    add_products(kb, named, j, text);
  } else {
    auto suggestions = suggest(kb, o.subject);
    std::string msg = "explain: unknown subject '" + o.subject +
                      "' (expected a gfx target like gfx1103, a PCI id like 1002:15bf, a product name like \"7900 XTX\", "
                      "or a finding id)";
    if (!suggestions.empty()) msg += "; did you mean " + join(suggestions, " or ") + "?";
    if (json) {
      j["kind"] = "error";
      j["error"] = msg;
      j["suggestions"] = suggestions;
      write_stdout(json_text(j) + "\n");
    }
    throw UsageError(msg);
  }
  if (json) write_stdout(json_text(j) + "\n");
  else emit_text("", text);
  return kExitOk;
}

}  // namespace amdml::engine
