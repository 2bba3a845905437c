// Loading the knowledge base from recipes/knowledge/*.toml; lookups over it.
#include "amdml/knowledge.hpp"

#include <algorithm>
#include <toml++/toml.h>

#include "amdml/parse.hpp"
#include "engine/embedded.hpp"
#include "platform/recipes_dir.hpp"

namespace amdml {

const char* to_string(IsaFamily f) {
  switch (f) {
    case IsaFamily::gcn: return "gcn";
    case IsaFamily::cdna: return "cdna";
    case IsaFamily::rdna1: return "rdna1";
    case IsaFamily::rdna2: return "rdna2";
    case IsaFamily::rdna3: return "rdna3";
    case IsaFamily::rdna3_5: return "rdna3.5";
    case IsaFamily::rdna4: return "rdna4";
    case IsaFamily::unknown: return "unknown";
  }
  return "unknown";
}

std::optional<IsaFamily> parse_isa_family(const std::string& s) {
  for (auto f : {IsaFamily::gcn, IsaFamily::cdna, IsaFamily::rdna1, IsaFamily::rdna2, IsaFamily::rdna3,
                 IsaFamily::rdna3_5, IsaFamily::rdna4})
    if (s == to_string(f)) return f;
  return std::nullopt;
}

const GfxInfo* Knowledge::find_gfx(const GfxTarget& t) const {
  for (const auto& g : gfx)
    if (g.target == t) return &g;
  return nullptr;
}

const PciProduct* Knowledge::find_pci(std::uint16_t device, std::optional<std::uint8_t> revision) const {
  const PciProduct* fallback = nullptr;
  for (const auto& p : pci) {
    if (p.device != device) continue;
    if (p.revision && revision && *p.revision == *revision) return &p;
    if (!p.revision && !fallback) fallback = &p;
  }
  if (!fallback)
    for (const auto& p : pci)
      if (p.device == device) return &p;
  return fallback;
}

const RocmRelease* Knowledge::find_rocm(const Version& v) const {
  const RocmRelease* best = nullptr;
  for (const auto& r : rocm) {
    if (r.version.major != v.major || r.version.minor > v.minor) continue;
    if (r.version.minor == v.minor && r.version.patch > v.patch && r.version.patch != 0) continue;
    if (!best || best->version < r.version) best = &r;
  }
  return best;
}

Result<std::vector<RecipeFile>> recipe_files(const std::string& dir) {
  if (dir.empty()) {
    std::vector<RecipeFile> out;
    for (const auto& e : embedded_recipes()) out.push_back({e.path, e.text});
    return out;
  }
  return platform::read_recipes_dir(dir);
}

namespace {

std::string where(const std::string& file, const toml::node& n) {
  return file + ":" + std::to_string(n.source().begin.line);
}

Result<GfxTarget> gfx_field(const std::string& file, const toml::table& t, const char* key) {
  auto s = t[key].value<std::string>();
  if (!s) return make_error(where(file, t) + ": missing string '" + key + "'");
  auto g = GfxTarget::parse_name(*s);
  if (!g) return make_error(where(file, t) + ": '" + *s + "' is not a gfx target");
  return *g;
}

Result<std::vector<GfxTarget>> gfx_list(const std::string& file, const toml::table& t, const char* key) {
  std::vector<GfxTarget> out;
  auto* arr = t[key].as_array();
  if (!arr) return out;
  for (const auto& e : *arr) {
    auto s = e.value<std::string>();
    auto g = s ? GfxTarget::parse_name(*s) : std::nullopt;
    if (!g) return make_error(where(file, t) + ": '" + key + "' must hold gfx names");
    out.push_back(*g);
  }
  return out;
}

std::vector<std::string> string_list(const toml::table& t, const char* key) {
  std::vector<std::string> out;
  if (auto* arr = t[key].as_array())
    for (const auto& e : *arr)
      if (auto s = e.value<std::string>()) out.push_back(*s);
  return out;
}

Status load_gfx(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["gfx"].as_array();
  if (!arr) return {};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[gfx]] entries must be tables");
    GfxInfo g;
    auto target = gfx_field(file, *t, "target");
    if (!target) return target.error();
    g.target = *target;
    g.family = t->get("family") ? (*t)["family"].value_or(std::string()) : "";
    auto isa = (*t)["isa"].value<std::string>();
    if (!isa || !parse_isa_family(*isa)) return make_error(where(file, *t) + ": 'isa' must be gcn, cdna, rdna1..rdna4");
    g.isa = *parse_isa_family(*isa);
    g.wave_size = static_cast<int>((*t)["wave_size"].value_or(int64_t{64}));
    g.apu = (*t)["apu"].value_or(false);
    g.products = string_list(*t, "products");
    if (auto o = (*t)["override"].value<std::string>()) {
      auto parts = parse::split_ws(std::string(*o));
      auto v = Version::parse(*o);
      if (!v) return make_error(where(file, *t) + ": 'override' must be like \"10.3.0\"");
      g.override_to = GfxTarget{v->major, v->minor, v->patch};
    }
    g.override_caveat = (*t)["caveat"].value_or(std::string());
    g.notes = (*t)["notes"].value_or(std::string());
    kb.gfx.push_back(std::move(g));
  }
  return {};
}

