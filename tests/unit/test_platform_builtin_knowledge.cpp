// The knowledge base compiled at build time (tools/knowledge_gen.cpp) against the same
// files parsed by the run-time loader (formats/knowledge_toml.cpp), field by field: the
// structs' operator== is defaulted, so a field the generator does not write (one added
// to the structs and the loader later) keeps its default in the tables and fails here.
#include <gtest/gtest.h>

#include "amdml/knowledge.hpp"
#include "platform/embedded.hpp"
#include "support/knowledge.hpp"

namespace amdml {
namespace {

// Each entry of two lists, so a failure names the entry that differs.
template <class T, class Name>
void expect_same_entries(const std::vector<T>& built, const std::vector<T>& parsed, const char* table, Name name) {
  ASSERT_EQ(built.size(), parsed.size()) << table;
  for (std::size_t i = 0; i < parsed.size(); ++i)
    EXPECT_TRUE(built[i] == parsed[i]) << table << " entry " << i << " (" << name(parsed[i])
                                       << ") differs from recipes/knowledge";
}

TEST(BuiltinKnowledge, EqualsTheParsedTomlFieldByField) {
  const Knowledge built = platform::builtin_knowledge();
  const Knowledge& parsed = test::shipped_knowledge();
  ASSERT_FALSE(parsed.gfx.empty());
  expect_same_entries(built.gfx, parsed.gfx, "[[gfx]]", [](const GfxInfo& g) { return g.target.name(); });
  expect_same_entries(built.pci, parsed.pci, "[[pci]]/[[chip]]", [](const PciProduct& p) { return p.name; });
  expect_same_entries(built.rocm, parsed.rocm, "[[rocm]]", [](const RocmRelease& r) { return r.version.str(); });
  expect_same_entries(built.kernel_reqs, parsed.kernel_reqs, "[[kernel_req]]",
                      [](const KernelReq& k) { return k.kernel_min.str(); });
  expect_same_entries(built.firmware_bad, parsed.firmware_bad, "[[firmware_bad]]",
                      [](const FirmwareBad& b) { return b.bad.front(); });
  expect_same_entries(built.pytorch, parsed.pytorch, "[[pytorch]]", [](const PytorchWheel& w) { return w.index; });
  expect_same_entries(built.ollama, parsed.ollama, "[[ollama]]", [](const OllamaBuild& b) { return b.from.str(); });
  expect_same_entries(built.pcie, parsed.pcie, "[[pcie]]", [](const PcieGen& g) { return g.gts; });
  EXPECT_TRUE(built.memory == parsed.memory) << "[memory]";
  EXPECT_TRUE(built.ollama_policy == parsed.ollama_policy) << "[ollama_policy]";
  EXPECT_EQ(built.per_node_override_since, parsed.per_node_override_since) << "[runtime]";
  // Everything, including whatever the lines above do not name.
  EXPECT_TRUE(built == parsed) << "the built-in knowledge differs from recipes/knowledge/*.toml: "
                                  "tools/knowledge_gen.cpp must write every field of include/amdml/knowledge.hpp";
}

// --version's shortcut names the release the whole table has last.
TEST(BuiltinKnowledge, NewestRocmIsTheParsedNewest) {
  const Knowledge& parsed = test::shipped_knowledge();
  ASSERT_NE(parsed.newest_rocm(), nullptr);
  EXPECT_EQ(platform::builtin_newest_rocm(), parsed.newest_rocm()->version);
}

// The comparison itself sees every field: one changed value anywhere makes them differ.
TEST(BuiltinKnowledge, ComparisonSeesAChangedField) {
  const Knowledge& parsed = test::shipped_knowledge();
  ASSERT_FALSE(parsed.gfx.empty());
  Knowledge changed = parsed;
  changed.gfx.back().rocm_never = !changed.gfx.back().rocm_never;
  EXPECT_FALSE(changed == parsed);
  changed = parsed;
  changed.memory.apu_prefer_gtt_backport += "x";
  EXPECT_FALSE(changed == parsed);
  changed = parsed;
  changed.ollama_policy.igpu_allow.clear();
  EXPECT_EQ(changed == parsed, parsed.ollama_policy.igpu_allow.empty());
}

}  // namespace
}  // namespace amdml
