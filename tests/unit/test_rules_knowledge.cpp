// The knowledge-driven rules over literal facts: each finding on the broken box that
// should raise it, and silence on the well-configured box that should not.
#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "formats/fix_params_json.hpp"
#include "amdml/knowledge.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "rules/rules_internal.hpp"
#include "fix/fix.hpp"
#include "support/knowledge.hpp"

using amdml::test::shipped_knowledge;

namespace amdml {
namespace {

// A plain Ubuntu box with amdgpu (in-tree) driving the GPUs added to it.
Facts box(const char* kernel = "6.8.0-45-generic", const char* rocm = "6.2.4", std::uint64_t ram_gib = 32) {
  Facts f;
  f.os.id = "ubuntu";
  f.os.version_id = "24.04";
  f.os.kernel_release = kernel;
  f.os.kernel = Version::parse(kernel);
  f.memory.total = Bytes{ram_gib * kGiB};
  f.driver.amdgpu_loaded = true;
  f.driver.initstate = "live";
  f.driver.ttm.loaded = true;
  f.driver.ttm.holds_amdgpu = true;
  f.driver.ttm.pages_limit = Pages{ram_gib * kGiB / kPageSize / 2};
  f.driver.ttm_in_use = TtmModule::ttm;
  f.kfd.present = true;
  KfdNode cpu;
  cpu.index = 0;
  cpu.cpu = true;
  f.kfd.nodes.push_back(cpu);
  if (rocm) {
    f.rocm.source = RocmSource::opt_rocm;
    f.rocm.path = "/opt/rocm";
    f.rocm.resolved_path = std::string("/opt/rocm-") + rocm;
    f.rocm.version_text = rocm;
    f.rocm.version = Version::parse(rocm);
  }
  f.env["PATH"] = "/usr/local/bin:/usr/bin:/bin:/opt/rocm/bin";
  return f;
}

Gpu& add_gpu(Facts& f, const char* gfx, std::uint16_t device, bool apu, std::optional<int> node = std::nullopt) {
  Gpu g;
  g.gfx = GfxTarget::parse_name(gfx);
  g.gfx_target_version = g.gfx->kfd_version();
  g.vendor_id = 0x1002;
  g.device_id = device;
  g.apu = apu;
  g.driver = "amdgpu";
  g.card = "card" + std::to_string(f.gpus.size());
  g.pci_slot = "0000:0" + std::to_string(f.gpus.size() + 3) + ":00.0";
  g.unique_id = "00000000000000a" + std::to_string(f.gpus.size());
  if (const auto* p = shipped_knowledge().find_pci(device, std::nullopt)) g.marketing_name = p->name;
  if (!node) node = static_cast<int>(f.kfd.nodes.size());
  if (*node >= 0) {
    g.kfd_node = *node;
    KfdNode n;
    n.index = *node;
    n.gfx = g.gfx;
    f.kfd.nodes.push_back(n);
  }
  const std::uint64_t ram = f.memory.total ? f.memory.total->value : 0;
  g.vram = apu ? Bytes{512 * kMiB} : Bytes{16 * kGiB};
  g.gtt = Bytes{f.driver.ttm.pages_limit ? f.driver.ttm.pages_limit->bytes().value : ram / 2};
  f.gpus.push_back(g);
  return f.gpus.back();
}

std::vector<Finding> run(const Facts& f) {
  RuleContext ctx{f, shipped_knowledge()};
  std::vector<Finding> out;
  for (auto rule : {rules::gfx_rules, rules::memory_rules, rules::kernel_rules, rules::kfd_gpu_missing,
                    rules::rocm_version_rules, rules::env_rules})
    rule(ctx, out);
  return out;
}

// Copies, so a call on a temporary (with_id(run(f), ...)) stays valid.
struct Hit : Finding {
  const Finding* operator->() const { return this; }
};
std::vector<Hit> with_id(const std::vector<Finding>& fs, const std::string& id) {
  std::vector<Hit> out;
  for (const auto& f : fs)
    if (to_string(f.id) == id) out.push_back(Hit{f});
  return out;
}

std::string ids(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += std::string(to_string(f.id)) + " (" + f.title + ")\n";
  return s;
}

// --- gfx.override-needed -------------------------------------------------------------

TEST(GfxOverrideNeeded, Rx6600XtOnRocm5NeedsGfx1030) {
  Facts f = box("6.5.0-41-generic", "5.7.1");
  add_gpu(f, "gfx1032", 0x73ff, false);
  auto out = run(f);
  auto hits = with_id(out, "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  ASSERT_TRUE(hits[0]->fix);
  EXPECT_EQ(hits[0]->fix->recipe, "hsa-override");
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params), (nlohmann::json{{"value", "10.3.0"}}));
  EXPECT_EQ(hits[0]->gpus, std::vector<int>{0});
  EXPECT_NE(hits[0]->detail.find("ROCm 5.7.1"), std::string::npos);
  EXPECT_EQ(hits[0]->evidence[0].source, "/sys/class/kfd/kfd/topology/nodes/1/properties");
  EXPECT_EQ(hits[0]->evidence[0].value, "gfx_target_version 100302");
}

TEST(GfxOverrideNeeded, SilentWhenTheOverrideIsSetOrNotNeeded) {
  Facts f = box("6.5.0-41-generic", "5.7.1");
  add_gpu(f, "gfx1032", 0x73ff, false);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  EXPECT_TRUE(run(f).empty()) << ids(run(f));
  Facts g = box("6.8.0-45-generic", "6.2.4");
  add_gpu(g, "gfx1030", 0x73bf, false);
  EXPECT_TRUE(run(g).empty()) << ids(run(g));
}

// Set for new logins (what `amdml fix` writes) but not in this process: no recipe to
// run again, a note that says where it is set and that a new login is what is left.
TEST(GfxOverrideNeeded, SetForNewLoginsNamesNoRecipe) {
  Facts f = box("6.5.0-41-generic", "5.7.1");
  add_gpu(f, "gfx1032", 0x73ff, false);
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/etc/profile.d/amdml-gpu.sh:3"});
  // Login shells only (a fix killed half-way): the systemd user manager lacks it, so the
  // recipe is still asked for.
  auto hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix);
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/etc/environment.d/90-amdml.conf:3"});
  // Configured for every new session: a pending state with its own id, an info.
  EXPECT_TRUE(with_id(run(f), "gfx.override-needed").empty());
  hits = with_id(run(f), "gfx.override-pending");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->severity, Severity::info);
  EXPECT_EQ(hits[0]->title, "HSA_OVERRIDE_GFX_VERSION=10.3.0 is configured for new logins: it takes effect after a new login");
  EXPECT_FALSE(hits[0]->fix);
  EXPECT_EQ(hits[0]->commands.front(), "export HSA_OVERRIDE_GFX_VERSION=10.3.0");
  bool noted = false;
  for (const auto& n : hits[0]->notes) noted |= n.find("/etc/profile.d/amdml-gpu.sh:3") != std::string::npos;
  EXPECT_TRUE(noted);
  // A later file setting another value wins: the recipe is asked for again.
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "11.0.0", "/etc/profile.d/zz-mine.sh:1"});
  hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix);
  // /etc/environment alone reaches every session (pam_env).
  f.login_env = {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/etc/environment:2"}};
  hits = with_id(run(f), "gfx.override-pending");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_FALSE(hits[0]->fix);
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "11.0.0", "/etc/environment:5"});
  hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix);
  EXPECT_EQ(hits[0]->fix->recipe, "hsa-override");
}

