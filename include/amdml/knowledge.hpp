// The GPU knowledge base: gfx targets, PCI ids, ROCm releases and the kernel facts the
// diagnoses need, loaded from the TOML data in recipes/knowledge/ (embedded at build
// time, or --recipes DIR).
//
// Rules consult it; they never hard-code a gfx, a PCI id or a release. The helpers
// here (override parsing, ISA compatibility, release lookups) are shared by the rules,
// `amdml explain` and the data-validation test, so all three agree on the semantics.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/gfx.hpp"
#include "base/result.hpp"
#include "amdml/units.hpp"
#include "amdml/version.hpp"

namespace amdml {

enum class IsaFamily { gcn, cdna, rdna1, rdna2, rdna3, rdna3_5, rdna4, unknown };
const char* to_string(IsaFamily f);
std::optional<IsaFamily> parse_isa_family(const std::string& s);

// Overriding may move a GPU to another target of the same ISA family only: RDNA 3 and
// RDNA 3.5 count as one family (gfx11), since 11.0.0 is the common override for both.
bool isa_compatible(IsaFamily a, IsaFamily b);

// "6.15" for 6.15.0, "6.18.4" otherwise: how people write kernel and ROCm versions.
std::string short_version(const Version& v);

struct GfxInfo {
  bool operator==(const GfxInfo&) const = default;  // the built-in tables' test compares field by field
  GfxTarget target;
  std::uint32_t kfd_version = 0;  // as written in the data; validated against target
  std::string family;        // marketing family ("Navi 2x", "Phoenix")
  IsaFamily isa = IsaFamily::unknown;
  int wave_size = 64;
  bool apu = false;
  std::vector<std::string> products;        // examples ("Radeon RX 6600 XT")
  std::optional<GfxTarget> override_to;     // known-working HSA_OVERRIDE_GFX_VERSION target
  std::string override_caveat;              // what can go wrong with it
  bool needs_atomics = false;               // a dGPU of this generation needs PCIe atomics
  std::optional<Version> kernel_min;        // oldest in-tree kernel whose KFD knows it
  std::string kernel_note;
  std::string notes;
  // No ROCm release ever runs it (KFD lacks it, or no release ships its kernels and
  // none will): whatever driver is bound, the way forward is Vulkan, not amdgpu.
  bool rocm_never = false;
};

struct PciProduct {
  bool operator==(const PciProduct&) const = default;  // the built-in tables' test compares field by field
  std::uint16_t device = 0;
  std::optional<std::uint8_t> revision;  // when the name depends on it
  GfxTarget gfx;
  std::string name;  // marketing name
};

struct RocmRelease {
  bool operator==(const RocmRelease&) const = default;  // the built-in tables' test compares field by field
  Version version;
  std::vector<GfxTarget> official;   // officially supported targets
  std::vector<GfxTarget> kernels;    // targets the math libraries ship kernels for (superset)
  std::vector<std::string> distros;  // "ubuntu 24.04"
  std::optional<Version> kernel_min;
  std::optional<Version> kernel_max;
  // Filled from the [[pytorch]] table: the pytorch.org wheel built against this release.
  std::string pytorch_index;         // "https://download.pytorch.org/whl/rocm6.2" or ""
  std::string pytorch_versions;      // "2.5.0, 2.5.1"
  std::string notes;
  std::string date;                  // "2026-10-05": the release's date (RD-ver)
  std::string hip;                   // HIP runtime version ("7.14.60850"): not the ROCm version
  std::vector<std::string> drivers;  // kernel drivers (amdgpu-dkms) tested with it ("31.50.0")
  std::vector<std::string> added;    // products the release added to the official list

  bool has_kernels(const GfxTarget& t) const;
  bool is_official(const GfxTarget& t) const;
};

// AMD's status of a ROCm release on a GPU, by whether the kernel has the fixes it needs.
enum class KernelStatus { ok, unstable, unsupported, unknown };
const char* to_string(KernelStatus s);

// "This GPU needs this kernel": e.g. Strix Halo below 6.18.4.
struct KernelReq {
  bool operator==(const KernelReq&) const = default;  // the built-in tables' test compares field by field
  std::vector<GfxTarget> gfx;
  Version kernel_min;
  std::string backport;  // "6.14.0-1018-oem": a distro kernel carrying the fixes from this ABI on
  std::string why;
  std::string source;
  std::map<std::string, KernelStatus> rocm_old_kernel;  // ROCm "7.2.1" / "7.1" -> status
  std::map<std::string, KernelStatus> rocm_new_kernel;

