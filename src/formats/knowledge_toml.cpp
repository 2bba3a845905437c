// The knowledge base's codec: recipes/knowledge/*.toml into a Knowledge. The lookups
// over a loaded Knowledge are src/model/knowledge.cpp; the self-contained tables ([meta],
// [[pcie]]) are read in knowledge_toml_tables.cpp.
#include "formats/knowledge_toml.hpp"

#include <algorithm>
#include <array>

#include "formats/system_files.hpp"
#include "formats/toml.hpp"
#include "formats/knowledge_toml_tables.hpp"
#include "formats/toml_fields.hpp"
#include "model/enum_tables.hpp"

namespace amdml::formats {

namespace {

using toml_fields::known_keys;
using toml_fields::where;

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
    auto kv = (*t)["kfd_version"].value<int64_t>();
    if (!kv || *kv <= 0) return make_error(where(file, *t) + ": missing integer 'kfd_version'");
    g.kfd_version = static_cast<std::uint32_t>(*kv);
    g.wave_size = static_cast<int>((*t)["wave_size"].value_or(int64_t{64}));
    if (g.wave_size != 32 && g.wave_size != 64) return make_error(where(file, *t) + ": 'wave_size' must be 32 or 64");
    g.needs_atomics = (*t)["needs_atomics"].value_or(false);
    if (auto k = (*t)["kernel_min"].value<std::string>()) {
      g.kernel_min = Version::parse(*k);
      if (!g.kernel_min) return make_error(where(file, *t) + ": 'kernel_min' must be like \"6.12\"");
    }
    g.kernel_note = (*t)["kernel_note"].value_or(std::string());
    g.apu = (*t)["apu"].value_or(false);
    g.products = string_list(*t, "products");
    if (auto o = (*t)["override"].value<std::string>()) {
      auto p = parse_hsa_override(*o);
      if (!p.target) return make_error(where(file, *t) + ": 'override' must be like \"10.3.0\"");
      g.override_to = *p.target;
    }
    g.override_caveat = (*t)["caveat"].value_or(std::string());
    g.notes = (*t)["notes"].value_or(std::string());
    g.rocm_never = (*t)["rocm_never"].value_or(false);
    if (g.rocm_never && g.override_to)
      return make_error(where(file, *t) + ": a 'rocm_never' target cannot have an 'override'");
    if (auto s = known_keys(file, *t,
                            {"target", "family", "isa", "kfd_version", "wave_size", "needs_atomics", "kernel_min",
                             "kernel_note", "apu", "products", "override", "caveat", "notes", "rocm_never"},
                            "[[gfx]]");
        !s)
      return s;
    kb.gfx.push_back(std::move(g));
  }
  return {};
}

// [[chip]]: every PCI id of one chip. Each device gets the chip's gfx target and, unless
// [[pci]] has a default entry for it, the chip's family name as its default.
Status load_chips(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["chip"].as_array();
  if (!arr) return {};
  std::vector<std::uint16_t> seen;
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[chip]] entries must be tables");
    auto g = gfx_field(file, *t, "gfx");
    if (!g) return g.error();
    auto name = (*t)["name"].value<std::string>();
    auto* devs = (*t)["devices"].as_array();
    if (!name || !devs || devs->empty()) return make_error(where(file, *t) + ": a [[chip]] needs 'name' and 'devices'");
    if (auto s = known_keys(file, *t, {"chip", "gfx", "name", "devices"}, "[[chip]]"); !s) return s;
    for (const auto& e : *devs) {
      auto s = e.value<std::string>();
      auto d = s ? text::hex(*s) : std::nullopt;
      if (!d || *d > 0xffff) return make_error(where(file, *t) + ": 'devices' must hold hex PCI ids like \"0x6818\"");
      auto dev = static_cast<std::uint16_t>(*d);
      if (std::find(seen.begin(), seen.end(), dev) != seen.end())
        return make_error(where(file, *t) + ": device " + *s + " is in two chips");
      seen.push_back(dev);
      bool has_default = false;
      for (const auto& p : kb.pci)
        if (p.device == dev && !p.revision) {
          if (p.gfx != *g) return make_error(where(file, *t) + ": device " + *s + " is " + p.gfx.name() + " in [[pci]]");
          has_default = true;
        }
      if (!has_default) kb.pci.push_back(PciProduct{dev, std::nullopt, *g, *name});
    }
  }
  return {};
}

