// Fuzz target: the knowledge base TOML (recipes/knowledge/*.toml, also user-supplied
// through --recipes DIR): gfx targets, PCI ids, ROCm releases.
#include <algorithm>

#include "amdml/knowledge.hpp"
#include "formats/knowledge_toml.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<amdml::RecipeFile> files{{"knowledge/fuzz.toml", std::string(amdml::fuzz::as_text(data, size))}};
  auto kb = amdml::formats::load_knowledge(files);
  if (!kb) {
    FUZZ_CHECK(kb.error().message.starts_with("recipes/knowledge/fuzz.toml"));
    return 0;
  }
  for (const auto& g : kb->gfx) {
    FUZZ_CHECK(kb->find_gfx(g.target) != nullptr);
    FUZZ_CHECK(amdml::GfxTarget::parse_name(g.target.name()) == g.target);
  }
  for (const auto& p : kb->pci) FUZZ_CHECK(kb->find_pci(p.device, p.revision) != nullptr);
  for (std::size_t i = 1; i < kb->rocm.size(); ++i) FUZZ_CHECK(!(kb->rocm[i].version < kb->rocm[i - 1].version));
  for (const auto& r : kb->rocm) {
    FUZZ_CHECK(kb->find_rocm(r.version) != nullptr);
    for (const auto& o : r.official)
      FUZZ_CHECK(std::find(r.kernels.begin(), r.kernels.end(), o) != r.kernels.end());
  }
  return 0;
}
