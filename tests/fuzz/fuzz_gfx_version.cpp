// Fuzz target: gfx target names ("gfx1103", "amdgcn-amd-amdhsa--gfx90a:xnack-"),
// KFD gfx_target_version numbers and dotted versions ("6.2.4", kernel releases).
#include "amdml/gfx.hpp"
#include "formats/system_files.hpp"
#include "amdml/version.hpp"
#include "fuzz_check.hpp"

using amdml::GfxTarget;
using amdml::Version;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  if (auto g = GfxTarget::parse_name(text)) {
    FUZZ_CHECK(g->major >= 1 && g->major <= 99 && g->minor <= 15 && g->stepping <= 15);
    FUZZ_CHECK(GfxTarget::parse_name(g->name()) == g);
    FUZZ_CHECK(GfxTarget::from_kfd_version(g->kfd_version()) == g);
  }
  if (auto v = Version::parse(text)) FUZZ_CHECK(Version::parse(v->str()) == v);
  if (auto n = amdml::text::u64(text)) {
    if (auto g = GfxTarget::from_kfd_version(*n)) FUZZ_CHECK(g->kfd_version() == *n);
  }
  return 0;
}