Status load_pci(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["pci"].as_array();
  if (!arr) return load_chips(file, root, kb);
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[pci]] entries must be tables");
    PciProduct p;
    auto dev = (*t)["device"].value<std::string>();
    auto d = dev ? text::hex(*dev) : std::nullopt;
    if (!d || *d > 0xffff) return make_error(where(file, *t) + ": 'device' must be a hex PCI id like \"0x73bf\"");
    p.device = static_cast<std::uint16_t>(*d);
    if (auto rev = (*t)["revision"].value<std::string>()) {
      auto r = text::hex(*rev);
      if (!r || *r > 0xff) return make_error(where(file, *t) + ": 'revision' must be hex like \"0xc1\"");
      p.revision = static_cast<std::uint8_t>(*r);
    }
    auto g = gfx_field(file, *t, "gfx");
    if (!g) return g.error();
    p.gfx = *g;
    auto name = (*t)["name"].value<std::string>();
    if (!name) return make_error(where(file, *t) + ": missing 'name'");
    p.name = *name;
    for (const auto& o : kb.pci)
      if (o.device == p.device && o.revision == p.revision)
        return make_error(where(file, *t) + ": device " + *dev + " with this revision is listed twice");
    if (auto s = known_keys(file, *t, {"device", "revision", "gfx", "name"}, "[[pci]]"); !s) return s;
    kb.pci.push_back(std::move(p));
  }
  return load_chips(file, root, kb);
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
    for (auto [key, field] : {std::pair{"kernel_min", &r.kernel_min}, std::pair{"kernel_max", &r.kernel_max}})
      if (auto k = (*t)[key].value<std::string>()) {
        *field = Version::parse(*k);
        if (!*field) return make_error(where(file, *t) + ": '" + key + "' must be a version like \"6.8\"");
      }
    if (t->contains("pytorch_index"))
      return make_error(where(file, *t) + ": PyTorch wheels belong in the [[pytorch]] table, not in [[rocm]]");
    r.notes = (*t)["notes"].value_or(std::string());
    r.date = (*t)["date"].value_or(std::string());
    r.hip = (*t)["hip"].value_or(std::string());
    r.drivers = string_list(*t, "drivers");
    r.added = string_list(*t, "added");
    if (auto s = known_keys(file, *t,
                            {"version", "official", "kernels", "distros", "kernel_min", "kernel_max", "notes", "date", "hip",
                             "drivers", "added"},
                            "[[rocm]]");
        !s)
      return s;
    kb.rocm.push_back(std::move(r));
  }
  return {};
}

Result<Version> version_field(const std::string& file, const toml::table& t, const char* key) {
  auto s = t[key].value<std::string>();
  auto v = s ? Version::parse(*s) : std::nullopt;
  if (!v) return make_error(where(file, t) + ": '" + key + "' must be a version like \"7.1\"");
  return *v;
}

Status load_pytorch(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["pytorch"].as_array();
  if (!arr) return {};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[pytorch]] entries must be tables");
    PytorchWheel w;
    auto v = version_field(file, *t, "rocm");
    if (!v) return v.error();
    w.rocm = *v;
    w.index = (*t)["index"].value_or(std::string());
    if (!w.index.starts_with("https://")) return make_error(where(file, *t) + ": 'index' must be an https:// URL");
    w.torch = (*t)["torch"].value_or(std::string());
    w.kind = (*t)["kind"].value_or(std::string("bundled"));
    w.requires_dist = (*t)["requires"].value_or(std::string());
    if (w.kind != "bundled" && w.kind != "rocm-wheels")
      return make_error(where(file, *t) + ": 'kind' must be \"bundled\" or \"rocm-wheels\"");
    if ((w.kind == "rocm-wheels") != !w.requires_dist.empty())
      return make_error(where(file, *t) + ": a \"rocm-wheels\" wheel names what it 'requires', a bundled one nothing");
    for (const auto& o : kb.pytorch)
      if (o.rocm.major == w.rocm.major && o.rocm.minor == w.rocm.minor)
        return make_error(where(file, *t) + ": a second wheel for ROCm " + short_version(w.rocm));
    if (auto s = known_keys(file, *t, {"rocm", "index", "torch", "kind", "requires"}, "[[pytorch]]"); !s) return s;
    kb.pytorch.push_back(std::move(w));
  }
  return {};
}

