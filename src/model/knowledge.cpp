// The knowledge base's lookups (include/amdml/knowledge.hpp): what the rules, `amdml
// explain` and the data test ask of a loaded Knowledge. The loader is
// src/formats/knowledge_toml.cpp.
#include <algorithm>
#include <cmath>

#include "amdml/knowledge.hpp"
#include "base/text.hpp"

namespace amdml {

bool isa_compatible(IsaFamily a, IsaFamily b) {
  auto gfx11 = [](IsaFamily f) { return f == IsaFamily::rdna3 || f == IsaFamily::rdna3_5; };
  return a == b || (gfx11(a) && gfx11(b));
}

std::string short_version(const Version& v) {
  std::string s = std::to_string(v.major) + "." + std::to_string(v.minor);
  if (v.patch) s += "." + std::to_string(v.patch);
  return s;
}

std::optional<std::int64_t> parse_day(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  auto digits = [&](std::size_t at, std::size_t n) -> std::optional<int> {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (date[i] < '0' || date[i] > '9') return std::nullopt;
      v = v * 10 + (date[i] - '0');
    }
    return v;
  };
  auto y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  if (!y || !m || !d || *y < 1970 || *m < 1 || *m > 12 || *d < 1) return std::nullopt;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  if (*d > kDays[*m - 1] + (*m == 2 && leap ? 1 : 0)) return std::nullopt;
  // Days from the civil date, counted in 400-year eras of 146097 days from a March-first year.
  const int yy = *y - (*m <= 2 ? 1 : 0);
  const int era = yy / 400;
  const unsigned yoe = static_cast<unsigned>(yy - era * 400);
  const unsigned doy = (153 * static_cast<unsigned>(*m + (*m > 2 ? -3 : 9)) + 2) / 5 + static_cast<unsigned>(*d) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool RocmRelease::has_kernels(const GfxTarget& t) const {
  return std::find(kernels.begin(), kernels.end(), t) != kernels.end();
}

bool RocmRelease::is_official(const GfxTarget& t) const {
  return std::find(official.begin(), official.end(), t) != official.end();
}

namespace {

// "6.14.0-1018-oem" -> ABI 1018 and flavour "oem" (Ubuntu's kernel naming).
struct UbuntuAbi {
  std::uint64_t abi = 0;
  std::string flavour;
};
std::optional<UbuntuAbi> ubuntu_abi(const std::string& release) {
  auto dash = release.find('-');
  if (dash == std::string::npos) return std::nullopt;
  auto dash2 = release.find('-', dash + 1);
  if (dash2 == std::string::npos) return std::nullopt;
  auto abi = text::u64(release.substr(dash + 1, dash2 - dash - 1));
  if (!abi) return std::nullopt;
  return UbuntuAbi{*abi, release.substr(dash2 + 1)};
}

// A key "7.2.1" matches that release; "7.1" matches every 7.1.x.
bool release_key_matches(const std::string& key, const Version& v) {
  auto k = Version::parse(key);
  if (!k) return false;
  bool with_patch = std::count(key.begin(), key.end(), '.') >= 2;
  if (k->major != v.major || k->minor != v.minor) return false;
  return !with_patch || k->patch == v.patch;
}

}  // namespace

bool KernelReq::satisfied_by(const std::string& kernel_release) const {
  auto v = Version::parse(kernel_release);
  if (!v) return false;
  if (*v >= kernel_min) return true;
  if (backport.empty()) return false;
  auto base = Version::parse(backport);
  auto want = ubuntu_abi(backport);
  auto have = ubuntu_abi(kernel_release);
  if (!base || !want || !have || *base != *v) return false;
  // "oem" also matches "oem-24.04c"-style flavours of the same series.
  return have->flavour.starts_with(want->flavour) && have->abi >= want->abi;
}

KernelStatus KernelReq::status(const Version& rocm, bool fixed_kernel) const {
  const auto& table = fixed_kernel ? rocm_new_kernel : rocm_old_kernel;
  // The most specific key wins: "7.2.1" before "7.2".
  KernelStatus best = KernelStatus::unknown;
  std::size_t best_len = 0;
  for (const auto& [key, st] : table)
    if (release_key_matches(key, rocm) && key.size() > best_len) {
      best = st;
      best_len = key.size();
    }
  return best;
}

bool MemoryKnowledge::rocm_memory_follows_ttm(const std::string& kernel_release) const {
  auto v = Version::parse(kernel_release);
  if (!v) return false;
  if (*v >= apu_prefer_gtt) return true;
  if (apu_prefer_gtt_backport.empty()) return false;
  auto dash = apu_prefer_gtt_backport.find('-');
  auto base = Version::parse(apu_prefer_gtt_backport);
  auto flavour = ubuntu_abi(kernel_release);
  return base && *base == *v && flavour && dash != std::string::npos &&
         flavour->flavour.starts_with(apu_prefer_gtt_backport.substr(dash + 1));
}

std::optional<Pages> MemoryKnowledge::recommended_pages_limit(Bytes ram) const {
  const double total = static_cast<double>(ram.value);
  double reserve = std::max(static_cast<double>(os_reserve_min_gib * kGiB), total * os_reserve_fraction);
  double want = std::min(total - reserve, total * max_fraction);
  if (want < static_cast<double>(kGiB)) return std::nullopt;
  std::uint64_t gib = static_cast<std::uint64_t>(want / static_cast<double>(kGiB));
  return Pages::from_bytes(Bytes{gib * kGiB});
}


const GfxInfo* Knowledge::find_gfx(const GfxTarget& t) const {
  for (const auto& g : gfx)
    if (g.target == t) return &g;
  return nullptr;
}

const PcieGen* Knowledge::find_pcie(double gts) const {
  for (const auto& g : pcie)
    if (std::fabs(g.gts - gts) < 0.01) return &g;  // sysfs gives "16.0", the table 16.0: equal but for rounding
  return nullptr;
}

const PciProduct* Knowledge::find_pci(std::uint16_t device, std::optional<std::uint8_t> revision) const {
  const PciProduct* fallback = nullptr;
  const PciProduct* any = nullptr;
  for (const auto& p : pci) {
    if (p.device != device) continue;
    if (p.revision && revision && *p.revision == *revision) return &p;
    if (!p.revision && !fallback) fallback = &p;
    if (!any) any = &p;
  }
  // The data test requires a default for every device; without one, a revision entry
  // still gives the gfx target (its name is a guess the caller must not show as fact).
  return fallback ? fallback : any;
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

const RocmRelease* Knowledge::first_with_kernels(const GfxTarget& t) const {
  for (const auto& r : rocm)
    if (r.has_kernels(t)) return &r;
  return nullptr;
}

const RocmRelease* Knowledge::first_official(const GfxTarget& t) const {
  for (const auto& r : rocm)
    if (r.is_official(t)) return &r;
  return nullptr;
}

const RocmRelease* Knowledge::last_official(const GfxTarget& t) const {
  const RocmRelease* last = nullptr;
  for (const auto& r : rocm)
    if (r.is_official(t)) last = &r;
  return last;
}

std::vector<const PciProduct*> Knowledge::pci_for(const GfxTarget& t) const {
  std::vector<const PciProduct*> out;
  for (const auto& p : pci)
    if (p.gfx == t) out.push_back(&p);
  return out;
}

std::string firmware_snapshot(const std::string& package_version) {
  std::string_view v = package_version;
  if (auto colon = v.find(':'); colon != std::string_view::npos && colon < 4) v.remove_prefix(colon + 1);  // an epoch
  if (v.size() < 8) return {};
  for (std::size_t i = 0; i < 8; ++i)
    if (v[i] < '0' || v[i] > '9') return {};
  if (v.size() > 8 && v[8] >= '0' && v[8] <= '9') return {};  // a longer number is no date
  return std::string(v.substr(0, 8));
}

bool FirmwareBad::matches(const std::string& package_version) const {
  const std::string snap = firmware_snapshot(package_version);
  return !snap.empty() && std::find(bad.begin(), bad.end(), snap) != bad.end();
}

const KernelReq* Knowledge::kernel_req_for(const GfxTarget& t) const {
  for (const auto& k : kernel_reqs)
    if (std::find(k.gfx.begin(), k.gfx.end(), t) != k.gfx.end()) return &k;
  return nullptr;
}

const RocmRelease* Knowledge::wheel_release(const PytorchWheel& w) const {
  const RocmRelease* best = nullptr;
  for (const auto& r : rocm)
    if (r.version.major == w.rocm.major && r.version.minor == w.rocm.minor && (!best || best->version < r.version))
      best = &r;
  return best;
}

PytorchChoice Knowledge::pytorch_for(const std::vector<GfxTarget>& targets,
                                     const std::function<bool(const RocmRelease&)>& usable) const {
  PytorchChoice out;
  if (targets.empty()) return out;
  // Pass 0: every target native. Pass 1: each native or through its known override.
  for (int pass = 0; pass < 2; ++pass)
    for (auto it = pytorch.rbegin(); it != pytorch.rend(); ++it) {
      const RocmRelease* r = wheel_release(*it);
      if (!r || (usable && !usable(*r))) continue;
      bool all = true, override_used = false;
      for (const auto& t : targets) {
        if (r->has_kernels(t)) continue;
        const GfxInfo* info = find_gfx(t);
        if (pass == 1 && info && info->override_to && r->has_kernels(*info->override_to)) {
          override_used = true;
          continue;
        }
        all = false;
        break;
      }
      if (all) return {&*it, override_used};
    }
  return out;
}

const OllamaBuild* Knowledge::find_ollama(const Version& v) const {
  for (const auto& b : ollama)
    if (v >= b.from && (!b.until || v < *b.until)) return &b;
  return nullptr;
}

const ChannelSpec* Knowledge::find_channel(const std::string& id) const {
  for (const auto& c : channels)
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<const ChannelSpec*> Knowledge::channels_for(const Version& r) const {
  std::vector<const ChannelSpec*> out;
  for (const auto& c : channels)
    if (std::any_of(c.rocm.begin(), c.rocm.end(), [&](const Version& v) { return v.major == r.major && v.minor == r.minor; }))
      out.push_back(&c);
  return out;
}

bool Knowledge::ollama_igpu_allowlisted(const GfxTarget& t, const Version& v) const {
  auto it = ollama_policy.igpu_allow.find(t);
  return it != ollama_policy.igpu_allow.end() && v >= it->second;
}

}  // namespace amdml
