// Small value types shared across layers: units, versions, gfx targets, enum names.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "amdml/facts.hpp"
#include "amdml/finding.hpp"
#include "amdml/gfx.hpp"
#include "base/enum_names.hpp"
#include "base/text.hpp"
#include "amdml/units.hpp"
#include "amdml/version.hpp"

namespace amdml {

std::string format_bytes(Bytes b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(b.value);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b.value));
  else if (v >= 100 || std::fabs(v - std::round(v)) < 0.05) std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

bool parse_bytes(const std::string& text_in, Bytes& out) {
  std::string text(text::trim(text_in));
  if (text.empty()) return false;
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return false;
  double num = 0;
  try {
    num = std::stod(text.substr(0, i));
  } catch (...) {
    return false;
  }
  std::string unit(text::trim(std::string_view(text).substr(i)));
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double mult = 1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kib" || unit == "kb") mult = 1024.0;
  else if (unit == "m" || unit == "mib" || unit == "mb") mult = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib" || unit == "gb") mult = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tib" || unit == "tb") mult = 1024.0 * 1024 * 1024 * 1024;
  else return false;
  double v = num * mult;
  if (!(v >= 0) || v > 1.8e19) return false;
  out = Bytes{static_cast<std::uint64_t>(v)};
  return true;
}

std::string Version::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::optional<Version> Version::parse(std::string_view text) {
  text = text::trim(text);
  if (!text.empty() && (text[0] == 'v' || text[0] == 'V')) text.remove_prefix(1);
  std::uint32_t parts[3] = {0, 0, 0};
  int n = 0;
  std::size_t i = 0;
  while (n < 3) {
    std::size_t j = i;
    std::uint64_t v = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      v = v * 10 + static_cast<std::uint64_t>(text[j] - '0');
      if (v > 0xffffffffULL) return std::nullopt;
      ++j;
    }
    if (j == i) break;
    parts[n++] = static_cast<std::uint32_t>(v);
    i = j;
    if (i < text.size() && text[i] == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))
      ++i;
    else
      break;
  }
  if (n < 2) return std::nullopt;
  // What follows may be a build or local part ("-39", "+rocm7.2", "~24.04", ".50100-36",
  // PEP 440's ".post1" and ".dev0"), never a file name: "6.2.4.tar.gz" and
  // "rocm-installer-7.14.1-1.run"'s "7.14.1.run" are no version.
  if (i < text.size() && text[i] == '.') {
    auto rest = text.substr(i + 1);
    bool ok = !rest.empty() && (std::isdigit(static_cast<unsigned char>(rest[0])) || rest.starts_with("post") ||
                                rest.starts_with("dev"));
    if (!ok) return std::nullopt;
  }
  return Version{parts[0], parts[1], parts[2]};
}

static char hex_digit(std::uint32_t v) { return "0123456789abcdef"[v & 0xf]; }

std::string GfxTarget::name() const {
  std::string s = "gfx" + std::to_string(major);
  s += hex_digit(minor);
  s += hex_digit(stepping);
  return s;
}

std::string GfxTarget::version_string() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(stepping);
}

std::optional<GfxTarget> GfxTarget::from_kfd_version(std::uint64_t v) {
  if (v == 0 || v > 999999) return std::nullopt;
  GfxTarget t{static_cast<std::uint32_t>(v / 10000), static_cast<std::uint32_t>((v / 100) % 100),
              static_cast<std::uint32_t>(v % 100)};
  if (t.major == 0 || t.minor > 15 || t.stepping > 15) return std::nullopt;
  return t;
}

std::optional<GfxTarget> GfxTarget::parse_name(std::string_view name) {
  name = text::trim(name);
  auto colon = name.find(':');
  if (colon != std::string_view::npos) name = name.substr(0, colon);
  auto dash = name.rfind("--");  // amdgcn-amd-amdhsa--gfx90a
  if (dash != std::string_view::npos) name = name.substr(dash + 2);
  if (name.size() < 6) return std::nullopt;
  if (std::tolower(static_cast<unsigned char>(name[0])) != 'g' || std::tolower(static_cast<unsigned char>(name[1])) != 'f' ||
      std::tolower(static_cast<unsigned char>(name[2])) != 'x')
    return std::nullopt;
  std::string_view rest = name.substr(3);
  std::string_view major = rest.substr(0, rest.size() - 2);
  if (major.empty() || major.size() > 2) return std::nullopt;
  std::uint32_t mj = 0;
  for (char c : major) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    mj = mj * 10 + static_cast<std::uint32_t>(c - '0');
  }
  auto hexv = [](char c) -> int {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  int mi = hexv(rest[rest.size() - 2]);
  int st = hexv(rest[rest.size() - 1]);
  if (mi < 0 || st < 0 || mj == 0) return std::nullopt;
  return GfxTarget{mj, static_cast<std::uint32_t>(mi), static_cast<std::uint32_t>(st)};
}