Status load_ollama(const std::string& file, const toml::table& root, Knowledge& kb) {
  if (auto* p = root["ollama_policy"].as_table()) {
    auto& pol = kb.ollama_policy;
    for (auto [key, field] : {std::pair{"igpu_drop_from", &pol.igpu_drop_from},
                              std::pair{"vulkan_default_from", &pol.vulkan_default_from},
                              std::pair{"vulkan_opt_in_from", &pol.vulkan_opt_in_from}}) {
      auto v = version_field(file, *p, key);
      if (!v) return v.error();
      *field = *v;
    }
    if (auto* allow = (*p)["igpu_allow"].as_table())
      for (const auto& [k, v] : *allow) {
        auto g = GfxTarget::parse_name(k.str());
        auto s = v.value<std::string>();
        auto from = s ? Version::parse(*s) : std::nullopt;
        if (!g || !from) return make_error(where(file, *p) + ": 'igpu_allow' maps gfx names to ollama versions");
        pol.igpu_allow[*g] = *from;
      }
    if (auto s = known_keys(file, *p, {"igpu_drop_from", "vulkan_default_from", "vulkan_opt_in_from", "igpu_allow"},
                            "[ollama_policy]");
        !s)
      return s;
  }
  auto* arr = root["ollama"].as_array();
  if (!arr) return {};
  std::vector<OllamaBuild> builds;
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[ollama]] entries must be tables");
    OllamaBuild b;
    auto from = version_field(file, *t, "from");
    if (!from) return from.error();
    b.from = *from;
    if (t->contains("until")) {
      auto until = version_field(file, *t, "until");
      if (!until) return until.error();
      if (!(*until > b.from)) return make_error(where(file, *t) + ": 'until' must come after 'from'");
      b.until = *until;
    }
    auto rocm = version_field(file, *t, "rocm");
    if (!rocm) return rocm.error();
    b.rocm = *rocm;
    auto targets = gfx_list(file, *t, "targets");
    if (!targets) return targets.error();
    if (targets->empty()) return make_error(where(file, *t) + ": 'targets' must list gfx names");
    b.targets = *targets;
    if (auto s = known_keys(file, *t, {"from", "until", "rocm", "targets"}, "[[ollama]]"); !s) return s;
    builds.push_back(std::move(b));
  }
  // The ranges join end to end and the newest is open: every release falls in one.
  std::sort(builds.begin(), builds.end(), [](const OllamaBuild& a, const OllamaBuild& b) { return a.from < b.from; });
  for (std::size_t i = 0; i + 1 < builds.size(); ++i)
    if (builds[i].until != builds[i + 1].from)
      return make_error(file + ": the ollama range from v" + builds[i].from.str() + " must end where the next begins (v" +
                        builds[i + 1].from.str() + ")");
  if (!builds.empty() && builds.back().until) return make_error(file + ": the newest ollama range must have no 'until'");
  if (!builds.empty() && !kb.ollama.empty()) return make_error(file + ": the ollama ranges must all be in one file");
  kb.ollama = std::move(builds);
  return {};
}

Result<std::map<std::string, KernelStatus>> status_table(const std::string& file, const toml::table& t,
                                                         const char* key) {
  std::map<std::string, KernelStatus> out;
  auto* tab = t[key].as_table();
  if (!tab) return out;
  for (const auto& [k, v] : *tab) {
    auto s = v.value<std::string>();
    std::string name(k.str());
    if (!Version::parse(name)) return make_error(where(file, t) + ": '" + key + "' key " + name + " is not a ROCm version");
    if (!s) return make_error(where(file, t) + ": '" + key + "' values must be strings");
    if (auto st = enum_from_name(names::kKernelStatus, *s)) out[name] = *st;
    else return make_error(where(file, t) + ": '" + *s + "' must be ok, unstable or unsupported");
  }
  return out;
}