  // Whether a kernel release ("6.14.0-1018-oem", "6.18.4-arch1") has what this needs.
  bool satisfied_by(const std::string& kernel_release) const;
  // AMD's status for the ROCm release on an old or a fixed kernel (unknown if not listed).
  KernelStatus status(const Version& rocm, bool fixed_kernel) const;
};

// linux-firmware snapshots that break ROCm on a GPU family: the firmware amdgpu loads
// (MES, SMU, PSP) comes from that package, not from ROCm or the kernel.
struct FirmwareBad {
  bool operator==(const FirmwareBad&) const = default;  // the built-in tables' test compares field by field
  std::vector<GfxTarget> gfx;
  std::vector<std::string> bad;  // upstream snapshot dates ("20251125"), the leading date of a package's version
  std::string fixed;             // the first snapshot known good again ("20260110"), "" if none is known
  std::string previous;          // the last snapshot known good before the bad ones ("20251111")
  std::string why;
  std::string source;

  // Whether a package version ("20251125-1", "1:20251125.git1a2b3c4d-0ubuntu1") is one of the bad snapshots.
  bool matches(const std::string& package_version) const;
};

// The upstream snapshot date a linux-firmware package version starts with ("20251125"
// of "20251125-1", "1:20240318.git3b128b60-0ubuntu2.13"); "" when it starts with none.
std::string firmware_snapshot(const std::string& package_version);

// Kernel milestones and policy for APU memory (GTT / TTM).
struct MemoryKnowledge {
  bool operator==(const MemoryKnowledge&) const = default;  // the built-in tables' test compares field by field
  Version gtt_follows_ttm{6, 5, 0};
  Version small_apu_gtt_fallback{6, 10, 0};
  Version apu_prefer_gtt{6, 15, 0};
  Version gttsize_deprecated{6, 15, 0};
  std::uint64_t os_reserve_min_gib = 4;
  double os_reserve_fraction = 0.125;
  double max_fraction = 0.9;
  std::uint64_t small_carveout_max_mib = 2048;
  std::string apu_prefer_gtt_backport;  // "6.14.0-oem": a distro series carrying it earlier

  // Whether ROCm-visible APU memory follows pages_limit on this kernel release.
  bool rocm_memory_follows_ttm(const std::string& kernel_release) const;