Status load_pci(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["pci"].as_array();
  if (!arr) return {};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[pci]] entries must be tables");
    PciProduct p;
    auto dev = (*t)["device"].value<std::string>();
    auto d = dev ? parse::hex(*dev) : std::nullopt;
    if (!d || *d > 0xffff) return make_error(where(file, *t) + ": 'device' must be a hex PCI id like \"0x73bf\"");
    p.device = static_cast<std::uint16_t>(*d);
    if (auto rev = (*t)["revision"].value<std::string>()) {
      auto r = parse::hex(*rev);
      if (!r || *r > 0xff) return make_error(where(file, *t) + ": 'revision' must be hex like \"0xc1\"");
      p.revision = static_cast<std::uint8_t>(*r);
    }
    auto g = gfx_field(file, *t, "gfx");
    if (!g) return g.error();
    p.gfx = *g;
    auto name = (*t)["name"].value<std::string>();
    if (!name) return make_error(where(file, *t) + ": missing 'name'");
    p.name = *name;
    kb.pci.push_back(std::move(p));
  }
  return {};
}

Status load_rocm(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["rocm"].as_array();
  if (!arr) return {};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[rocm]] entries must be tables");
    RocmRelease r;
    auto v = (*t)["version"].value<std::string>();
    auto pv = v ? Version::parse(*v) : std::nullopt;
    if (!pv) return make_error(where(file, *t) + ": 'version' must be like \"6.2\"");
    r.version = *pv;
    auto official = gfx_list(file, *t, "official");
    if (!official) return official.error();
    r.official = *official;
    auto kernels = gfx_list(file, *t, "kernels");
    if (!kernels) return kernels.error();
    r.kernels = *kernels;
    for (const auto& g : r.official)
      if (std::find(r.kernels.begin(), r.kernels.end(), g) == r.kernels.end()) r.kernels.push_back(g);
    r.distros = string_list(*t, "distros");
    if (auto k = (*t)["kernel_min"].value<std::string>()) r.kernel_min = Version::parse(*k);
    if (auto k = (*t)["kernel_max"].value<std::string>()) r.kernel_max = Version::parse(*k);
    r.pytorch_index = (*t)["pytorch_index"].value_or(std::string());
    r.notes = (*t)["notes"].value_or(std::string());
    kb.rocm.push_back(std::move(r));
  }
  return {};
}

}  // namespace

Result<Knowledge> load_knowledge(const std::vector<RecipeFile>& files) {
  Knowledge kb;
  for (const auto& f : files) {
    if (f.path.rfind("knowledge/", 0) != 0) continue;
    toml::table root;
    try {
      root = toml::parse(f.text, f.path);
    } catch (const toml::parse_error& err) {
      return make_error("recipes/" + f.path + ":" + std::to_string(err.source().begin.line) + ": " +
                        std::string(err.description()));
    }
    for (auto loader : {load_gfx, load_pci, load_rocm})
      if (auto s = loader("recipes/" + f.path, root, kb); !s) return s.error();
  }
  std::sort(kb.rocm.begin(), kb.rocm.end(), [](const RocmRelease& a, const RocmRelease& b) { return a.version < b.version; });
  return kb;
}

}  // namespace amdml