Status load_runtime(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* t = root["runtime"].as_table();
  if (!t) return {};
  if (auto s = (*t)["per_node_override"].value<std::string>()) {
    auto v = Version::parse(*s);
    if (!v) return make_error(where(file, *t) + ": 'per_node_override' must be a ROCm version");
    kb.per_node_override_since = *v;
  }
  return known_keys(file, *t, {"per_node_override"}, "[runtime]");
}

Status load_kernels(const std::string& file, const toml::table& root, Knowledge& kb) {
  if (auto* m = root["memory"].as_table()) {
    auto& mem = kb.memory;
    for (auto [key, field] : {std::pair{"gtt_follows_ttm", &mem.gtt_follows_ttm},
                              std::pair{"small_apu_gtt_fallback", &mem.small_apu_gtt_fallback},
                              std::pair{"apu_prefer_gtt", &mem.apu_prefer_gtt},
                              std::pair{"gttsize_deprecated", &mem.gttsize_deprecated}})
      if (auto s = (*m)[key].value<std::string>()) {
        auto v = Version::parse(*s);
        if (!v) return make_error(where(file, *m) + ": '" + key + "' must be a kernel version");
        *field = *v;
      }
    mem.os_reserve_min_gib = static_cast<std::uint64_t>((*m)["os_reserve_min_gib"].value_or(int64_t{4}));
    mem.os_reserve_fraction = (*m)["os_reserve_fraction"].value_or(0.125);
    mem.max_fraction = (*m)["max_fraction"].value_or(0.9);
    mem.small_carveout_max_mib = static_cast<std::uint64_t>((*m)["small_carveout_max_mib"].value_or(int64_t{2048}));
    mem.apu_prefer_gtt_backport = (*m)["apu_prefer_gtt_backport"].value_or(std::string());
    if (mem.os_reserve_fraction < 0 || mem.os_reserve_fraction >= 1 || mem.max_fraction <= 0 || mem.max_fraction > 1)
      return make_error(where(file, *m) + ": reserve and max fractions must lie between 0 and 1");
    if (auto s = known_keys(file, *m,
                            {"gtt_follows_ttm", "small_apu_gtt_fallback", "apu_prefer_gtt", "gttsize_deprecated",
                             "os_reserve_min_gib", "os_reserve_fraction", "max_fraction", "small_carveout_max_mib",
                             "apu_prefer_gtt_backport"},
                            "[memory]");
        !s)
      return s;
  }
  auto* arr = root["kernel_req"].as_array();
  if (!arr) return {};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[kernel_req]] entries must be tables");
    KernelReq k;
    auto g = gfx_list(file, *t, "gfx");
    if (!g) return g.error();
    k.gfx = *g;
    auto km = (*t)["kernel_min"].value<std::string>();
    auto kv = km ? Version::parse(*km) : std::nullopt;
    if (!kv) return make_error(where(file, *t) + ": 'kernel_min' must be a kernel version");
    k.kernel_min = *kv;
    k.backport = (*t)["backport"].value_or(std::string());
    k.why = (*t)["why"].value_or(std::string());
    k.source = (*t)["source"].value_or(std::string());
    auto old_t = status_table(file, *t, "rocm_old_kernel");
    if (!old_t) return old_t.error();
    k.rocm_old_kernel = *old_t;
    auto new_t = status_table(file, *t, "rocm_new_kernel");
    if (!new_t) return new_t.error();
    k.rocm_new_kernel = *new_t;
    if (auto s = known_keys(file, *t,
                            {"gfx", "kernel_min", "backport", "why", "source", "rocm_old_kernel", "rocm_new_kernel"},
                            "[[kernel_req]]");
        !s)
      return s;
    kb.kernel_reqs.push_back(std::move(k));
  }
  return {};
}