// Current builds (ROCm 10.1) ship gfx1035 kernels (TheRock's stable wheels and tarballs):
// an early MI300A (gfx940) still runs gfx942's code through its override.
TEST(GfxOverrideNeeded, WithoutRocmJudgesAgainstCurrentBuilds) {
  Facts f = box("6.8.0-45-generic", nullptr);
  add_gpu(f, "gfx940", 0x74a0, true);
  f.driver.ttm.pages_limit = Pages{28 * kGiB / kPageSize};
  f.gpus[0].gtt = Bytes{28 * kGiB};
  auto hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->detail.find("current ROCm builds"), std::string::npos) << hits[0]->detail;
}

TEST(GfxOverrideNeeded, MixedBoxGetsPerNodeValues) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);  // node 1
  add_gpu(f, "gfx1036", 0x164e, true);   // node 2
  f.gpus[1].gtt = f.gpus[0].gtt;
  auto out = run(f);
  auto hits = with_id(out, "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params), (nlohmann::json{{"per_node", {{"2", "10.3.0"}}}}));
  // The rule writes no command text: the advice stage gives the plan's, or this step by hand.
  EXPECT_TRUE(hits[0]->commands.empty());
  EXPECT_EQ(amdml::fix::by_hand_steps(*hits[0]->fix), std::vector<std::string>{"export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"});
  // Per-node values set: nothing to say about overrides.
  f.env["HSA_OVERRIDE_GFX_VERSION_2"] = "10.3.0";
  out = run(f);
  EXPECT_TRUE(with_id(out, "gfx.override-needed").empty());
  EXPECT_TRUE(with_id(out, "gfx.override-invalid").empty()) << ids(out);
}

TEST(GfxOverrideNeeded, OldRocmHidesGpusInsteadOfPerNode) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1100", 0x744c, false);
  add_gpu(f, "gfx1036", 0x164e, true);
  auto hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_FALSE(hits[0]->fix.has_value());
  EXPECT_TRUE(hits[0]->commands.front().starts_with("export ROCR_VISIBLE_DEVICES=GPU-00000000000000a0"));
}

TEST(GfxOverrideNeeded, SameValueForEveryGpuIsGlobal) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  f.os.version_id.reset();  // no release of AMD's to move to: the override is the fix
  add_gpu(f, "gfx1102", 0x7480, false);
  add_gpu(f, "gfx1103", 0x15bf, true);
  auto hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  // gfx1102 has kernels in 6.2 and 11.0.0 is its own override: one global value fits both.
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params), (nlohmann::json{{"value", "11.0.0"}}));
  EXPECT_EQ(hits[0]->gpus, (std::vector<int>{1}));
}

// One voice: where the plan moves ROCm to a release with the GPU's own kernels, the
// override finding asks for that same move (rocm.version's plan, one choose_rocm), not
// for an override that would be unneeded once the move lands; rocm.version then does not
// say it a second time. The override stays the way to keep the installed release.
TEST(GfxOverrideNeeded, AReleaseWithNativeKernelsIsTheFixNotAnOverride) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1103", 0x15bf, true);
  auto out = run(f);
  auto hits = with_id(out, "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  ASSERT_TRUE(hits[0]->fix.has_value());
  EXPECT_EQ(hits[0]->fix->recipe, "rocm-install");
  const auto* p = std::get_if<RocmInstallParams>(&hits[0]->fix->params);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->release, "10.1");
  EXPECT_TRUE(hits[0]->commands.empty());
  EXPECT_NE(hits[0]->title.find("ROCm 10.1 has"), std::string::npos) << hits[0]->title;
  bool stay = false;
  for (const auto& n : hits[0]->notes) stay |= n.find("HSA_OVERRIDE_GFX_VERSION=11.0.0") != std::string::npos;
  EXPECT_TRUE(stay);
  for (const auto& r : with_id(out, "rocm.version"))
    EXPECT_EQ(r->title.find("no kernels for gfx1103"), std::string::npos) << r->title;
  // No release AMD ships for the distribution: the override is the fix again.
  f.os.version_id.reset();
  hits = with_id(run(f), "gfx.override-needed");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix.has_value());
  EXPECT_EQ(hits[0]->fix->recipe, "hsa-override");
}

// --- gfx.unsupported -----------------------------------------------------------------

TEST(GfxUnsupported, Rx580OnRocm6) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx803", 0x67df, false);
  auto out = run(f);
  auto hits = with_id(out, "gfx.unsupported");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  EXPECT_TRUE(with_id(out, "gfx.override-needed").empty());
  bool vulkan = false;
  for (const auto& n : hits[0]->notes) vulkan |= n.find("Vulkan") != std::string::npos;
  EXPECT_TRUE(vulkan);
}

TEST(GfxUnsupported, Rdna4BeforeRocm641NamesTheRelease) {
  Facts f = box("6.14.0-29-generic", "6.3.3");
  add_gpu(f, "gfx1201", 0x7550, false);
  auto hits = with_id(run(f), "gfx.unsupported");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->detail.find("ROCm 6.4.1"), std::string::npos) << hits[0]->detail;
  Facts g = box("6.14.0-29-generic", "6.4.1");
  add_gpu(g, "gfx1201", 0x7550, false);
  EXPECT_TRUE(run(g).empty()) << ids(run(g));
}

TEST(GfxUnsupported, Rdna1HasNoOverride) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1010", 0x731f, false);
  EXPECT_EQ(with_id(run(f), "gfx.unsupported").size(), 1u);
}

// --- gfx.override-invalid ------------------------------------------------------------

struct InvalidCase {
  const char* value;
  const char* fix_value;  // nullptr: no recipe
};

TEST(GfxOverrideInvalid, MalformedValues) {
  for (auto c : {InvalidCase{"\"11.0.0\"", "11.0.0"}, InvalidCase{"gfx1030", "10.3.0"}, InvalidCase{"11.0", nullptr},
                 InvalidCase{"64.0.0", nullptr}, InvalidCase{"", nullptr}}) {
    SCOPED_TRACE(c.value);
    Facts f = box("6.8.0-45-generic", "6.2.4");
    add_gpu(f, "gfx1103", 0x15bf, true);
    f.env["HSA_OVERRIDE_GFX_VERSION"] = c.value;
    auto out = run(f);
    auto hits = with_id(out, "gfx.override-invalid");
    ASSERT_EQ(hits.size(), 1u) << ids(out);
    EXPECT_EQ(hits[0]->evidence[0].source, "env HSA_OVERRIDE_GFX_VERSION");
    if (c.fix_value) {
      ASSERT_TRUE(hits[0]->fix);
      EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params), (nlohmann::json{{"value", c.fix_value}}));
    } else {
      EXPECT_FALSE(hits[0]->fix);
    }
    EXPECT_TRUE(with_id(out, "gfx.override-needed").empty());
  }
}

