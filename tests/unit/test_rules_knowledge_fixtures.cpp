// The knowledge fixtures (tests/fixtures/<machine>, built from real machines' sysfs
// values) probed and diagnosed end to end: each raises exactly the findings its
// problem calls for, with the right fix parameters, and the tuned box raises nothing.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "formats/fix_params_json.hpp"
#include "probes/collect.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "rules/rules.hpp"
#include "rules/rules_internal.hpp"
#include "support/knowledge.hpp"

namespace amdml {
namespace {

TEST(KnowledgeFixtures, Rx6600XtOnRocm5NeedsTheRdna2Override) {
  test::Diagnosed d(test::fixture("rx6600xt-rocm5"));
  EXPECT_TRUE(d.facts.errors.empty());
  ASSERT_EQ(d.facts.gpus.size(), 1u);
  EXPECT_EQ(d.facts.gpus[0].marketing_name, "AMD Radeon RX 6600 XT");
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.override-needed"});
  EXPECT_EQ(amdml::formats::fix_params_json(d.find("gfx.override-needed")->fix->params), (nlohmann::json{{"value", "10.3.0"}}));
}

TEST(KnowledgeFixtures, Apu780mWithDefaultTtm) {
  test::Diagnosed d(test::fixture("apu780m-ubuntu2404-default-ttm"));
  EXPECT_EQ(d.ids(), (std::vector<std::string>{"kernel.old", "memory.gtt-limit", "rocm.version"}));
  const auto* g = d.find("memory.gtt-limit");
  EXPECT_EQ(amdml::formats::fix_params_json(g->fix->params)["module"], "ttm");
  // 30.6 GiB of RAM: 26 GiB for the GPU, the rest for the OS.
  EXPECT_EQ(amdml::formats::fix_params_json(g->fix->params)["pages_limit"], 26 * kGiB / kPageSize);
}

TEST(KnowledgeFixtures, StrixHaloTtmOptionUnderDkms) {
  test::Diagnosed d(test::fixture("strixhalo-ttm-under-dkms"));
  EXPECT_EQ(d.facts.driver.ttm_in_use, TtmModule::amdttm);
  EXPECT_EQ(d.ids(), (std::vector<std::string>{"memory.gtt-limit", "memory.ttm-wrong-module"}));
  // Issue 14 item 4: both findings ask the one recipe with the one limit, so `amdml fix`
  // plans a single change that resolves both.
  const auto* wrong = d.find("memory.ttm-wrong-module");
  const auto* gtt = d.find("memory.gtt-limit");
  ASSERT_TRUE(wrong->fix && gtt->fix);
  EXPECT_EQ(wrong->fix->recipe, "ttm-pages-limit");
  EXPECT_EQ(gtt->fix->recipe, "ttm-pages-limit");
  EXPECT_EQ(wrong->fix->params, gtt->fix->params);
  EXPECT_EQ(amdml::formats::fix_params_json(gtt->fix->params),
            (nlohmann::json{{"module", "amdttm"}, {"pages_limit", 28311552}, {"page_pool_size", 28311552}}));
}

TEST(KnowledgeFixtures, StrixHaloTunedRaisesNothing) {
  test::Diagnosed d(test::fixture("strixhalo-tuned"));
  EXPECT_TRUE(d.facts.errors.empty());
  EXPECT_TRUE(d.findings.empty()) << to_string(d.findings.front().id) << ": " << d.findings.front().title;
  EXPECT_EQ(d.facts.gpus[0].gtt, Pages{25165824}.bytes());
}

TEST(KnowledgeFixtures, Rx580OnRocm6IsUnsupported) {
  test::Diagnosed d(test::fixture("rx580-rocm6"));
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.unsupported"});
  EXPECT_EQ(d.facts.gpus[0].marketing_name, "AMD Radeon RX 580");
}

TEST(KnowledgeFixtures, MixedBoxGlobalOverrideBreaksTheDgpu) {
  test::Diagnosed d(test::fixture("mixed-rdna3-rdna2-global-override"));
  ASSERT_EQ(d.facts.gpus.size(), 2u);
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.override-invalid"});
  const auto* f = d.find("gfx.override-invalid");
  EXPECT_EQ(f->gpus, std::vector<int>{0});
  EXPECT_EQ(amdml::formats::fix_params_json(f->fix->params),
            (nlohmann::json{{"per_node", {{"1", "11.0.0"}, {"2", "10.3.0"}}}, {"shell_unset", {"HSA_OVERRIDE_GFX_VERSION"}}}));
}

TEST(KnowledgeFixtures, Rx9070XtOnRocm63NeedsRocm641) {
  test::Diagnosed d(test::fixture("rx9070xt-rocm63"));
  EXPECT_EQ(d.ids(), (std::vector<std::string>{"gfx.unsupported", "rocm.version"}));
  EXPECT_NE(d.find("gfx.unsupported")->detail.find("6.4.1"), std::string::npos);
}

// The ollama drop-in is mentioned only where ollama.env asks the ollama-override recipe
// for an override: never on a box without the service.
TEST(KnowledgeFixtures, OllamaNoteOnlyWhenItsRecipeIsPlanned) {
  // (The rocm-install notes may name ollama as what brings its own libraries: only the
  // service's drop-in counts here.)
  auto mentions_ollama = [](const Finding& fd) {
    for (const auto& n : fd.notes)
      if (n.find("ollama service") != std::string::npos || n.find("ollama-override") != std::string::npos) return true;
    return false;
  };
  for (const char* name : {"rx6600xt-rocm5", "fix-apu", "apu-small-carveout", "user-must-relogin"}) {
    test::Diagnosed d(test::fixture(name));
    const auto* g = d.find("gfx.override-needed");
    ASSERT_TRUE(g) << name;
    EXPECT_FALSE(mentions_ollama(*g)) << name;
  }
  // With ollama.env asking its recipe for an override, the note names that recipe.
  std::vector<Finding> both(2);
  both[0].id = FindingId::gfx_override_needed;
  both[0].fix = FixRef{"hsa-override", HsaParams{"10.3.0", {}}};
  both[1].id = FindingId::ollama_env;
  both[1].fix = FixRef{"ollama-override", EnvParams{{{"HSA_OVERRIDE_GFX_VERSION", "10.3.0"}}, {}}};
  rules::cross_reference(both);
  const auto* g = &both[0];
  EXPECT_TRUE(mentions_ollama(*g));
}

// A finding that names a recipe is one that recipe says it resolves (recipes/fixes/*.toml
// `resolves`, which `fix --list` shows and `--only` refusals read): on every fixture.
TEST(KnowledgeFixtures, EveryRecipeAFindingNamesListsItAsResolved) {
  for (const auto& dir : test::fixture_machines()) {
    test::Diagnosed d(dir.string());
    for (const auto& f : d.findings) {
      if (!f.fix) continue;
      auto r = std::find_if(d.recipes.begin(), d.recipes.end(), [&](const Recipe& x) { return x.id == f.fix->recipe; });
      ASSERT_NE(r, d.recipes.end()) << dir.filename() << ": " << to_string(f.id) << " names " << f.fix->recipe;
      EXPECT_NE(std::find(r->resolves.begin(), r->resolves.end(), std::string(to_string(f.id))), r->resolves.end())
          << dir.filename() << ": " << to_string(f.id) << " names recipe " << f.fix->recipe << ", whose resolves lacks it";
    }
  }
}

}  // namespace
}  // namespace amdml