// kernels.toml's [[firmware_bad]]: linux-firmware snapshots that break ROCm on some GPUs.
Status load_firmware(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["firmware_bad"].as_array();
  if (!arr) return {};
  auto snapshot = [](const std::string& s) { return s.size() == 8 && firmware_snapshot(s) == s; };
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[firmware_bad]] entries must be tables");
    FirmwareBad b;
    auto g = gfx_list(file, *t, "gfx");
    if (!g) return g.error();
    b.gfx = *g;
    b.bad = string_list(*t, "bad");
    b.fixed = (*t)["fixed"].value_or(std::string());
    b.previous = (*t)["previous"].value_or(std::string());
    b.why = (*t)["why"].value_or(std::string());
    b.source = (*t)["source"].value_or(std::string());
    if (b.gfx.empty() || b.bad.empty() || !std::all_of(b.bad.begin(), b.bad.end(), snapshot))
      return make_error(where(file, *t) + ": [[firmware_bad]] needs 'gfx' and 'bad' snapshot dates (YYYYMMDD)");
    if ((!b.fixed.empty() && !snapshot(b.fixed)) || (!b.previous.empty() && !snapshot(b.previous)))
      return make_error(where(file, *t) + ": 'fixed' and 'previous' must be snapshot dates (YYYYMMDD)");
    if (auto s = known_keys(file, *t, {"gfx", "bad", "fixed", "previous", "why", "source"}, "[[firmware_bad]]"); !s) return s;
    kb.firmware_bad.push_back(std::move(b));
  }
  return {};
}

bool valid_fingerprint(const std::string& f) {
  return f.size() == 40 && f.find_first_not_of("0123456789ABCDEF") == std::string::npos;
}

// channels.toml: [[channel]], one way ROCm reaches a machine.
Status load_channels(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["channel"].as_array();
  if (!arr) return {};
  static const std::array<std::string_view, 5> kinds = {"apt", "dnf", "pacman", "pip", "tarball"};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[channel]] entries must be tables");
    if (auto s = known_keys(file, *t,
                            {"id", "kind", "title", "rocm", "full", "repo", "suite", "key_url", "fingerprint", "distros",
                             "runtime", "development", "device", "prefix", "markers", "distro_own", "notes", "families"},
                            "[[channel]]");
        !s)
      return s;
    ChannelSpec c;
    c.id = (*t)["id"].value_or(std::string());
    c.kind = (*t)["kind"].value_or(std::string());
    c.title = (*t)["title"].value_or(std::string());
    if (c.id.empty() || c.title.empty()) return make_error(where(file, *t) + ": a [[channel]] needs 'id' and 'title'");
    if (std::find(kinds.begin(), kinds.end(), c.kind) == kinds.end())
      return make_error(where(file, *t) + ": 'kind' must be apt, dnf, pacman, pip or tarball");
    if (kb.find_channel(c.id)) return make_error(where(file, *t) + ": channel '" + c.id + "' is listed twice");
    for (const auto& s : string_list(*t, "rocm")) {
      auto v = Version::parse(s);
      if (!v) return make_error(where(file, *t) + ": 'rocm' must hold releases like \"10.1\"");
      c.rocm.push_back(*v);
    }
    std::sort(c.rocm.begin(), c.rocm.end());
    if (auto* full = (*t)["full"].as_table())
      for (const auto& [k, v] : *full) {
        auto s = v.value<std::string>();
        auto fv = s ? Version::parse(*s) : std::nullopt;
        if (!fv || !Version::parse(std::string(k.str())))
          return make_error(where(file, *t) + ": 'full' maps a release to its newest point release (\"10.1\" = \"10.1.0\")");
        c.full[std::string(k.str())] = *fv;
      }
    c.repo = (*t)["repo"].value_or(std::string());
    c.suite = (*t)["suite"].value_or(std::string());
    c.key_url = (*t)["key_url"].value_or(std::string());
    c.fingerprint = (*t)["fingerprint"].value_or(std::string());
    c.distro_own = (*t)["distro_own"].value_or(false);
    // https://, or file:/// (a local stand-in repository in tests).
    auto url = [](const std::string& u) { return u.starts_with("https://") || u.starts_with("file:///"); };
    if (!c.repo.empty() && !url(c.repo)) return make_error(where(file, *t) + ": 'repo' must be an https:// URL");
    if (!c.key_url.empty() && (!url(c.key_url) || !valid_fingerprint(c.fingerprint)))
      return make_error(where(file, *t) + ": a 'key_url' (https://) needs its 'fingerprint' pinned (40 hex digits, upper case)");
    if ((c.kind == "apt" || c.kind == "dnf") && !c.distro_own && c.key_url.empty())
      return make_error(where(file, *t) + ": an AMD package repository needs 'key_url' and 'fingerprint'");
    if (c.kind == "apt" && !c.distro_own && c.suite.empty()) return make_error(where(file, *t) + ": an apt channel needs 'suite'");
    if (auto* d = (*t)["distros"].as_table())
      for (const auto& [k, v] : *d) {
        auto s = v.value<std::string>();
        if (!s) return make_error(where(file, *t) + ": 'distros' maps \"ubuntu 24.04\" to the channel's name for it");
        c.distros[std::string(k.str())] = *s;
      }
    c.runtime = string_list(*t, "runtime");
    c.development = string_list(*t, "development");
    c.device = (*t)["device"].value_or(std::string());
    c.prefix = (*t)["prefix"].value_or(std::string());
    c.markers = string_list(*t, "markers");
    if (auto* fam = (*t)["families"].as_table())
      for (const auto& [k, v] : *fam) {
        auto s = v.value<std::string>();
        if (!s || !GfxTarget::parse_name(std::string(k.str())))
          return make_error(where(file, *t) + ": 'families' maps gfx names to TheRock's family names");
        c.families[std::string(k.str())] = *s;
      }
    c.notes = (*t)["notes"].value_or(std::string());
    kb.channels.push_back(std::move(c));
  }
  return {};
}