namespace {

constexpr EnumName<TtmModule> kTtmModuleNames[] = {
    {TtmModule::none, "none"}, {TtmModule::ttm, "ttm"}, {TtmModule::amdttm, "amdttm"}};

constexpr EnumName<RocmSource> kRocmSourceNames[] = {
    {RocmSource::none, "none"},
    {RocmSource::rocm_path, "ROCM_PATH"},
    {RocmSource::opt_rocm, "/opt/rocm"},
    {RocmSource::distro, "distribution"},
};

}  // namespace

const char* to_string(TtmModule m) { return enum_name(kTtmModuleNames, m, "none"); }
const char* to_string(RocmSource s) { return enum_name(kRocmSourceNames, s, "none"); }

std::string KfdNode::pci_slot() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain.value_or(0), (location_id >> 8) & 0xff,
                (location_id >> 3) & 0x1f, location_id & 0x7);
  return buf;
}

int KfdFacts::cpu_nodes() const {
  int n = 0;
  for (const auto& node : nodes) n += node.cpu ? 1 : 0;
  return n;
}

std::optional<std::string> IdentityFacts::group_name(std::uint32_t gid) const {
  for (const auto& g : groups)
    if (g.gid == gid) return g.name;
  if (nss_groups)
    for (const auto& g : *nss_groups)
      if (g.gid == gid && !g.name.empty()) return g.name;
  return std::nullopt;
}

std::string Gpu::pci_id() const {
  if (!vendor_id || !device_id) return "";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x:%04x", *vendor_id, *device_id);
  return buf;
}

Summary summarize(const std::vector<Finding>& findings) {
  Summary s;
  for (const auto& f : findings) {
    if (f.severity == Severity::error) ++s.errors;
    else if (f.severity == Severity::warning) ++s.warnings;
    else ++s.infos;
  }
  return s;
}

// The runtime facts' own views (amdml/facts_runtime.hpp).
std::string HsaPool::flags_text() const {
  if (segment != HsaSegment::global) return "";
  std::string out;
  auto add = [&](std::uint32_t bit, const char* name) {
    if (global_flags & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  add(kHsaPoolKernarg, "kernarg");
  add(kHsaPoolFineGrained, "fine-grained");
  add(kHsaPoolCoarseGrained, "coarse-grained");
  add(kHsaPoolExtendedFineGrained, "extended-fine-grained");
  return out;
}

std::optional<std::string> HsaAgent::pci_slot() const {
  if (!bdfid) return std::nullopt;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain.value_or(0), (*bdfid >> 8) & 0xff, (*bdfid >> 3) & 0x1f,
                *bdfid & 0x7);
  return std::string(buf);
}

std::size_t HsaFacts::gpu_agents() const {
  std::size_t n = 0;
  for (const auto& a : agents) n += a.device == HsaDeviceType::gpu;
  return n;
}

std::optional<std::string> hsa_status_name(std::uint32_t code) {
  // The common hsa_status_t values (hsa.h, hsa_ext_amd.h); hsa_status_string gives the
  // rest when the runtime answered.
  static const std::pair<std::uint32_t, const char*> names[] = {
      {0x0, "HSA_STATUS_SUCCESS"},
      {0x1, "HSA_STATUS_INFO_BREAK"},
      {0x1000, "HSA_STATUS_ERROR"},
      {0x1001, "HSA_STATUS_ERROR_INVALID_ARGUMENT"},
      {0x1002, "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION"},
      {0x1003, "HSA_STATUS_ERROR_INVALID_ALLOCATION"},
      {0x1004, "HSA_STATUS_ERROR_INVALID_AGENT"},
      {0x1005, "HSA_STATUS_ERROR_INVALID_REGION"},
      {0x1006, "HSA_STATUS_ERROR_INVALID_SIGNAL"},
      {0x1007, "HSA_STATUS_ERROR_INVALID_QUEUE"},
      {0x1008, "HSA_STATUS_ERROR_OUT_OF_RESOURCES"},
      {0x1009, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT"},
      {0x100A, "HSA_STATUS_ERROR_RESOURCE_FREE"},
      {0x100B, "HSA_STATUS_ERROR_NOT_INITIALIZED"},
      {0x100C, "HSA_STATUS_ERROR_REFCOUNT_OVERFLOW"},
      {0x100D, "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS"},
      {0x100E, "HSA_STATUS_ERROR_INVALID_INDEX"},
      {0x100F, "HSA_STATUS_ERROR_INVALID_ISA"},
      {0x1017, "HSA_STATUS_ERROR_INVALID_ISA_NAME"},
      {0x1013, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT"},
      {0x1016, "HSA_STATUS_ERROR_INVALID_FILE"},
      {0x101A, "HSA_STATUS_ERROR_INVALID_RUNTIME_STATE"},
      {0x101B, "HSA_STATUS_ERROR_FATAL"},
  };
  for (const auto& [c, n] : names)
    if (c == code) return std::string(n);
  return std::nullopt;
}

}  // namespace amdml
