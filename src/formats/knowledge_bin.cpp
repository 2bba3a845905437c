// The knowledge base's compact form (see knowledge_bin.hpp). One function per struct
// serves both directions: Io is a writer or a reader, so a field can only be added to
// both or to neither; the round-trip test compares against the built-in tables field
// by field (Knowledge's defaulted operator==).
#include "formats/knowledge_bin.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace amdml::formats {

namespace {

constexpr std::string_view kMagic = "AMDMLKB\n";
// No list in real knowledge comes near this; a larger count is a corrupt file, refused
// before anything is allocated for it.
constexpr std::uint32_t kMaxCount = 1 << 20;

struct Writer {
  std::string out;
  bool good = true;  // set by the shared functions on a reader only
  static constexpr bool reading = false;
  bool ok() const { return true; }
  void u32(std::uint32_t& v) {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void u64(std::uint64_t& v) {
    for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void count(std::size_t n, std::uint32_t& c) {
    c = static_cast<std::uint32_t>(n);
    u32(c);
  }
  void str(std::string& s) {
    std::uint32_t n = 0;
    count(s.size(), n);
    out += s;
  }
};

struct Reader {
  std::string_view in;
  std::size_t at = 0;
  bool good = true;
  static constexpr bool reading = true;
  bool ok() const { return good; }
  bool take(std::size_t n) {
    if (!good || in.size() - at < n) return good = false;
    return true;
  }
  void u32(std::uint32_t& v) {
    v = 0;
    if (!take(4)) return;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
    at += 4;
  }
  void u64(std::uint64_t& v) {
    v = 0;
    if (!take(8)) return;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
    at += 8;
  }
  void count(std::size_t, std::uint32_t& c) {
    u32(c);
    if (c > kMaxCount) good = false;
    if (!good) c = 0;
  }
  void str(std::string& s) {
    std::uint32_t n = 0;
    count(0, n);
    if (!take(n)) return;
    s.assign(in.substr(at, n));
    at += n;
  }
};

template <class Io>
void i32(Io& io, int& v) {
  std::uint32_t u = static_cast<std::uint32_t>(v);
  io.u32(u);
  v = static_cast<int>(u);
}

template <class Io>
void u8(Io& io, std::uint8_t& v) {
  std::uint32_t u = v;
  io.u32(u);
  if (u > 0xff) io.good = false;
  v = static_cast<std::uint8_t>(u);
}

template <class Io>
void u16(Io& io, std::uint16_t& v) {
  std::uint32_t u = v;
  io.u32(u);
  if (u > 0xffff) io.good = false;
  v = static_cast<std::uint16_t>(u);
}

template <class Io>
void flag(Io& io, bool& b) {
  std::uint32_t u = b ? 1 : 0;
  io.u32(u);
  if (u > 1) io.good = false;
  b = u == 1;
}

template <class Io>
void real(Io& io, double& d) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &d, sizeof bits);
  io.u64(bits);
  std::memcpy(&d, &bits, sizeof bits);
}

// An enum stored as its underlying value, checked against its last enumerator.
template <class Io, class E>
void enumeration(Io& io, E& e, E last) {
  std::uint32_t u = static_cast<std::uint32_t>(e);
  io.u32(u);
  if (u > static_cast<std::uint32_t>(last)) io.good = false;
  else e = static_cast<E>(u);
}

template <class Io>
void gfx(Io& io, GfxTarget& g) {
  io.u32(g.major);
  io.u32(g.minor);
  io.u32(g.stepping);
}

template <class Io>
void ver(Io& io, Version& v) {
  io.u32(v.major);
  io.u32(v.minor);
  io.u32(v.patch);
}

template <class Io, class T, class F>
void opt(Io& io, std::optional<T>& o, F f) {
  bool has = o.has_value();
  flag(io, has);
  if (!has) {
    o.reset();
    return;
  }
  if (!o) o.emplace();
  f(io, *o);
}

template <class Io, class T, class F>
void list(Io& io, std::vector<T>& v, F f) {
  std::uint32_t n = 0;
  io.count(v.size(), n);
  if constexpr (Io::reading) v.assign(n, T{});
  for (std::size_t i = 0; i < v.size() && io.ok(); ++i) f(io, v[i]);
  if (!io.ok()) v.clear();
}

template <class Io>
void strings(Io& io, std::vector<std::string>& v) {
  list(io, v, [](Io& i, std::string& s) { i.str(s); });
}

template <class Io>
void gfx_info(Io& io, GfxInfo& g) {
  gfx(io, g.target);
  io.u32(g.kfd_version);
  io.str(g.family);
  enumeration(io, g.isa, IsaFamily::unknown);
  i32(io, g.wave_size);
  flag(io, g.apu);
  strings(io, g.products);
  opt(io, g.override_to, gfx<Io>);
  io.str(g.override_caveat);
  flag(io, g.needs_atomics);
  opt(io, g.kernel_min, ver<Io>);
  io.str(g.kernel_note);
  io.str(g.notes);
  flag(io, g.rocm_never);
}

template <class Io>
void pci(Io& io, PciProduct& p) {
  u16(io, p.device);
  opt(io, p.revision, u8<Io>);
  gfx(io, p.gfx);
  io.str(p.name);
}

template <class Io>
void rocm(Io& io, RocmRelease& r) {
  ver(io, r.version);
  list(io, r.official, gfx<Io>);
  list(io, r.kernels, gfx<Io>);
  strings(io, r.distros);
  opt(io, r.kernel_min, ver<Io>);
  opt(io, r.kernel_max, ver<Io>);
  io.str(r.pytorch_index);
  io.str(r.pytorch_versions);
  io.str(r.notes);
  io.str(r.date);
  io.str(r.hip);
  strings(io, r.drivers);
  strings(io, r.added);
}

// A std::map as its sorted pairs; reading refuses pairs out of order or repeated.
template <class Io, class K, class V, class FK, class FV>
void sorted_map(Io& io, std::map<K, V>& m, FK key, FV value) {
  std::vector<std::pair<K, V>> items(m.begin(), m.end());
  list(io, items, [&](Io& i, std::pair<K, V>& kv) {
    key(i, kv.first);
    value(i, kv.second);
  });
  if constexpr (Io::reading) {
    m = {items.begin(), items.end()};
    if (m.size() != items.size() || !std::is_sorted(items.begin(), items.end())) io.good = false;
  }
}

template <class Io, class V, class F>
void sorted_map(Io& io, std::map<std::string, V>& m, F value) {
  sorted_map(io, m, [](Io& i, std::string& k) { i.str(k); }, value);
}

template <class Io>
void status_map(Io& io, std::map<std::string, KernelStatus>& m) {
  sorted_map(io, m, [](Io& i, KernelStatus& st) { enumeration(i, st, KernelStatus::unknown); });
}

template <class Io>
void kernel_req(Io& io, KernelReq& k) {
  list(io, k.gfx, gfx<Io>);
  ver(io, k.kernel_min);
  io.str(k.backport);
  io.str(k.why);
  io.str(k.source);
  status_map(io, k.rocm_old_kernel);
  status_map(io, k.rocm_new_kernel);
}

template <class Io>
void firmware_bad(Io& io, FirmwareBad& b) {
  list(io, b.gfx, gfx<Io>);
  strings(io, b.bad);
  io.str(b.fixed);
  io.str(b.previous);
  io.str(b.why);
  io.str(b.source);
}

template <class Io>
void memory(Io& io, MemoryKnowledge& m) {
  ver(io, m.gtt_follows_ttm);
  ver(io, m.small_apu_gtt_fallback);
  ver(io, m.apu_prefer_gtt);
  ver(io, m.gttsize_deprecated);
  io.u64(m.os_reserve_min_gib);
  real(io, m.os_reserve_fraction);
  real(io, m.max_fraction);
  io.u64(m.small_carveout_max_mib);
  io.str(m.apu_prefer_gtt_backport);
}

template <class Io>
void wheel(Io& io, PytorchWheel& w) {
  io.str(w.index);
  ver(io, w.rocm);
  io.str(w.torch);
  io.str(w.kind);
  io.str(w.requires_dist);
}

template <class Io>
void ollama(Io& io, OllamaBuild& b) {
  ver(io, b.from);
  opt(io, b.until, ver<Io>);
  ver(io, b.rocm);
  list(io, b.targets, gfx<Io>);
}

template <class Io>
void policy(Io& io, OllamaPolicy& p) {
  ver(io, p.igpu_drop_from);
  ver(io, p.vulkan_default_from);
  ver(io, p.vulkan_opt_in_from);
  sorted_map(io, p.igpu_allow, gfx<Io>, ver<Io>);
}

template <class Io>
void apt(Io& io, RocmApt& a) {
  io.str(a.rocm_repo);
  io.str(a.graphics_repo);
  io.str(a.key_url);
  io.str(a.fingerprint);
  io.str(a.origin);
  strings(io, a.runtime);
  strings(io, a.development);
  strings(io, a.dkms);
  list(io, a.releases, [](Io& i, RocmAptRelease& r) {
    ver(i, r.rocm);
    i.str(r.path);
    i.str(r.graphics);
  });
  list(io, a.codenames, [](Io& i, AptCodename& c) {
    i.str(c.distro);
    i.str(c.codename);
  });
  list(io, a.distro_packages, [](Io& i, DistroRocm& d) {
    i.str(d.distro);
    ver(i, d.rocm);
    strings(i, d.packages);
  });
}

template <class Io>
void channel(Io& io, ChannelSpec& c) {
  io.str(c.id);
  io.str(c.kind);
  io.str(c.title);
  list(io, c.rocm, ver<Io>);
  sorted_map(io, c.full, ver<Io>);
  io.str(c.repo);
  io.str(c.suite);
  io.str(c.key_url);
  io.str(c.fingerprint);
  sorted_map(io, c.distros, [](Io& i, std::string& s) { i.str(s); });
  strings(io, c.runtime);
  strings(io, c.development);
  io.str(c.device);
  io.str(c.prefix);
  strings(io, c.markers);
  sorted_map(io, c.families, [](Io& i, std::string& s) { i.str(s); });
  flag(io, c.distro_own);
  io.str(c.notes);
}

template <class Io>
void pcie(Io& io, PcieGen& g) {
  i32(io, g.gen);
  real(io, g.gts);
  io.str(g.encoding);
  real(io, g.lane_gbs);
  real(io, g.practical);
  io.str(g.source);
}

template <class Io>
void knowledge(Io& io, Knowledge& k) {
  i32(io, k.meta.format);
  io.str(k.meta.date);
  list(io, k.gfx, gfx_info<Io>);
  list(io, k.pci, pci<Io>);
  list(io, k.rocm, rocm<Io>);
  list(io, k.kernel_reqs, kernel_req<Io>);
  memory(io, k.memory);
  ver(io, k.per_node_override_since);
  list(io, k.pytorch, wheel<Io>);
  list(io, k.ollama, ollama<Io>);
  policy(io, k.ollama_policy);
  apt(io, k.apt);
  list(io, k.channels, channel<Io>);
  list(io, k.firmware_bad, firmware_bad<Io>);
  list(io, k.pcie, pcie<Io>);
}

}  // namespace