TEST(GfxOverrideInvalid, CrossingTheIsaFamily) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1103", 0x15bf, true);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  auto hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params), (nlohmann::json{{"value", "11.0.0"}}));
  // Wave size: an RDNA card told it is a GCN one.
  Facts g = box("6.8.0-45-generic", "6.2.4");
  add_gpu(g, "gfx1032", 0x73ff, false);
  g.env["HSA_OVERRIDE_GFX_VERSION"] = "9.0.0";
  EXPECT_EQ(with_id(run(g), "gfx.override-invalid").size(), 1u);
}

TEST(GfxOverrideInvalid, GlobalOverrideOnMixedBoxBreaksTheDgpu) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);
  add_gpu(f, "gfx1036", 0x164e, true);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  auto out = run(f);
  auto hits = with_id(out, "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  EXPECT_EQ(hits[0]->gpus, std::vector<int>{0});
  EXPECT_NE(hits[0]->title.find("global"), std::string::npos);
  // No login file sets the global value, so a login keeps it: the 7900 XTX is pinned to
  // its own target, which libhsakmt reads before the global value.
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params),
            (nlohmann::json{{"per_node", {{"1", "11.0.0"}, {"2", "10.3.0"}}},
                            {"shell_unset", {"HSA_OVERRIDE_GFX_VERSION"}}}));
  // The rule writes no command text: the advice stage gives the plan's, or the step by
  // hand from the request, which unsets this shell's global value first.
  EXPECT_TRUE(hits[0]->commands.empty());
  EXPECT_EQ(amdml::fix::by_hand_steps(*hits[0]->fix),
            (std::vector<std::string>{"unset HSA_OVERRIDE_GFX_VERSION", "export HSA_OVERRIDE_GFX_VERSION_1=11.0.0",
                                      "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"}));
  EXPECT_TRUE(with_id(out, "gfx.override-needed").empty()) << ids(out);
}

// A per-node value of another ISA family, where one global value fits every GPU: the fix
// is that global value, and the per-node variable (which would still win for its GPU)
// leaves this shell by hand.
TEST(GfxOverrideInvalid, PerNodeValueOfAnotherFamilyGivesWayToTheGlobalOne) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1036", 0x164e, true);  // node 1, needs 10.3.0
  f.env["HSA_OVERRIDE_GFX_VERSION_1"] = "11.0.0";
  auto out = run(f);
  auto hits = with_id(out, "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  EXPECT_NE(hits[0]->title.find("HSA_OVERRIDE_GFX_VERSION_1=11.0.0 does not fit "), std::string::npos) << hits[0]->title;
  ASSERT_TRUE(hits[0]->fix);
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params),
            (nlohmann::json{{"value", "10.3.0"}, {"shell_unset", {"HSA_OVERRIDE_GFX_VERSION_1"}}}));
  EXPECT_TRUE(hits[0]->commands.empty());
  EXPECT_EQ(amdml::fix::by_hand_steps(*hits[0]->fix),
            (std::vector<std::string>{"unset HSA_OVERRIDE_GFX_VERSION_1", "export HSA_OVERRIDE_GFX_VERSION=10.3.0"}));
  EXPECT_TRUE(with_id(out, "gfx.override-needed").empty()) << ids(out);
}

// A value only new login sessions get (this session lacks it) is judged per GPU family
// as the session's own is, naming the file and line that sets it.
TEST(GfxOverrideInvalid, ALoginFileValueOfAnotherFamilyNamesItsLine) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);
  add_gpu(f, "gfx1036", 0x164e, true);
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/etc/environment:2"});
  auto out = run(f);
  auto hits = with_id(out, "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  EXPECT_EQ(hits[0]->gpus, std::vector<int>{0});  // the RX 7900 XTX, not the RDNA2 iGPU it suits
  EXPECT_NE(hits[0]->title.find("HSA_OVERRIDE_GFX_VERSION=10.3.0 in /etc/environment:2"), std::string::npos) << hits[0]->title;
  EXPECT_NE(hits[0]->detail.find("New login sessions get it from /etc/environment:2: the value set there makes "),
            std::string::npos) << hits[0]->detail;
  EXPECT_NE(hits[0]->detail.find("(gfx1100) run gfx1030 ("), std::string::npos) << hits[0]->detail;
  ASSERT_FALSE(hits[0]->evidence.empty());
  EXPECT_EQ(hits[0]->evidence[0].source, "/etc/environment:2");
  EXPECT_EQ(hits[0]->evidence[0].value, "HSA_OVERRIDE_GFX_VERSION=10.3.0");
  // No one value fits both GPUs: the line is turned off by hand.
  EXPECT_FALSE(hits[0]->fix);
  EXPECT_EQ(hits[0]->commands, std::vector<std::string>{"sudo sed -i '2s/^/# /' /etc/environment   # turn the line off; then log out and in"});
  // The session has the same value: judged once, as the session's (the file as evidence).
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  EXPECT_EQ(with_id(run(f), "gfx.override-invalid").size(), 1u);
}

TEST(GfxOverrideInvalid, ALoginFileValueGetsTheValueTheGpuNeeds) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1103", 0x15bf, true);
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/etc/profile.d/rocm.sh:4"});
  auto hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix);
  EXPECT_EQ(hits[0]->fix->recipe, "hsa-override");  // turns the profile.d line off, writes 11.0.0
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params), (nlohmann::json{{"value", "11.0.0"}}));
  // The user's own environment.d: the recipe edits /etc only, so the line goes by hand.
  f.login_env = {{"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/home/alice/.config/environment.d/gpu.conf:1"}};
  hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_FALSE(hits[0]->fix);
  EXPECT_EQ(hits[0]->commands,
            std::vector<std::string>{"sed -i '1s/^/# /' /home/alice/.config/environment.d/gpu.conf   # turn the line off; then log out and in"});
  // A value of the GPU's own family is not this finding's.
  f.login_env = {{"HSA_OVERRIDE_GFX_VERSION", "11.0.0", "/etc/environment:1"}};
  EXPECT_TRUE(with_id(run(f), "gfx.override-invalid").empty());
}

// A login file that sets the global value is turned off by the recipe (login-env-clear):
// then no pin is needed, and none is planned.
TEST(GfxOverrideInvalid, GlobalValueFromALoginFileGetsNoPin) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);
  add_gpu(f, "gfx1036", 0x164e, true);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "10.3.0", "/etc/environment:2"});
  auto hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix);
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params),
            (nlohmann::json{{"per_node", {{"2", "10.3.0"}}}, {"shell_unset", {"HSA_OVERRIDE_GFX_VERSION"}}}));
}