// rocm-releases.toml: [apt], [[apt_codename]], [[apt_release]], [[distro_rocm]].
Status load_apt(const std::string& file, const toml::table& root, Knowledge& kb) {
  if (auto* t = root["apt"].as_table()) {
    if (auto s = known_keys(file, *t,
                            {"rocm_repo", "graphics_repo", "key_url", "fingerprint", "origin", "runtime", "development", "dkms"},
                            "[apt]");
        !s)
      return s;
    RocmApt& a = kb.apt;
    a.rocm_repo = (*t)["rocm_repo"].value_or(std::string());
    a.graphics_repo = (*t)["graphics_repo"].value_or(std::string());
    a.key_url = (*t)["key_url"].value_or(std::string());
    a.origin = (*t)["origin"].value_or(std::string());
    a.fingerprint = (*t)["fingerprint"].value_or(std::string());
    if (!valid_fingerprint(a.fingerprint))
      return make_error(where(file, *t) + ": [apt] needs 'fingerprint', the signing key's 40 hex digits in upper case");
    a.runtime = string_list(*t, "runtime");
    a.development = string_list(*t, "development");
    a.dkms = string_list(*t, "dkms");
    if (a.rocm_repo.find("{path}") == std::string::npos || a.graphics_repo.find("{graphics}") == std::string::npos)
      return make_error(where(file, *t) + ": [apt] needs 'rocm_repo' with {path} and 'graphics_repo' with {graphics}");
    if (a.key_url.empty() || a.origin.empty() || a.runtime.empty() || a.development.empty())
      return make_error(where(file, *t) + ": [apt] needs 'key_url', 'origin', 'runtime' and 'development'");
  }
  auto tables = [&](const char* name, auto&& each) -> Status {
    auto* arr = root[name].as_array();
    if (!arr) return {};
    for (const auto& node : *arr) {
      auto* t = node.as_table();
      if (!t) return make_error(file + ": [[" + name + "]] entries must be tables");
      if (auto s = each(*t); !s) return s;
    }
    return {};
  };
  Status codenames = tables("apt_codename", [&](const toml::table& t) -> Status {
    if (auto k = known_keys(file, t, {"distro", "codename"}, "[[apt_codename]]"); !k) return k;
    AptCodename c{t["distro"].value_or(std::string()), t["codename"].value_or(std::string())};
    if (c.distro.empty() || c.codename.empty()) return make_error(where(file, t) + ": needs 'distro' and 'codename'");
    kb.apt.codenames.push_back(std::move(c));
    return {};
  });
  if (!codenames) return codenames;
  Status releases = tables("apt_release", [&](const toml::table& t) -> Status {
    if (auto k = known_keys(file, t, {"rocm", "path", "graphics"}, "[[apt_release]]"); !k) return k;
    auto v = version_field(file, t, "rocm");
    if (!v) return v.error();
    RocmAptRelease r{*v, t["path"].value_or(std::string()), t["graphics"].value_or(std::string())};
    auto clean = [](const std::string& s) {
      return !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-_") == std::string::npos;
    };
    if (!clean(r.path) || !clean(r.graphics))
      return make_error(where(file, t) + ": 'path' and 'graphics' must be directory names (letters, digits, . - _)");
    kb.apt.releases.push_back(std::move(r));
    return {};
  });
  if (!releases) return releases;
  return tables("distro_rocm", [&](const toml::table& t) -> Status {
    if (auto k = known_keys(file, t, {"distro", "rocm", "packages"}, "[[distro_rocm]]"); !k) return k;
    auto v = version_field(file, t, "rocm");
    if (!v) return v.error();
    DistroRocm d{t["distro"].value_or(std::string()), *v, string_list(t, "packages")};
    if (d.distro.empty() || d.packages.empty()) return make_error(where(file, t) + ": needs 'distro' and 'packages'");
    kb.apt.distro_packages.push_back(std::move(d));
    return {};
  });
}

}  // namespace