  // The pages_limit that leaves the OS its reserve, in whole GiB, never above
  // max_fraction of RAM; nullopt when RAM is too small to leave any.
  std::optional<Pages> recommended_pages_limit(Bytes ram) const;
};

// A pytorch.org ROCm wheel index. Its kernels are those of the newest [[rocm]] entry of
// the same major.minor (rocm6.4 -> 6.4.1): the wheel bundles that ROCm's libraries.
struct PytorchWheel {
  bool operator==(const PytorchWheel&) const = default;  // the built-in tables' test compares field by field
  std::string index;   // "https://download.pytorch.org/whl/rocm7.1"
  Version rocm;        // 7.1
  std::string torch;   // "2.10.0"
  // "bundled": ROCm's libraries in torch/lib; "rocm-wheels": none there, the wheel
  // depends on TheRock's rocm packages (requires), which pip takes from the same index.
  std::string kind = "bundled";
  std::string requires_dist;  // "rocm[libraries,device-all]==7.14.*" for rocm-wheels
};

// The wheel for a set of GPUs, and whether some GPU needs HSA_OVERRIDE_GFX_VERSION on it.
struct PytorchChoice {
  const PytorchWheel* wheel = nullptr;
  bool needs_override = false;
};

// One ollama release range: the ROCm it bundles and the gfx targets it ships kernels for.
struct OllamaBuild {
  bool operator==(const OllamaBuild&) const = default;  // the built-in tables' test compares field by field
  Version from;                   // first release of the range
  std::optional<Version> until;   // first release after it (nullopt: still current)
  Version rocm;                   // bundled ROCm
  std::vector<GfxTarget> targets;
};

// ollama's GPU policy by release.
struct OllamaPolicy {
  bool operator==(const OllamaPolicy&) const = default;  // the built-in tables' test compares field by field
  Version igpu_drop_from{0, 30, 0};      // integrated GPUs dropped unless OLLAMA_IGPU_ENABLE
  Version vulkan_default_from{0, 30, 0};
  Version vulkan_opt_in_from{0, 12, 11};  // OLLAMA_VULKAN=1 works from here
  std::map<GfxTarget, Version> igpu_allow;  // iGPUs kept by default, from that release on
};

// AMD's apt repository (recipes/knowledge/rocm-releases.toml): where each release's
// packages are, by distribution, and the distributions' own older ROCm packages.
struct RocmAptRelease {
  bool operator==(const RocmAptRelease&) const = default;  // the built-in tables' test compares field by field
  Version rocm;          // the [[rocm]] entry it installs
  std::string path;      // the repository directory ("7.2.1")
  std::string graphics;  // the kernel driver's directory ("30.30.1")
};
struct AptCodename {
  bool operator==(const AptCodename&) const = default;  // the built-in tables' test compares field by field
  std::string distro;    // "ubuntu 24.04"
  std::string codename;  // "noble"
};
struct DistroRocm {
  bool operator==(const DistroRocm&) const = default;  // the built-in tables' test compares field by field
  std::string distro;
  Version rocm;
  std::vector<std::string> packages;
};
struct RocmApt {
  bool operator==(const RocmApt&) const = default;  // the built-in tables' test compares field by field
  std::string rocm_repo;      // "https://repo.radeon.com/rocm/apt/{path}"
  std::string graphics_repo;  // "https://repo.radeon.com/amdgpu/{graphics}/ubuntu"
  std::string key_url;
  std::string fingerprint;    // the key's pinned fingerprint (40 hex digits)
  std::string origin;         // the Release file's Origin (the pin file names it)
  std::vector<std::string> runtime, development, dkms;  // package sets of the use cases
  std::vector<RocmAptRelease> releases;                 // sorted by rocm
  std::vector<AptCodename> codenames;
  std::vector<DistroRocm> distro_packages;
};

// Host<->device copies over PCIe (recipes/knowledge/pcie.toml), one entry per link
// generation: what one lane moves each way after the line encoding, and the share of it
// a pinned DMA copy (hsa_amd_memory_async_copy) reaches in practice.
struct PcieGen {
  bool operator==(const PcieGen&) const = default;  // the built-in tables' test compares field by field
  int gen = 0;             // 4 for PCIe 4.0
  double gts = 0;          // its transfer rate, GT/s, as sysfs names the link speed (16.0)
  std::string encoding;    // "8b/10b", "128b/130b", "FLIT"
  double lane_gbs = 0;     // GB/s (10^9 bytes) per lane and direction after encoding
  double practical = 0;    // the share of lane_gbs x width a pinned DMA copy reaches (0.8)
  std::string source;

  // The figure a copy over `width` lanes of this generation should reach, GB/s.
  double expected_gbs(std::uint32_t width) const { return lane_gbs * width * practical; }
};

// The knowledge format this amdml reads (recipes/knowledge/meta.toml `format`): a
// bundle of a newer format is refused by `amdml update` and by --recipes DIR. 2 added
// pcie.toml (an amdml that reads format 1 refuses its [[pcie]] tables as unknown keys).
inline constexpr int kKnowledgeFormat = 2;

// recipes/knowledge/meta.toml: which knowledge this is. `date` is the day of its newest
// fact ("2026-10-05"), what `--version`, the doctor and `knowledge.stale` show.
struct KnowledgeMeta {
  bool operator==(const KnowledgeMeta&) const = default;  // the built-in tables' test compares field by field
  int format = 0;    // 0: no meta.toml (a --recipes DIR of an older layout)
  std::string date;  // "YYYY-MM-DD", or "" when unknown
};

// Days since 1970-01-01 of a "YYYY-MM-DD" date (a real calendar day), nullopt otherwise.
std::optional<std::int64_t> parse_day(std::string_view date);

// One way ROCm reaches a machine ([[channel]] in recipes/knowledge/channels.toml): AMD's
// package repositories (legacy repo.radeon.com, repo.amd.com 7.14, the 10.x Core SDK),
// TheRock's pip wheels and tarballs, AMD's PyTorch wheels, and the distributions' own
// packages. Templates: {distro} the channel's name for the distribution, {rocm} the
// release as the channel spells it in names ("10.1"), {version} the full release
// ("10.1.0"), {gfx} a gfx target ("gfx1201"), {family} TheRock's target family.
struct ChannelSpec {
  bool operator==(const ChannelSpec&) const = default;  // the built-in tables' test compares field by field
  std::string id;                      // "amd-core-10"
  std::string kind;                    // apt | dnf | pacman | pip | tarball
  std::string title;                   // for people: "AMD ROCm Core SDK 10.x (stable.repo.amd.com)"
  std::vector<Version> rocm;           // the [[rocm]] releases it carries, oldest first (empty: the distribution's own)
  std::map<std::string, Version> full; // release -> newest point release in it ("10.1" -> 10.1.0)
  std::string repo;                    // repository / index / download URL template
  std::string suite;                   // apt suite ("stable"); "" for the others
  std::string key_url;                 // the signing key
  std::string fingerprint;             // its primary key's fingerprint, pinned (40 hex digits, upper case)
  std::map<std::string, std::string> distros;  // "ubuntu 24.04" -> "ubuntu2404"; "fedora" = any release
  std::vector<std::string> runtime;    // packages (templates) of the use case "run what brings its libraries"
  std::vector<std::string> development;  // ... "the whole SDK"
  std::string device;                  // the per-target package ("amdrocm{rocm}-{gfx}", "rocm-sdk-device-{gfx}")
  std::string prefix;                  // where it installs ("/opt/rocm/core-{rocm}"), "" if not one place
  std::vector<std::string> markers;    // files it leaves (templates), for recognising it
  std::map<std::string, std::string> families;  // gfx -> TheRock's target family ("gfx1100" -> "gfx110X-all"), for {family}
  bool distro_own = false;             // the distribution's own packages (its signed repositories)
  std::string notes;
};

struct Knowledge {
  bool operator==(const Knowledge&) const = default;  // the built-in tables' test compares field by field
  KnowledgeMeta meta;
  std::vector<GfxInfo> gfx;
  std::vector<PciProduct> pci;
  std::vector<RocmRelease> rocm;  // sorted by version
  std::vector<KernelReq> kernel_reqs;
  std::vector<FirmwareBad> firmware_bad;      // kernels.toml [[firmware_bad]]
  MemoryKnowledge memory;
  Version per_node_override_since{6, 3, 0};  // HSA_OVERRIDE_GFX_VERSION_<node> in ROCr
  std::vector<PytorchWheel> pytorch;         // sorted by version
  std::vector<OllamaBuild> ollama;           // sorted by `from`
  OllamaPolicy ollama_policy;
  RocmApt apt;                                // rocm-releases.toml
  std::vector<ChannelSpec> channels;          // channels.toml, in file order (newest AMD channel first)
  std::vector<PcieGen> pcie;                  // pcie.toml, sorted by gts