// After a login that brought the per-GPU values an earlier fix wrote, the global value is
// still there: it comes from no login file, so another login cannot help. The fix pins
// the GPU it breaks (main said "log out and in again" for ever).
TEST(GfxOverrideInvalid, GlobalValueThatOutlivesALoginIsPinnedAway) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);
  add_gpu(f, "gfx1036", 0x164e, true);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  f.env["HSA_OVERRIDE_GFX_VERSION_2"] = "10.3.0";
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION_2", "10.3.0", "/etc/environment:3"});
  auto hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  ASSERT_TRUE(hits[0]->fix) << hits[0]->notes.size();
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params),
            (nlohmann::json{{"per_node", {{"1", "11.0.0"}, {"2", "10.3.0"}}}, {"shell_unset", {"HSA_OVERRIDE_GFX_VERSION"}}}));
  bool says = false;
  for (const auto& n : hits[0]->notes)
    says |= n.find("pins ") != std::string::npos &&
            n.find("HSA_OVERRIDE_GFX_VERSION_1=11.0.0 (its own target)") != std::string::npos;
  EXPECT_TRUE(says);
  // Once new logins get the pin too, what is left is that login.
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION_1", "11.0.0", "/etc/environment:4"});
  f.env.erase("HSA_OVERRIDE_GFX_VERSION_2");
  hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_FALSE(hits[0]->fix);
  // No fix: the rule's own commands, what is left to do in this shell.
  EXPECT_EQ(hits[0]->commands,
            (std::vector<std::string>{"unset HSA_OVERRIDE_GFX_VERSION", "export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"}));
  // And after it, the pin wins: no finding, and a pin to a GPU's own target is no
  // unneeded override either.
  f.env["HSA_OVERRIDE_GFX_VERSION_1"] = "11.0.0";
  f.env["HSA_OVERRIDE_GFX_VERSION_2"] = "10.3.0";
  auto out = run(f);
  EXPECT_TRUE(with_id(out, "gfx.override-invalid").empty()) << ids(out);
  EXPECT_TRUE(with_id(out, "gfx.override-unneeded").empty()) << ids(out);
}

TEST(GfxOverrideInvalid, PerNodeIndexOnTheCpuNode) {
  Facts f = box("6.8.0-45-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);
  f.env["HSA_OVERRIDE_GFX_VERSION_0"] = "11.0.0";
  auto hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->title.find("CPU node"), std::string::npos);
}

TEST(GfxOverrideInvalid, PerNodeIgnoredBeforeRocm63) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1032", 0x73ff, false);
  f.env["HSA_OVERRIDE_GFX_VERSION_1"] = "10.3.0";
  auto hits = with_id(run(f), "gfx.override-invalid");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->title.find("ignored"), std::string::npos);
}

TEST(GfxOverrideUnneeded, NativeKernelsMakeItInfo) {
  Facts f = box("6.14.0-29-generic", "7.2.0");
  add_gpu(f, "gfx1103", 0x15bf, true);
  f.driver.ttm.pages_limit = Pages{28 * kGiB / kPageSize};
  f.gpus[0].gtt = Bytes{28 * kGiB};
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  auto out = run(f);
  ASSERT_EQ(out.size(), 1u) << ids(out);
  EXPECT_EQ(out[0].id, FindingId::gfx_override_unneeded);
  EXPECT_EQ(out[0].severity, Severity::info);
  // Without a ROCm of known version (bundled runtimes), amdml cannot say it is unneeded.
  f.rocm = RocmFacts{};
  EXPECT_TRUE(run(f).empty()) << ids(run(f));
}

// --- memory.gtt-limit ----------------------------------------------------------------

TEST(MemoryGttLimit, DefaultHalfOfRamOnA780M) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1103", 0x15bf, true);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  auto out = run(f);
  auto hits = with_id(out, "memory.gtt-limit");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  ASSERT_TRUE(hits[0]->fix);
  EXPECT_EQ(hits[0]->fix->recipe, "ttm-pages-limit");
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params)["module"], "ttm");
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params)["pages_limit"], 28 * kGiB / kPageSize);
  EXPECT_LT(amdml::formats::fix_params_json(hits[0]->fix->params)["pages_limit"].get<std::uint64_t>() * kPageSize, 32 * kGiB);
}

TEST(MemoryGttLimit, DkmsDriverGetsAmdttm) {
  Facts f = box("6.8.0-45-generic", "6.4.1", 128);
  f.driver.dkms_version = "6.12.12";
  f.driver.ttm_in_use = TtmModule::amdttm;
  f.driver.amdttm = f.driver.ttm;
  f.driver.ttm.holds_amdgpu = false;
  add_gpu(f, "gfx1151", 0x1586, true);
  auto hits = with_id(run(f), "memory.gtt-limit");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params)["module"], "amdttm");
}

TEST(MemoryGttLimit, SilentWhenTunedOrOnADgpu) {
  Facts f = box("6.18.4-200.fc43.x86_64", "7.2.1", 128);
  f.driver.ttm.pages_limit = Pages{25165824};  // 96 GiB
  add_gpu(f, "gfx1151", 0x1586, true);
  EXPECT_TRUE(with_id(run(f), "memory.gtt-limit").empty());
  Facts g = box("6.8.0-45-generic", "6.4.1");
  add_gpu(g, "gfx1100", 0x744c, false);
  EXPECT_TRUE(run(g).empty()) << ids(run(g));
  // An iGPU next to a dGPU: ML runs on the dGPU, the iGPU's GTT share is moot.
  Facts h = box("6.11.0-19-generic", "6.4.1");
  add_gpu(h, "gfx1100", 0x744c, false);
  add_gpu(h, "gfx1036", 0x164e, true);
  h.env["HSA_OVERRIDE_GFX_VERSION_2"] = "10.3.0";
  EXPECT_TRUE(run(h).empty()) << ids(run(h));
}

TEST(MemoryGttLimit, LimitAboveRam) {
  Facts f = box("6.18.4-200.fc43.x86_64", "7.2.1", 64);
  f.driver.ttm.pages_limit = Pages{80 * kGiB / kPageSize};
  add_gpu(f, "gfx1151", 0x1586, true);
  auto hits = with_id(run(f), "memory.gtt-limit");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->title.find("above system RAM"), std::string::npos);
  EXPECT_LE(amdml::formats::fix_params_json(hits[0]->fix->params)["pages_limit"].get<std::uint64_t>() * kPageSize, 64 * kGiB);
}

// --- memory.ttm-wrong-module ---------------------------------------------------------