Result<Knowledge> load_knowledge(const std::vector<RecipeFile>& files) {
  Knowledge kb;
  for (const auto& f : files) {
    if (!f.path.starts_with("knowledge/")) continue;
    toml::table root;
    try {
      root = toml::parse(f.text, f.path);
    } catch (const toml::parse_error& err) {
      return make_error("recipes/" + f.path + ":" + std::to_string(err.source().begin.line) + ": " +
                        std::string(err.description()));
    }
    for (auto loader : {load_gfx, load_pci, load_rocm, load_kernels, load_firmware, load_runtime, load_pytorch, load_ollama, load_apt,
                        load_channels, knowledge_tables::load_meta, knowledge_tables::load_pcie})
      if (auto s = loader("recipes/" + f.path, root, kb); !s) return s.error();
    if (auto s = known_keys("recipes/" + f.path, root,
                            {"gfx", "chip", "pci", "rocm", "pytorch", "ollama", "ollama_policy", "runtime", "memory",
                             "kernel_req", "firmware_bad", "apt", "apt_codename", "apt_release", "distro_rocm", "channel",
                             "meta", "pcie"},
                            "a knowledge file");
        !s)
      return s.error();
  }
  std::sort(kb.rocm.begin(), kb.rocm.end(), [](const RocmRelease& a, const RocmRelease& b) { return a.version < b.version; });
  std::sort(kb.pytorch.begin(), kb.pytorch.end(),
            [](const PytorchWheel& a, const PytorchWheel& b) { return a.rocm < b.rocm; });
  std::sort(kb.apt.releases.begin(), kb.apt.releases.end(),
            [](const RocmAptRelease& a, const RocmAptRelease& b) { return a.rocm < b.rocm; });
  std::sort(kb.ollama.begin(), kb.ollama.end(), [](const OllamaBuild& a, const OllamaBuild& b) { return a.from < b.from; });
  // Each release's wheel, from the one [[pytorch]] table.
  for (const auto& w : kb.pytorch)
    for (auto& r : kb.rocm)
      if (r.version.major == w.rocm.major && r.version.minor == w.rocm.minor) {
        r.pytorch_index = w.index;
        r.pytorch_versions = w.torch;
      }
  return kb;
}

}  // namespace amdml::formats