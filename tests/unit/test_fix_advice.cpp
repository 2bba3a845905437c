// The advice stage (src/fix/advice.cpp) gives the commands of a finding whose recipe is
// planned by hand: the rules write none, the plan's commands come in, and a plan fix
// would refuse leaves the request's step by hand with the reason.
#include <gtest/gtest.h>
#include <algorithm>
#include <string>
#include <vector>

#include "fix/fix.hpp"
#include "render/fix_json.hpp"
#include "render/fix_text.hpp"
#include "platform/safe_tree.hpp"
#include "support/fixtures.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"

namespace amdml {
namespace {

using test::Diagnosed;
using test::TestTree;

std::vector<Finding*> memory_with_fix(std::vector<Finding>& fs) {
  std::vector<Finding*> out;
  for (auto& f : fs)
    if ((f.id == FindingId::memory_gtt_limit || f.id == FindingId::memory_ttm_wrong_module) && f.fix) out.push_back(&f);
  return out;
}

std::vector<Finding> advised(Diagnosed& d) {
  std::vector<Finding> fs = d.findings;
  platform::SafeTree tree(d.host->root());
  fix::AdviceInputs in{*d.host, tree, d.facts, d.recipes, std::nullopt};
  (void)fix::advise(in, fs);
  return fs;
}

TEST(Advice, RulesWriteNoCommandsThePlanGives) {
  Diagnosed d(test::fixture("fix-apu"));
  auto rules_only = d.findings;
  auto mem = memory_with_fix(rules_only);
  ASSERT_FALSE(mem.empty());
  for (const auto* f : mem) EXPECT_TRUE(f->commands.empty()) << f->title << ": " << f->commands.front();
  auto fs = advised(d);
  mem = memory_with_fix(fs);
  ASSERT_FALSE(mem.empty());
  for (const auto* f : mem) {
    ASSERT_FALSE(f->commands.empty()) << f->title;
    const bool writes_the_limit = std::any_of(f->commands.begin(), f->commands.end(), [](const std::string& c) {
      return c.find("options ttm pages_limit=") != std::string::npos && c.find("/etc/modprobe.d/") != std::string::npos;
    });
    EXPECT_TRUE(writes_the_limit) << f->title << ": " << f->commands.front();
    EXPECT_EQ(f->commands.back(), "sudo reboot");
  }
}

// strix-halo's limits are on the kernel command line; without GRUB's defaults amdml knows
// no boot loader configuration, so the kernel-cmdline plan is refused: no fix line, the
// reason, and the request as a step by hand.
TEST(Advice, ARefusedPlanLeavesTheStepByHand) {
  TestTree t("strix-halo");
  std::filesystem::remove(t / "etc/default/grub");
  Diagnosed d(t.str());
  std::vector<const Finding*> asked;
  for (const auto& f : d.findings)
    if (f.fix && f.fix->recipe == "kernel-cmdline") asked.push_back(&f);
  ASSERT_FALSE(asked.empty());
  auto fs = advised(d);
  int seen = 0;
  for (const auto& f : fs) {
    if (f.id != FindingId::memory_gtt_limit && f.id != FindingId::memory_ttm_wrong_module) continue;
    if (std::none_of(asked.begin(), asked.end(), [&](const Finding* a) { return a->title == f.title; })) continue;
    ++seen;
    EXPECT_FALSE(f.fix) << f.title;
    ASSERT_EQ(f.commands.size(), 1u) << f.title;
    EXPECT_TRUE(f.commands[0].starts_with("on the kernel command line, set ")) << f.commands[0];
    EXPECT_NE(f.commands[0].find("ttm.pages_limit="), std::string::npos) << f.commands[0];
    EXPECT_NE(f.commands[0].find(" and remove "), std::string::npos) << f.commands[0];
    EXPECT_TRUE(std::any_of(f.notes.begin(), f.notes.end(), [](const std::string& n) {
      return n.starts_with("`amdml fix` cannot make this change here: ");
    })) << f.title;
  }
  EXPECT_EQ(seen, static_cast<int>(asked.size()));
}

TEST(Advice, ByHandStepsSayWhatToSetWhere) {
  FixRef ttm{"ttm-pages-limit", TtmLimitParams{"amdttm", Pages{31457280}, Pages{31457280}}};
  EXPECT_EQ(fix::by_hand_steps(ttm), std::vector<std::string>{"set options amdttm pages_limit=31457280 page_pool_size=31457280 "
                                                              "in /etc/modprobe.d, then rebuild the initramfs and reboot"});
  FixRef cl{"kernel-cmdline", KernelCmdlineParams{{{"ttm.pages_limit", "100"}}, {"amdgpu.gttsize"}}};
  EXPECT_EQ(fix::by_hand_steps(cl),
            std::vector<std::string>{"on the kernel command line, set ttm.pages_limit=100 and remove amdgpu.gttsize, then reboot"});
  FixRef hsa{"hsa-override", HsaParams{std::nullopt, {{"1", "11.0.0"}, {"2", "10.3.0"}}}};
  EXPECT_EQ(fix::by_hand_steps(hsa), (std::vector<std::string>{"export HSA_OVERRIDE_GFX_VERSION_1=11.0.0",
                                                                "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"}));
  // The shell's variables in the way go first (the recipe's files reach new logins only).
  FixRef unset{"hsa-override", HsaParams{"10.3.0", {}, {"HSA_OVERRIDE_GFX_VERSION_1"}}};
  EXPECT_EQ(fix::by_hand_steps(unset), (std::vector<std::string>{"unset HSA_OVERRIDE_GFX_VERSION_1",
                                                                  "export HSA_OVERRIDE_GFX_VERSION=10.3.0"}));
}

// Two findings asking hsa-override for the same values, one with a shell variable in the
// way: one request, which carries the variable, and nothing deferred.
TEST(Advice, SameOverrideValuesMergeTheShellsVariables) {
  Diagnosed d(test::fixture("mixed-rdna3-rdna2-global-override"));
  auto it = std::find_if(d.findings.begin(), d.findings.end(), [](const Finding& f) { return f.id == FindingId::gfx_override_invalid; });
  ASSERT_NE(it, d.findings.end());
  ASSERT_TRUE(it->fix);
  const auto asked = std::get<HsaParams>(it->fix->params);
  ASSERT_EQ(asked.shell_unset, std::vector<std::string>{"HSA_OVERRIDE_GFX_VERSION"});
  Finding twin = *it;
  twin.title += " (twin)";
  twin.fix->params = HsaParams{asked.value, asked.per_node, {}};
  d.findings.insert(d.findings.begin(), twin);  // the one without the variable first
  platform::SafeTree tree(d.host->root());
  fix::PlanRequest in{*d.host, tree, d.facts, d.findings, d.recipes, std::string("hsa-override")};
  in.offline = true;
  in.list_initramfs = false;
  in.resume_interrupted = false;
  FixPlan p = fix::plan_fixes(in);
  ASSERT_EQ(p.recipes.size(), 1u);
  EXPECT_EQ(p.recipes[0].findings.size(), 2u);
  EXPECT_TRUE(p.recipes[0].deferred.empty());
  EXPECT_EQ(std::get<HsaParams>(p.recipes[0].ref.params), asked);
}

// rocm-install that installs amdgpu-dkms: the DKMS module loads at the next boot, so the
// plan needs a reboot, and the fix JSON and text say so (without it, no reboot).
TEST(Advice, RocmInstallWithAmdgpuDkmsNeedsAReboot) {
  for (const bool dkms : {false, true}) {
    Diagnosed d(test::fixture("rocm-install-780m-ubuntu-rocm57"));
    bool asked = false;
    for (auto& f : d.findings)
      if (auto* p = f.fix ? std::get_if<RocmInstallParams>(&f.fix->params) : nullptr) {
        asked = true;
        if (dkms) p->install.push_back("amdgpu-dkms");
      }
    ASSERT_TRUE(asked);
    platform::SafeTree tree(d.host->root());
    fix::PlanRequest in{*d.host, tree, d.facts, d.findings, d.recipes, std::string("rocm-install")};
    in.offline = true;  // the doctor's plan: no child, no network
    in.list_initramfs = false;
    in.resume_interrupted = false;
    FixPlan p = fix::plan_fixes(in);
    ASSERT_EQ(p.recipes.size(), 1u);
    const RecipePlan& rp = p.recipes[0];
    ASSERT_FALSE(rp.refused) << rp.refused->message;
    EXPECT_EQ(rp.aftercare.needs_reboot, dkms);
    const auto doc = render::fix_plan_json(p, true, "amdml fix --apply");
    ASSERT_TRUE(doc.contains("recipes")) << doc.dump();
    EXPECT_EQ(doc["recipes"][0]["needs_reboot"], dkms) << doc["recipes"][0].dump();
    const std::string text = render::format_plan(p, true, "");
    EXPECT_EQ(text.find("amdgpu-dkms's kernel module replaces the running amdgpu driver at boot") != std::string::npos, dkms)
        << text;
  }
}

}  // namespace
}  // namespace amdml