TEST(MemoryTtmWrongModule, TtmOptionUnderTheDkmsDriver) {
  Facts f = box("6.14.0-1018-oem", "7.2.1", 128);
  f.driver.dkms_version = "6.14.14";
  f.driver.amdttm = f.driver.ttm;
  f.driver.ttm.holds_amdgpu = false;
  f.driver.ttm.pages_limit = Pages{27262976};
  f.driver.ttm_in_use = TtmModule::amdttm;
  f.modprobe.options.push_back({"/etc/modprobe.d/ttm.conf", 1, "ttm", "pages_limit", "27262976"});
  add_gpu(f, "gfx1151", 0x1586, true);
  f.gpus[0].gtt = f.driver.amdttm.pages_limit->bytes();
  auto out = run(f);
  auto hits = with_id(out, "memory.ttm-wrong-module");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  // The one limit amdml computes for this RAM (MemoryKnowledge::recommended_pages_limit),
  // for the module in use -- not the misplaced value.
  const std::uint64_t want = MemoryKnowledge{}.recommended_pages_limit(*f.memory.total)->value;
  EXPECT_EQ(amdml::formats::fix_params_json(hits[0]->fix->params),
            (nlohmann::json{{"module", "amdttm"}, {"pages_limit", want}, {"page_pool_size", want}}));
  EXPECT_EQ(hits[0]->evidence[0].source, "/etc/modprobe.d/ttm.conf:1");
  // Both modules configured: the right one is in effect, no complaint.
  f.modprobe.options.push_back({"/etc/modprobe.d/amdttm.conf", 1, "amdttm", "pages_limit", "27262976"});
  f.driver.amdttm.pages_limit = Pages{27262976};
  f.gpus[0].gtt = Pages{27262976}.bytes();
  out = run(f);
  EXPECT_TRUE(with_id(out, "memory.ttm-wrong-module").empty()) << ids(out);
}

// Configured, not in effect, and not right either once loaded (8 GiB of 64): still a
// wrong setting with the recipe, not a pending reboot.
TEST(MemoryTtmWrongModule, ConfiguredButNotInEffect) {
  Facts f = box("6.8.0-45-generic", "6.4.1", 64);
  f.modprobe.options.push_back({"/etc/modprobe.d/ttm.conf", 1, "ttm", "pages_limit", "2097152"});
  add_gpu(f, "gfx1100", 0x744c, false);
  auto hits = with_id(run(f), "memory.ttm-wrong-module");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->title.find("running value"), std::string::npos);
}

// Configured as amdml recommends, not loaded yet (right after `fix --apply`): a pending
// reboot, its own info id with no recipe, never memory.ttm-wrong-module (issue 28).
TEST(MemoryTtmPending, ConfiguredAsRecommendedTakesEffectAfterAReboot) {
  Facts f = box("6.8.0-45-generic", "6.4.1", 64);
  const std::uint64_t want = MemoryKnowledge{}.recommended_pages_limit(*f.memory.total)->value;
  f.modprobe.options.push_back({"/etc/modprobe.d/amdml-ttm.conf", 3, "ttm", "pages_limit", std::to_string(want)});
  add_gpu(f, "gfx1100", 0x744c, false);
  auto out = run(f);
  EXPECT_TRUE(with_id(out, "memory.ttm-wrong-module").empty()) << ids(out);
  auto hits = with_id(out, "memory.ttm-pending");
  ASSERT_EQ(hits.size(), 1u) << ids(out);
  EXPECT_EQ(hits[0]->severity, Severity::info);
  EXPECT_FALSE(hits[0]->fix);
  EXPECT_NE(hits[0]->title.find("takes effect after a reboot"), std::string::npos) << hits[0]->title;
  EXPECT_EQ(hits[0]->commands.back(), "sudo reboot");
  EXPECT_EQ(hits[0]->evidence[0].source, "/etc/modprobe.d/amdml-ttm.conf:3");
}

TEST(MemoryTtmWrongModule, RuntimeWriteDidNotResizeGtt) {
  Facts f = box("6.8.0-45-generic", "6.4.1", 64);
  add_gpu(f, "gfx1100", 0x744c, false);
  f.driver.ttm.pages_limit = Pages{12582912};  // written after boot; GTT still half of RAM
  auto hits = with_id(run(f), "memory.ttm-wrong-module");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->title.find("after amdgpu loaded"), std::string::npos);
}

TEST(MemoryTtmWrongModule, GttsizeDisagreesAndMisspellings) {
  Facts f = box("6.15.2-arch1-1", "7.2.1", 128);
  f.driver.ttm.pages_limit = Pages{32768000};
  f.driver.gttsize_param_mib = 110000;
  f.driver.cmdline_options["amdgpu.gtt_size"] = "122880";
  add_gpu(f, "gfx1100", 0x744c, false);
  f.gpus[0].gtt = Bytes{110000 * kMiB};
  auto out = run(f);
  auto hits = with_id(out, "memory.ttm-wrong-module");
  ASSERT_EQ(hits.size(), 2u) << ids(out);
  bool misspelled = false, disagree = false;
  for (const auto& h : hits) {
    misspelled |= h->title.find("gtt_size") != std::string::npos;
    disagree |= h->title.find("disagrees") != std::string::npos && h->detail.find("deprecated") != std::string::npos;
  }
  EXPECT_TRUE(misspelled);
  EXPECT_TRUE(disagree);
}

// --- kernel.old, rocm.version ---------------------------------------------------------

TEST(KernelOld, StrixHaloBelow6184) {
  Facts f = box("6.8.0-60-generic", "7.2.0", 128);
  f.driver.ttm.pages_limit = Pages{25165824};
  add_gpu(f, "gfx1151", 0x1586, true);
  auto hits = with_id(run(f), "kernel.old");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->severity, Severity::error);  // AMD: 7.2.0 unsupported on such kernels
  for (const char* k : {"6.18.4-arch1-1", "6.14.0-1018-oem"}) {
    Facts g = box(k, "7.2.1", 128);
    g.driver.ttm.pages_limit = Pages{25165824};
    add_gpu(g, "gfx1151", 0x1586, true);
    EXPECT_TRUE(run(g).empty()) << k << "\n" << ids(run(g));
  }
}

TEST(KernelOld, Rdna4InTreeNeedsNewKernel) {
  Facts f = box("6.8.0-45-generic", "6.4.1");
  add_gpu(f, "gfx1201", 0x7550, false);
  EXPECT_EQ(with_id(run(f), "kernel.old").size(), 1u);
  f.driver.dkms_version = "6.12.12";
  EXPECT_TRUE(with_id(run(f), "kernel.old").empty());
}

TEST(KernelOld, SmallCarveOutApuBeforeGttFallback) {
  Facts f = box("6.5.0-41-generic", "6.2.4", 16);
  add_gpu(f, "gfx1103", 0x15bf, true);
  auto hits = with_id(run(f), "kernel.old");
  ASSERT_EQ(hits.size(), 1u);
  Facts g = box("6.11.0-19-generic", "6.2.4", 16);
  add_gpu(g, "gfx1103", 0x15bf, true);
  EXPECT_TRUE(with_id(run(g), "kernel.old").empty());
}