std::string encode_knowledge_bin(const Knowledge& kb) {
  Writer w;
  w.out.reserve(64 << 10);
  w.out += kMagic;
  std::uint32_t layout = kKnowledgeBinLayout;
  w.u32(layout);
  Knowledge copy = kb;  // the shared functions take non-const references
  knowledge(w, copy);
  return std::move(w.out);
}

Result<Knowledge> decode_knowledge_bin(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic) return make_error("not a compact knowledge file (no AMDMLKB header)");
  Reader r{bytes, kMagic.size()};
  std::uint32_t layout = 0;
  r.u32(layout);
  if (!r.ok()) return make_error("compact knowledge file truncated");
  if (layout != kKnowledgeBinLayout)
    return make_error("compact knowledge layout " + std::to_string(layout) + " is not the one this amdml reads (" +
                      std::to_string(kKnowledgeBinLayout) + ")");
  Knowledge k;
  knowledge(r, k);
  if (!r.ok()) return make_error("compact knowledge file truncated or corrupt at byte " + std::to_string(r.at));
  if (r.at != bytes.size()) return make_error("compact knowledge file has " + std::to_string(bytes.size() - r.at) + " bytes too many");
  if (k.meta.format < 1 || k.meta.format > kKnowledgeFormat || !parse_day(k.meta.date))
    return make_error("compact knowledge file has no readable format and date");
  return k;
}

}  // namespace amdml::formats