// The GPU knowledge base: gfx targets, PCI ids and ROCm releases, loaded from the
// TOML data in recipes/knowledge/ (embedded at build time, or --recipes DIR).
//
// Rules consult it; they never hard-code a gfx, a PCI id or a release.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amdml/gfx.hpp"
#include "amdml/result.hpp"
#include "amdml/version.hpp"

namespace amdml {

enum class IsaFamily { gcn, cdna, rdna1, rdna2, rdna3, rdna3_5, rdna4, unknown };
const char* to_string(IsaFamily f);
std::optional<IsaFamily> parse_isa_family(const std::string& s);

struct GfxInfo {
  GfxTarget target;
  std::string family;        // marketing family ("Navi 2x", "Phoenix")
  IsaFamily isa = IsaFamily::unknown;
  int wave_size = 64;
  bool apu = false;
  std::vector<std::string> products;        // examples ("Radeon RX 6600 XT")
  std::optional<GfxTarget> override_to;     // known-working HSA_OVERRIDE_GFX_VERSION target
  std::string override_caveat;              // what can go wrong with it
  std::string notes;
};

struct PciProduct {
  std::uint16_t device = 0;
  std::optional<std::uint8_t> revision;  // when the name depends on it
  GfxTarget gfx;
  std::string name;  // marketing name
};

struct RocmRelease {
  Version version;
  std::vector<GfxTarget> official;   // officially supported targets
  std::vector<GfxTarget> kernels;    // targets the math libraries ship kernels for (superset)
  std::vector<std::string> distros;  // "ubuntu 24.04"
  std::optional<Version> kernel_min;
  std::optional<Version> kernel_max;
  std::string pytorch_index;         // "https://download.pytorch.org/whl/rocm6.2"
  std::string notes;
};

struct Knowledge {
  std::vector<GfxInfo> gfx;
  std::vector<PciProduct> pci;
  std::vector<RocmRelease> rocm;

  const GfxInfo* find_gfx(const GfxTarget& t) const;
  // Exact (device, revision) first, then the device with no revision.
  const PciProduct* find_pci(std::uint16_t device, std::optional<std::uint8_t> revision) const;
  // The newest release whose version is <= v in major.minor (6.2.4 -> the 6.2 entry).
  const RocmRelease* find_rocm(const Version& v) const;
};

struct RecipeFile {
  std::string path;  // relative to the recipes dir ("knowledge/gfx.toml")
  std::string text;
};

// The embedded recipes, or those under dir when given (--recipes DIR).
Result<std::vector<RecipeFile>> recipe_files(const std::string& dir);
// Parses the knowledge/*.toml files; a malformed file is an error naming file and line.
Result<Knowledge> load_knowledge(const std::vector<RecipeFile>& files);

}  // namespace amdml