TEST(RocmVersion, StrixHaloOldRocmOnFixedKernel) {
  Facts f = box("6.18.4-arch1-1", "7.1.1", 128);
  f.driver.ttm.pages_limit = Pages{25165824};
  add_gpu(f, "gfx1151", 0x1586, true);
  auto hits = with_id(run(f), "rocm.version");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->detail.find("7.2.1"), std::string::npos);
}

TEST(RocmVersion, TooOldAndDropped) {
  Facts f = box("6.1.0-18-amd64", "5.2.3");
  add_gpu(f, "gfx1030", 0x73bf, false);
  EXPECT_EQ(with_id(run(f), "rocm.version").size(), 1u);
  Facts g = box("6.8.0-45-generic", "6.4.1");
  add_gpu(g, "gfx906", 0x66af, false);
  auto hits = with_id(run(g), "rocm.version");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->detail.find("6.2"), std::string::npos);
}

// --- kfd.gpu-missing -----------------------------------------------------------------

TEST(KfdGpuMissing, DgpuWithoutNodeBlamesAtomics) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1030", 0x73bf, false, -1);
  auto hits = with_id(run(f), "kfd.gpu-missing");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->detail.find("atomics"), std::string::npos);
  Facts g = box("6.8.0-45-generic", "6.2.4");
  add_gpu(g, "gfx1030", 0x73bf, false);
  EXPECT_TRUE(run(g).empty());
}

// --- env.* ---------------------------------------------------------------------------

TEST(EnvVisibleDevices, HidingEveryGpu) {
  for (auto [var, value] : {std::pair{"HIP_VISIBLE_DEVICES", "-1"}, std::pair{"ROCR_VISIBLE_DEVICES", "1"},
                            std::pair{"CUDA_VISIBLE_DEVICES", ""}, std::pair{"ROCR_VISIBLE_DEVICES", "GPU-ffff"}}) {
    SCOPED_TRACE(std::string(var) + "=" + value);
    Facts f = box("6.8.0-45-generic", "6.4.1");
    add_gpu(f, "gfx1100", 0x744c, false);
    f.env[var] = value;
    auto hits = with_id(run(f), "env.visible-devices");
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0]->severity, Severity::error);
  }
  for (auto [var, value] : {std::pair{"HIP_VISIBLE_DEVICES", "0"}, std::pair{"ROCR_VISIBLE_DEVICES", "GPU-00000000000000a0"}}) {
    Facts f = box("6.8.0-45-generic", "6.4.1");
    add_gpu(f, "gfx1100", 0x744c, false);
    f.env[var] = value;
    EXPECT_TRUE(run(f).empty()) << var;
  }
}

TEST(EnvVisibleDevices, IgpuFirstOnMixedBox) {
  Facts f = box("6.11.0-19-generic", "6.4.1");
  add_gpu(f, "gfx1036", 0x164e, true);
  add_gpu(f, "gfx1100", 0x744c, false);
  f.env["HSA_OVERRIDE_GFX_VERSION_1"] = "10.3.0";
  f.gpus[0].gtt = Bytes{28 * kGiB};
  auto hits = with_id(run(f), "env.visible-devices");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->severity, Severity::info);
  f.env["HIP_VISIBLE_DEVICES"] = "0,1";
  hits = with_id(run(f), "env.visible-devices");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->severity, Severity::warning);
  f.env["HIP_VISIBLE_DEVICES"] = "1";
  EXPECT_TRUE(with_id(run(f), "env.visible-devices").empty());
}

TEST(EnvRocmPath, PathAndStaleLibraryPath) {
  Facts f = box("6.8.0-45-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744c, false);
  f.env["PATH"] = "/usr/bin:/bin";
  auto hits = with_id(run(f), "env.rocm-path");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->severity, Severity::info);
  f.env["PATH"] = "/usr/bin:/opt/rocm-6.4.1/bin/";
  EXPECT_TRUE(run(f).empty());
  f.rocm.installed = {"/opt/rocm-5.7.1", "/opt/rocm-6.4.1"};
  f.env["LD_LIBRARY_PATH"] = "/opt/rocm-5.7.1/lib";
  hits = with_id(run(f), "env.rocm-path");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]->severity, Severity::warning);
}

TEST(EnvWsl, SaysWhatWorks) {
  Facts f = box("5.15.167.4-microsoft-standard-WSL2", "6.4.1");
  f.os.wsl = true;
  auto hits = with_id(run(f), "env.wsl");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0]->detail.find("DirectML"), std::string::npos);
  Facts g = box();
  EXPECT_TRUE(run(g).empty());
}


// --- rocm-install: the release, packages and clean-up rocm.missing / rocm.version ask for

std::vector<Finding> rocm_findings(const Facts& f) {
  RuleContext ctx{f, shipped_knowledge()};
  std::vector<Finding> out;
  rules::rocm_missing(ctx, out);
  rules::rocm_version_rules(ctx, out);
  return out;
}

