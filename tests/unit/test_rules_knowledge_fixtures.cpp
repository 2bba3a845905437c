// The knowledge fixtures (tests/fixtures/<machine>, built from real machines' sysfs
// values) probed and diagnosed end to end: each raises exactly the findings its
// problem calls for, with the right fix parameters, and the tuned box raises nothing.
#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include "probes/collect.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "rules/rules.hpp"
#include "rules/rules_internal.hpp"

namespace amdml {
namespace {

const Knowledge& kb() {
  static const Knowledge k = *load_knowledge(*recipe_files(""));
  return k;
}

struct Diagnosis {
  Facts facts;
  std::vector<Finding> findings;
  std::vector<std::string> ids() const {
    std::vector<std::string> v;
    for (const auto& f : findings) v.push_back(f.id);
    std::sort(v.begin(), v.end());
    return v;
  }
  const Finding* find(const std::string& id) const {
    for (const auto& f : findings)
      if (f.id == id) return &f;
    return nullptr;
  }
};

Diagnosis diagnose_fixture(const std::string& name) {
  auto host = make_host(std::string(AMDML_FIXTURES_DIR) + "/" + name);
  EXPECT_TRUE(host.ok()) << name;
  ProbeOptions po;
  po.runtime = false;
  Diagnosis d;
  d.facts = collect_facts(**host, kb(), po);
  d.findings = diagnose(d.facts, kb());
  return d;
}

TEST(KnowledgeFixtures, Rx6600XtOnRocm5NeedsTheRdna2Override) {
  auto d = diagnose_fixture("rx6600xt-rocm5");
  EXPECT_TRUE(d.facts.errors.empty());
  ASSERT_EQ(d.facts.gpus.size(), 1u);
  EXPECT_EQ(d.facts.gpus[0].marketing_name, "AMD Radeon RX 6600 XT");
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.override-needed"});
  EXPECT_EQ(d.find("gfx.override-needed")->fix->params, (nlohmann::json{{"value", "10.3.0"}}));
}

TEST(KnowledgeFixtures, Apu780mWithDefaultTtm) {
  auto d = diagnose_fixture("apu780m-ubuntu2404-default-ttm");
  EXPECT_EQ(d.ids(), (std::vector<std::string>{"kernel.old", "memory.gtt-limit"}));
  const auto* g = d.find("memory.gtt-limit");
  EXPECT_EQ(g->fix->params["module"], "ttm");
  // 30.6 GiB of RAM: 26 GiB for the GPU, the rest for the OS.
  EXPECT_EQ(g->fix->params["pages_limit"], 26 * kGiB / kPageSize);
}

TEST(KnowledgeFixtures, StrixHaloTtmOptionUnderDkms) {
  auto d = diagnose_fixture("strixhalo-ttm-under-dkms");
  EXPECT_EQ(d.facts.driver.ttm_in_use, TtmModule::amdttm);
  EXPECT_EQ(d.ids(), (std::vector<std::string>{"memory.gtt-limit", "memory.ttm-wrong-module"}));
  EXPECT_EQ(d.find("memory.ttm-wrong-module")->fix->params,
            (nlohmann::json{{"module", "amdttm"}, {"pages_limit", 27262976}}));
  EXPECT_EQ(d.find("memory.gtt-limit")->fix->params["module"], "amdttm");
}

TEST(KnowledgeFixtures, StrixHaloTunedRaisesNothing) {
  auto d = diagnose_fixture("strixhalo-tuned");
  EXPECT_TRUE(d.facts.errors.empty());
  EXPECT_TRUE(d.findings.empty()) << d.findings.front().id << ": " << d.findings.front().title;
  EXPECT_EQ(d.facts.gpus[0].gtt, Pages{25165824}.bytes());
}

TEST(KnowledgeFixtures, Rx580OnRocm6IsUnsupported) {
  auto d = diagnose_fixture("rx580-rocm6");
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.unsupported"});
  EXPECT_EQ(d.facts.gpus[0].marketing_name, "AMD Radeon RX 580");
}

TEST(KnowledgeFixtures, MixedBoxGlobalOverrideBreaksTheDgpu) {
  auto d = diagnose_fixture("mixed-rdna3-rdna2-global-override");
  ASSERT_EQ(d.facts.gpus.size(), 2u);
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.override-invalid"});
  const auto* f = d.find("gfx.override-invalid");
  EXPECT_EQ(f->gpus, std::vector<int>{0});
  EXPECT_EQ(f->fix->params, (nlohmann::json{{"per_node", {{"2", "10.3.0"}}}}));
}

TEST(KnowledgeFixtures, Rx9070XtOnRocm63NeedsRocm641) {
  auto d = diagnose_fixture("rx9070xt-rocm63");
  EXPECT_EQ(d.ids(), std::vector<std::string>{"gfx.unsupported"});
  EXPECT_NE(d.find("gfx.unsupported")->detail.find("6.4.1"), std::string::npos);
}

// The ollama drop-in is mentioned only where ollama.env asks the ollama-override recipe
// for an override: never on a box without the service.
TEST(KnowledgeFixtures, OllamaNoteOnlyWhenItsRecipeIsPlanned) {
  auto mentions_ollama = [](const Finding& fd) {
    for (const auto& n : fd.notes)
      if (n.find("ollama") != std::string::npos) return true;
    return false;
  };
  for (const char* name : {"rx6600xt-rocm5", "fix-apu", "apu-small-carveout", "user-must-relogin"}) {
    auto d = diagnose_fixture(name);
    const auto* g = d.find("gfx.override-needed");
    ASSERT_TRUE(g) << name;
    EXPECT_FALSE(mentions_ollama(*g)) << name;
  }
  // With ollama.env asking its recipe for an override, the note names that recipe.
  std::vector<Finding> both(2);
  both[0].id = "gfx.override-needed";
  both[0].fix = FixRef{"hsa-override", {{"value", "10.3.0"}}};
  both[1].id = "ollama.env";
  both[1].fix = FixRef{"ollama-override", {{"env", {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0"}}}}};
  rules::cross_reference(both);
  const auto* g = &both[0];
  EXPECT_TRUE(mentions_ollama(*g));
}

}  // namespace
}  // namespace amdml