  const ChannelSpec* find_channel(const std::string& id) const;
  // The channels carrying release r (major.minor), in file order.
  std::vector<const ChannelSpec*> channels_for(const Version& r) const;

  const GfxInfo* find_gfx(const GfxTarget& t) const;
  // The PCIe generation of a link speed in GT/s (16.0 -> PCIe 4.0), or nullptr.
  const PcieGen* find_pcie(double gts) const;
  // Exact (device, revision) first, then the device's default entry (no revision). The
  // default names the family when the revisions name different models.
  const PciProduct* find_pci(std::uint16_t device, std::optional<std::uint8_t> revision) const;
  // The newest release whose version is <= v in major.minor (6.2.4 -> the 6.2 entry).
  const RocmRelease* find_rocm(const Version& v) const;
  const RocmRelease* newest_rocm() const { return rocm.empty() ? nullptr : &rocm.back(); }
  // The first release whose ML stack has kernels for t (official: on AMD's list).
  const RocmRelease* first_with_kernels(const GfxTarget& t) const;
  const RocmRelease* first_official(const GfxTarget& t) const;
  const RocmRelease* last_official(const GfxTarget& t) const;
  // Every PCI entry naming t (explain's product list).
  std::vector<const PciProduct*> pci_for(const GfxTarget& t) const;
  const KernelReq* kernel_req_for(const GfxTarget& t) const;
  // The PyTorch wheel for GPUs of these targets, the one `explain` and the doctor both
  // recommend: the newest wheel with native kernels for all of them, else the newest
  // that runs them through their known overrides; `usable` may rule releases out (a
  // kernel driver too old). No wheel when none fits.
  PytorchChoice pytorch_for(const std::vector<GfxTarget>& targets,
                            const std::function<bool(const RocmRelease&)>& usable = {}) const;
  // The [[rocm]] entry whose kernels a wheel carries (nullptr if the data has none).
  const RocmRelease* wheel_release(const PytorchWheel& w) const;
  // The ollama range holding release v, or nullptr.
  const OllamaBuild* find_ollama(const Version& v) const;
  // Whether ollama v keeps iGPU t by default (its allowlist).
  bool ollama_igpu_allowlisted(const GfxTarget& t, const Version& v) const;
};

struct RecipeFile {
  std::string path;  // relative to the recipes dir ("knowledge/gfx.toml")
  std::string text;
};

}  // namespace amdml