RocmInstallParams install_params(const Finding& fd) {
  EXPECT_TRUE(fd.fix && fd.fix->recipe == "rocm-install") << fd.title;
  if (!fd.fix) return {};
  return std::get<RocmInstallParams>(fd.fix->params);
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::string all_notes(const Finding& fd) {
  std::string out;
  for (const auto& n : fd.notes) out += n + "\n";
  return out;
}

TEST(RocmInstall, ANewNobleBoxGetsTheNewestReleaseWithItsKernelsAndTheWholeStack) {
  Facts f = box("6.8.0-45-generic", nullptr);
  add_gpu(f, "gfx1100", 0x744C, false);
  auto hits = with_id(rocm_findings(f), "rocm.missing");
  ASSERT_EQ(hits.size(), 1u);
  auto p = install_params(hits[0]);
  // The 10.x Core SDK from stable.repo.amd.com (channels.toml), the key's fingerprint pinned.
  EXPECT_EQ(p.release, "10.1");
  EXPECT_EQ(p.channel, "amd-core-10");
  EXPECT_EQ(p.manager, "apt");
  EXPECT_EQ(p.rocm_repo, "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/");
  EXPECT_EQ(p.graphics_repo, "");
  EXPECT_EQ(p.codename, "stable");
  EXPECT_EQ(p.key_url, "https://stable.repo.amd.com/rocm/gpg/packages.gpg");
  EXPECT_EQ(p.fingerprint, "D0F004A0025A1145C7807FCD0701EAC4D5E02107");
  EXPECT_EQ(p.origin, "");  // no pin: no distribution uses TheRock's package names
  EXPECT_EQ(p.install, std::vector<std::string>{"amdrocm-core-sdk10.1-gfx1100"});
  EXPECT_TRUE(p.remove.empty());
  EXPECT_NE(all_notes(hits[0]).find("ROCm 10.1 (10.1.0, 2026-10-05) is the newest release with kernels for gfx1100 that AMD "
                                    "packages for ubuntu 24.04"),
            std::string::npos) << all_notes(hits[0]);
  EXPECT_NE(all_notes(hits[0]).find("No amdgpu-dkms"), std::string::npos) << all_notes(hits[0]);
}

TEST(RocmInstall, PytorchOrOllamaHereMeansTheHipRuntimeOnly) {
  Facts f = box("6.8.0-45-generic", nullptr);
  add_gpu(f, "gfx1100", 0x744C, false);
  PythonEnv py;
  py.torch_path = "/home/alice/venv/lib/python3.12/site-packages/torch";
  f.ml.python.push_back(py);
  auto p = install_params(with_id(rocm_findings(f), "rocm.missing").at(0));
  EXPECT_EQ(p.install, std::vector<std::string>{"amdrocm10.1-gfx1100"});
}

TEST(RocmInstall, AKernelOlderThanTheGpuGetsAmdgpuDkmsAndTheRebootIsSaid) {
  Facts f = box("6.8.0-45-generic", nullptr);
  add_gpu(f, "gfx1201", 0x7550, false);
  auto hit = with_id(rocm_findings(f), "rocm.missing").at(0);
  auto p = install_params(hit);
  // The Core SDK's repository has no driver: the note says where it comes from.
  EXPECT_FALSE(has(p.install, "amdgpu-dkms"));
  EXPECT_NE(all_notes(hit).find("lacks gfx1201"), std::string::npos) << all_notes(hit);
  EXPECT_NE(all_notes(hit).find("amdgpu-install"), std::string::npos) << all_notes(hit);
  EXPECT_NE(all_notes(hit).find("needs a reboot"), std::string::npos) << all_notes(hit);
  // The same GPU on a kernel that has it: no DKMS.
  Facts g = box("6.14.0-29-generic", nullptr);
  add_gpu(g, "gfx1201", 0x7550, false);
  EXPECT_FALSE(has(install_params(with_id(rocm_findings(g), "rocm.missing").at(0)).install, "amdgpu-dkms"));
}

TEST(RocmInstall, NoReleaseForTheGpuSaysSoPlainlyAndWhatWorksInstead) {
  Facts f = box("6.8.0-45-generic", nullptr);
  add_gpu(f, "gfx803", 0x67DF, false);
  auto hit = with_id(rocm_findings(f), "rocm.missing").at(0);
  EXPECT_FALSE(hit.fix);
  EXPECT_NE(all_notes(hit).find("No ROCm release AMD ships for ubuntu 24.04 has kernels for gfx803"), std::string::npos);
  EXPECT_NE(all_notes(hit).find("Vulkan"), std::string::npos);
}

TEST(RocmInstall, RhelGetsAmdsRpmRepositoryThroughDnf) {
  Facts f = box("5.14.0-427.13.1.el9_4.x86_64", nullptr);
  f.os.id = "rhel";
  f.os.version_id = "9.4";
  add_gpu(f, "gfx1100", 0x744C, false);
  auto p = install_params(with_id(rocm_findings(f), "rocm.missing").at(0));
  EXPECT_EQ(p.manager, "dnf");
  EXPECT_EQ(p.channel, "amd-core-10-rpm");
  EXPECT_EQ(p.rocm_repo, "https://stable.repo.amd.com/rocm/core/packages/rhel9/x86_64");
  EXPECT_EQ(p.fingerprint, "D0F004A0025A1145C7807FCD0701EAC4D5E02107");
  EXPECT_EQ(p.install, std::vector<std::string>{"amdrocm-core-devel10.1-gfx1100"});
}

// Fedora and Arch: AMD has no repository for them; their own ROCm packages, through their
// own package managers and keys. amdml writes no file for that, so `fix` would have nothing
// to do: the install is a hand command, never a `fix --only rocm-install`.
TEST(RocmInstall, FedoraAndArchGetTheirOwnPackages) {
  Facts f = box("6.18.4-200.fc43.x86_64", nullptr);
  f.os.id = "fedora";
  f.os.version_id = "43";
  add_gpu(f, "gfx1151", 0x1586, true);
  auto hit = with_id(rocm_findings(f), "rocm.missing").at(0);
  EXPECT_FALSE(hit.fix.has_value());
  ASSERT_EQ(hit.commands.size(), 1u);
  EXPECT_EQ(hit.commands[0], "sudo dnf install -y rocm-hip-devel rocm-runtime rocminfo");
  EXPECT_NE(all_notes(hit).find("AMD publishes no ROCm packages for fedora 43"), std::string::npos) << all_notes(hit);
  Facts a = box("6.18.4-arch1-1", nullptr);
  a.os.id = "arch";
  a.os.version_id = "rolling";
  add_gpu(a, "gfx1100", 0x744C, false);
  auto ha = with_id(rocm_findings(a), "rocm.missing").at(0);
  EXPECT_FALSE(ha.fix.has_value());
  ASSERT_EQ(ha.commands.size(), 1u);
  EXPECT_EQ(ha.commands[0], "sudo pacman -S --needed rocm-hip-sdk rocminfo");
}

// Debian: AMD's 7.14 repository has debian12/debian13 (the 10.x pages name Ubuntu only);
// gfx906 (MI50), with no stable kernels in 7.14 or 10.x, stays on the legacy 7.2 stream.
TEST(RocmInstall, DebianGets714AndGfx906TheLegacyStream) {
  Facts f = box("6.1.0-27-amd64", nullptr);
  f.os.id = "debian";
  f.os.version_id = "12";
  add_gpu(f, "gfx1100", 0x744C, false);
  auto p = install_params(with_id(rocm_findings(f), "rocm.missing").at(0));
  EXPECT_EQ(p.channel, "amd-rocm-7.14");
  EXPECT_EQ(p.release, "7.14");
  EXPECT_EQ(p.rocm_repo, "https://repo.amd.com/rocm/packages-multi-arch/debian12");
  EXPECT_EQ(p.install, std::vector<std::string>{"amdrocm-core-sdk7.14-gfx1100"});
  Facts g = box("6.8.0-45-generic", nullptr);
  add_gpu(g, "gfx906", 0x66AF, false);
  auto hit = with_id(rocm_findings(g), "rocm.missing").at(0);
  auto pg = install_params(hit);
  EXPECT_EQ(pg.channel, "amd-legacy");
  EXPECT_EQ(pg.release, "7.2");
  EXPECT_EQ(pg.rocm_repo, "https://repo.radeon.com/rocm/apt/7.2.1");
  EXPECT_EQ(pg.fingerprint, "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C");
  EXPECT_EQ(pg.origin, "repo.radeon.com");
  EXPECT_NE(all_notes(hit).find("have no kernels for gfx906"), std::string::npos) << all_notes(hit);
}

TEST(RocmInstall, A22_04Rx6600GoesThroughItsOverrideOnJammy) {
  Facts f = box("5.15.0-91-generic", "5.1.0");
  f.os.version_id = "22.04";
  add_gpu(f, "gfx1032", 0x73FF, false);
  auto hit = with_id(rocm_findings(f), "rocm.version").at(0);
  auto p = install_params(hit);
  EXPECT_EQ(p.rocm_repo, "https://stable.repo.amd.com/rocm/core/packages/ubuntu2204/");
  EXPECT_EQ(p.release, "10.1");
  // No native packages for gfx1032: those of its override's target, gfx1030.
  EXPECT_EQ(p.install, std::vector<std::string>{"amdrocm-core-sdk10.1-gfx1030"});
  EXPECT_NE(all_notes(hit).find("HSA_OVERRIDE_GFX_VERSION"), std::string::npos);
}

TEST(RocmInstall, TwoReleasesSideBySideOrMixedWithTheDistributionsGetOneRelease) {
  Facts f = box("6.8.0-45-generic", "6.4.1");
  add_gpu(f, "gfx1100", 0x744C, false);
  EXPECT_TRUE(with_id(rocm_findings(f), "rocm.version").empty());  // one release, kernels for the GPU: fine
  f.rocm.installed = {"/opt/rocm-6.2.4", "/opt/rocm-6.4.1"};
  f.rocm.packages = {{"rocm-core6.2.4", "6.2.4.60204-139~24.04"}, {"rocm-core", "6.4.1.60401-83~24.04"},
                     {"rocminfo", "1.0.0.60401-83~24.04"}, {"libhsa-runtime64-1", "5.7.1-2build1"}};
  auto hits = with_id(rocm_findings(f), "rocm.version");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0].detail.find("side by side"), std::string::npos) << hits[0].detail;
  EXPECT_NE(hits[0].detail.find("libhsa-runtime64-1"), std::string::npos) << hits[0].detail;
  auto p = install_params(hits[0]);
  EXPECT_TRUE(has(p.remove, "rocm-core6.2.4"));
  EXPECT_TRUE(has(p.remove, "libhsa-runtime64-1"));
  // AMD's legacy packages too: the Core SDK goes in after ROCm 7.2.4 or older is removed (RD-inst).
  EXPECT_TRUE(has(p.remove, "rocminfo"));
  EXPECT_TRUE(has(p.remove, "rocm-core"));
}

TEST(RocmInstall, UbuntusOwnRocmWithoutKernelsForThe780mMovesToAmdsRelease) {
  Facts f = box("6.8.0-45-generic", nullptr);
  f.rocm.source = RocmSource::distro;
  f.rocm.path = "/usr";
  f.rocm.version = Version::parse("5.7.1");
  f.rocm.packages = {{"libhsa-runtime64-1", "5.7.1-2build1"}, {"rocminfo", "5.7.1-3build1"}};
  add_gpu(f, "gfx1103", 0x15BF, true);
  auto hits = with_id(rocm_findings(f), "rocm.version");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0].title.find("no kernels for gfx1103"), std::string::npos) << hits[0].title;
  auto p = install_params(hits[0]);
  EXPECT_EQ(p.release, "10.1");
  EXPECT_TRUE(has(p.remove, "libhsa-runtime64-1"));
  EXPECT_TRUE(has(p.remove, "rocminfo"));
}

// A release directory no package owns (a runfile, a tarball, a copied tree) is moved aside
// by the plan: dpkg's status was read and names no package of that release. Owned ones,
// by AMD's MMmmpp version or a versioned name, are not; without dpkg's status amdml says
// it cannot tell.
TEST(RocmInstall, ReleaseDirectoriesNoPackageOwnsAreSetAside) {
  Facts f = box("6.8.0-45-generic", "6.2.4");
  add_gpu(f, "gfx1103", 0x15BF, true);
  f.rocm.installed = {"/opt/rocm-6.2.4"};
  f.rocm.dpkg_status = true;
  auto hit = with_id(rocm_findings(f), "rocm.version").at(0);
  EXPECT_EQ(install_params(hit).set_aside, std::vector<std::string>{"/opt/rocm-6.2.4"});
  EXPECT_NE(all_notes(hit).find("Moves /opt/rocm-6.2.4 aside first: no installed package belongs to that release"),
            std::string::npos) << all_notes(hit);
  for (auto owner : {std::pair<std::string, std::string>{"rocm-core", "6.2.4.60204-139~24.04"},
                     {"hsa-rocr", "1.14.0.60204-139~24.04"}, {"rocm-core6.2.4", "6.2.4.60204-139~24.04"},
                     {"rocminfo6.2.4", "1.0.0"}}) {
    SCOPED_TRACE(owner.first);
    f.rocm.packages = {owner};
    EXPECT_TRUE(install_params(with_id(rocm_findings(f), "rocm.version").at(0)).set_aside.empty());
  }
  // Another release's packages do not own this one (60204 is not 60201; 16.2.4 is not 6.2.4).
  f.rocm.packages = {{"rocm-core", "6.2.1.60201-112~24.04"}, {"rocm-core16.2.4", "1"}};
  EXPECT_EQ(install_params(with_id(rocm_findings(f), "rocm.version").at(0)).set_aside,
            std::vector<std::string>{"/opt/rocm-6.2.4"});
  // No dpkg status: amdml cannot tell, and says so instead of guessing.
  f.rocm.packages.clear();
  f.rocm.dpkg_status = false;
  hit = with_id(rocm_findings(f), "rocm.version").at(0);
  EXPECT_TRUE(install_params(hit).set_aside.empty());
  EXPECT_NE(all_notes(hit).find("cannot tell whether a package owns /opt/rocm-6.2.4"), std::string::npos) << all_notes(hit);
}

// Side by side with the right release: a directory no package owns used to leave the
// finding without a fix ("remove it by hand"); now the plan moves it aside.
TEST(RocmInstall, AnUnownedDirectoryBesideTheRightReleaseKeepsTheFix) {
  Facts f = box("6.8.0-45-generic", "7.2.1");
  add_gpu(f, "gfx1100", 0x744C, false);
  f.rocm.installed = {"/opt/rocm-6.2.4", "/opt/rocm-7.2.1"};
  f.rocm.packages = {{"rocm-core", "7.2.1.70201-81~24.04"}};
  f.rocm.dpkg_status = true;
  auto hit = with_id(rocm_findings(f), "rocm.version").at(0);
  EXPECT_EQ(install_params(hit).set_aside, std::vector<std::string>{"/opt/rocm-6.2.4"});
  // Without dpkg's status there is nothing to move: by hand, saying why.
  f.rocm.dpkg_status = false;
  f.rocm.packages.clear();
  hit = with_id(rocm_findings(f), "rocm.version").at(0);
  EXPECT_FALSE(hit.fix);
  EXPECT_NE(all_notes(hit).find("/var/lib/dpkg/status was not found"), std::string::npos) << all_notes(hit);
}

}  // namespace
}  // namespace amdml
