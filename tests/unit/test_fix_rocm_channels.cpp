// rocm-install for today's channels, as data: the dnf and pacman plans (no registry is
// reachable in a test, so the files and argv are what is checked), the signing key fetched
// at apply time and refused unless its fingerprint is the pinned one, and a doctor that
// never runs a package manager or fetches anything (issue 28).
#include <gtest/gtest.h>

#include <set>

#include "engine/pipeline.hpp"
#include "engine/snapshot_run.hpp"
#include "fix/fix.hpp"
#include "formats/openpgp_armor.hpp"
#include "platform/safe_tree.hpp"
#include "support/forwarding_host.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"
#include "support/test_key.hpp"

namespace amdml {
namespace {

using namespace amdml::test;
using fix::PlanRequest;

const char* kKey = kTestKey;
const char* kKeyFingerprint = kTestKeyFingerprint;

FixPlan plan_with(Diagnosed& d, platform::SafeTree& tree, const nlohmann::json& params) {
  static std::vector<Finding> findings;
  findings = {literal_finding("rocm.missing", "rocm-install", params)};
  PlanRequest in{*d.host, tree, d.facts, findings, d.recipes, std::string("rocm-install")};
  return fix::plan_fixes(in);
}

const FileChange* file(const RecipePlan& rp, const std::string& path) {
  for (const auto& fc : rp.files)
    if (fc.path == path) return &fc;
  return nullptr;
}

TEST(FixRocmChannels, DnfPlanWritesTheRepoFileAndFetchesTheKeyWhenApplied) {
  TestTree t("rocm-install-rx7900xtx-noble");
  t.write("srv/key.asc", kKey);
  Diagnosed d(t.str());
  platform::SafeTree tree{t.str()};
  const std::string key_url = "file://" + t.str() + "/srv/key.asc";
  FixPlan plan = plan_with(d, tree,
                        {{"release", "10.1"}, {"channel", "amd-core-10-rpm"}, {"manager", "dnf"},
                         {"rocm_repo", "https://stable.repo.amd.com/rocm/core/packages/rhel9/x86_64"},
                         {"key_url", key_url}, {"fingerprint", kKeyFingerprint},
                         {"install", {"amdrocm-core-devel10.1-gfx1100"}}});
  ASSERT_EQ(plan.recipes.size(), 1u);
  const RecipePlan& rp = plan.recipes[0];
  ASSERT_FALSE(rp.refused) << rp.refused->message;
  const FileChange* repo = file(rp, "/etc/yum.repos.d/amdrocm.repo");
  ASSERT_NE(repo, nullptr);
  EXPECT_EQ(repo->after,
            "# Written by amdml fix (recipe rocm-install): ROCm 10.1. `amdml fix --undo` removes it.\n"
            "[amdrocm]\nname=AMD ROCm 10.1\nbaseurl=https://stable.repo.amd.com/rocm/core/packages/rhel9/x86_64\n"
            "enabled=1\npriority=50\ngpgcheck=1\ngpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm\n");
  const FileChange* key = file(rp, "/etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->fetch_url, key_url);  // not fetched while planning
  EXPECT_EQ(key->fingerprint, kKeyFingerprint);
  EXPECT_EQ(key->after, "");
  for (const char* apt : {"/etc/apt/sources.list.d/rocm.list", "/etc/apt/keyrings/amdrocm.gpg", "/etc/apt/keyrings/rocm.gpg", "/etc/apt/preferences.d/rocm-pin-600"})
    EXPECT_EQ(file(rp, apt), nullptr) << apt;
  ASSERT_EQ(rp.commands.size(), 1u);
  EXPECT_EQ(rp.commands[0].argv, (std::vector<std::string>{"dnf", "-y", "install", "--setopt=install_weak_deps=False",
                                                           "amdrocm-core-devel10.1-gfx1100"}));
  EXPECT_EQ(rp.commands[0].undo, (std::vector<std::string>{"dnf", "-y", "remove", "amdrocm-core-devel10.1-gfx1100"}));
}

TEST(FixRocmChannels, ArchsOwnPackagesArePacmanAloneWithNoRepositoryFiles) {
  TestTree t("rocm-install-rx7900xtx-noble");
  Diagnosed d(t.str());
  platform::SafeTree tree{t.str()};
  FixPlan plan = plan_with(d, tree, {{"release", "arch-rolling"}, {"channel", "arch"}, {"manager", "pacman"},
                                  {"install", {"rocm-hip-runtime", "rocminfo"}}});
  ASSERT_EQ(plan.recipes.size(), 1u);
  const RecipePlan& rp = plan.recipes[0];
  ASSERT_FALSE(rp.refused) << rp.refused->message;
  EXPECT_TRUE(rp.files.empty());
  ASSERT_EQ(rp.commands.size(), 1u);
  EXPECT_EQ(rp.commands[0].argv,
            (std::vector<std::string>{"pacman", "--noconfirm", "-S", "--needed", "rocm-hip-runtime", "rocminfo"}));
  EXPECT_EQ(rp.commands[0].undo, (std::vector<std::string>{"pacman", "--noconfirm", "-R", "rocm-hip-runtime", "rocminfo"}));
  // An apt install, or a key, without a repository is nonsense.
  auto bad = plan_with(d, tree, {{"release", "x"}, {"manager", "apt"}, {"install", {"rocminfo"}}});
  EXPECT_TRUE(bad.recipes.at(0).refused);
}

// The key is fetched when the fix is applied: the pinned fingerprint lets it in, another
// one stops the apply before anything is written. A key already there with the pinned
// fingerprint is left as it is (a second apply changes nothing).
TEST(FixRocmChannels, TheKeyIsCheckedAgainstThePinnedFingerprintBeforeAnythingIsWritten) {
  TestTree t("rocm-install-rx7900xtx-noble");
  t.write("srv/key.asc", kKey);
  Diagnosed d(t.str());
  platform::SafeTree tree{t.str()};
  nlohmann::json params = {{"release", "10.1"}, {"channel", "amd-core-10"},
                           {"rocm_repo", "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/"},
                           {"codename", "stable"}, {"key_url", "file://" + t.str() + "/srv/key.asc"},
                           {"fingerprint", "D0F004A0025A1145C7807FCD0701EAC4D5E02107"},
                           {"install", {"amdrocm-core-sdk10.1-gfx1100"}}};
  FixPlan wrong = plan_with(d, tree, params);
  ASSERT_FALSE(wrong.recipes.at(0).refused);
  const auto before = snapshot(t.dir);
  auto refused = fix::fetch_keys(wrong, *d.host);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find(std::string("holds the key ") + kKeyFingerprint), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("not the one pinned"), std::string::npos);
  EXPECT_EQ(snapshot(t.dir), before);

  params["fingerprint"] = kKeyFingerprint;
  FixPlan right = plan_with(d, tree, params);
  ASSERT_TRUE(fix::fetch_keys(right, *d.host));
  const FileChange* key = file(right.recipes.at(0), "/etc/apt/keyrings/amdrocm.gpg");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->fetch_url, "");
  EXPECT_EQ(key->after, formats::dearmor_public_key(kKey).value());
  const FileChange* list = file(right.recipes.at(0), "/etc/apt/sources.list.d/rocm.list");
  ASSERT_NE(list, nullptr);
  EXPECT_NE(list->after.find("deb [arch=amd64 signed-by=/etc/apt/keyrings/amdrocm.gpg] "
                             "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/ stable main\n"),
            std::string::npos);
  EXPECT_EQ(file(right.recipes.at(0), "/etc/apt/preferences.d/rocm-pin-600"), nullptr);

  // The key in place: planned again, it is "as wanted" and nothing is fetched.
  t.write("etc/apt/keyrings/amdrocm.gpg", key->after);
  FixPlan again = plan_with(d, tree, params);
  const FileChange* kept = file(again.recipes.at(0), "/etc/apt/keyrings/amdrocm.gpg");
  ASSERT_NE(kept, nullptr);
  EXPECT_FALSE(kept->changes());
  EXPECT_EQ(kept->fetch_url, "");
}

// A host on which every package manager, downloader and gpg fails the test: the doctor,
// check, snapshot and report paths (run_doctor, record_run) plan offline. live() is true,
// so nothing is skipped because the host is a fixture.
class NoNetworkHost final : public ForwardingHost {
 public:
  explicit NoNetworkHost(std::unique_ptr<platform::Host> inner) : ForwardingHost(*inner), owned_(std::move(inner)) {}
  bool live() const override { return true; }
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds t) const override {
    static const std::set<std::string> forbidden = {"curl", "wget", "apt", "apt-get", "dnf", "pip", "pip3", "gpg"};
    std::string name = argv.empty() ? "" : argv[0].substr(argv[0].rfind('/') + 1);
    if (forbidden.count(name)) {
      ADD_FAILURE() << "ran " << name << " (" << (argv.size() > 1 ? argv[1] : "") << ")";
      return make_error(name + ": forbidden in this test");
    }
    ran.push_back(name);
    return inner_.run(argv, t);
  }
  mutable std::vector<std::string> ran;  // every other child's program, in order

 private:
  std::unique_ptr<platform::Host> owned_;
};

TEST(DoctorOffline, NeverRunsAPackageManagerOrFetchesAKey) {
  // A box that needs rocm-install, and one whose TTM advice is planned from its files.
  for (const char* machine : {"rocm-install-rx7900xtx-noble", "rocm-install-780m-ubuntu-rocm57", "apu780m-ubuntu2404-default-ttm"}) {
    SCOPED_TRACE(machine);
    TestTree t(machine);
    auto h = platform::make_host(t.str());
    ASSERT_TRUE(h) << h.error().message;
    engine::Session s;
    s.host = std::make_unique<NoNetworkHost>(std::move(*h));
    s.kb = shipped_knowledge();
    auto files = platform::recipe_files("");
    ASSERT_TRUE(files);
    s.recipes = *files;
    probes::ProbeOptions po;
    po.runtime = false;
    Report r = engine::run_doctor(s, po);  // doctor and check
    bool asks = false;
    for (const auto& f : r.findings) asks |= f.fix && (f.fix->recipe == "rocm-install" || f.fix->recipe == "ttm-pages-limit");
    EXPECT_TRUE(asks) << "the fixture no longer asks for a planned recipe";
    (void)engine::record_run(s, po, true);  // snapshot and report
  }
}

// Every fixture machine: the advice stage (each fixable finding's recipe planned, issue
// 28) starts no child process at all -- no initramfs lister, no package manager, no
// download -- and doctor, check, report and snapshot run none of the forbidden ones.
TEST(DoctorOffline, TheAdviceStageRunsNoChildOnAnyFixture) {
  auto files = platform::recipe_files("");
  ASSERT_TRUE(files);
  int advised = 0;
  for (const auto& dir : test::fixture_machines()) {
    SCOPED_TRACE(dir.filename().string());
    auto h = platform::make_host(dir.string());
    if (!h) continue;  // the malformed-manifest fixtures
    engine::Session s;
    auto host = std::make_unique<NoNetworkHost>(std::move(*h));
    NoNetworkHost& seen = *host;
    s.host = std::move(host);
    s.kb = shipped_knowledge();
    s.recipes = *files;
    probes::ProbeOptions po;
    po.runtime = false;
    Report r;
    r.facts = engine::run_probes(*s.host, s.kb, po);
    engine::run_rules(r, s.kb);
    seen.ran.clear();
    (void)engine::run_advice(r, s, *s.host);
    EXPECT_TRUE(seen.ran.empty()) << "the advice stage ran " << seen.ran.front();
    advised += std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.fix.has_value(); });
    (void)engine::record_run(s, po, true);  // snapshot and report
  }
  EXPECT_GT(advised, 10) << "too few fixtures ask for a recipe for this test to mean much";
}

// pip into the environment that needs it: the venv's own interpreter, TheRock's index for
// the series, as the venv's owner when amdml runs as root behind sudo; --undo uninstalls
// what the requirement brought. No file is written, yet the recipe has a change to make.
const nlohmann::json kPipParams = {{"release", "7.14"}, {"channel", "therock-pip-7.14"}, {"manager", "pip"},
                                   {"python", "/home/alice/nodeps/bin/python3"},
                                   {"index_url", "https://repo.amd.com/rocm/whl-multi-arch/"},
                                   {"install", {"rocm[libraries,device-gfx1151]==7.14.1"}}, {"run_as", "alice"}};

TEST(FixRocmChannels, PipPlanRunsTheVenvsOwnInterpreterAsItsOwner) {
  TestTree t("channel-torch-amd-strixhalo");
  become_root_via_sudo(t);
  Diagnosed d(t.str());
  platform::SafeTree tree{t.str()};
  FixPlan plan = plan_with(d, tree, kPipParams);
  ASSERT_EQ(plan.recipes.size(), 1u);
  const RecipePlan& rp = plan.recipes[0];
  ASSERT_FALSE(rp.refused) << rp.refused->message;
  EXPECT_TRUE(rp.files.empty() || std::none_of(rp.files.begin(), rp.files.end(), [](const FileChange& f) { return f.changes(); }));
  EXPECT_TRUE(rp.pending());
  ASSERT_EQ(rp.commands.size(), 1u);
  const Command& c = rp.commands[0];
  EXPECT_EQ(c.argv, (std::vector<std::string>{"runuser", "-u", "alice", "--", "/home/alice/nodeps/bin/python3", "-m", "pip",
                                              "install", "--index-url", "https://repo.amd.com/rocm/whl-multi-arch/",
                                              "rocm[libraries,device-gfx1151]==7.14.1"}));
  ASSERT_TRUE(c.undo.has_value());
  EXPECT_EQ(*c.undo, (std::vector<std::string>{"runuser", "-u", "alice", "--", "/home/alice/nodeps/bin/python3", "-m", "pip",
                                              "uninstall", "-y", "rocm", "rocm-sdk-core", "rocm-sdk-libraries",
                                              "rocm-sdk-device-gfx1151"}));
  EXPECT_TRUE(c.installs);
  EXPECT_EQ(c.text(), "runuser -u alice -- /home/alice/nodeps/bin/python3 -m pip install --index-url "
                      "https://repo.amd.com/rocm/whl-multi-arch/ 'rocm[libraries,device-gfx1151]==7.14.1'");
}

TEST(FixRocmChannels, PipPlanAsTheOwnerNeedsNoRunuser) {
  TestTree t("channel-torch-amd-strixhalo");  // the manifest's process is alice (euid 1000)
  Diagnosed d(t.str());
  platform::SafeTree tree{t.str()};
  FixPlan plan = plan_with(d, tree, kPipParams);
  ASSERT_EQ(plan.recipes.size(), 1u);
  ASSERT_EQ(plan.recipes[0].commands.size(), 1u);
  EXPECT_EQ(plan.recipes[0].commands[0].argv.front(), "/home/alice/nodeps/bin/python3");
}

TEST(FixRocmChannels, PipParamsThatAreNotOneRequirementAreRefused) {
  TestTree t("channel-torch-amd-strixhalo");
  Diagnosed d(t.str());
  platform::SafeTree tree{t.str()};
  for (auto [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"python", "bin/python3"},
           {"install", {"rocm --pre"}},
           {"install", {"-e/tmp/x"}},
           {"index_url", "http://repo.amd.com/rocm/whl-multi-arch/"},
           {"run_as", "alice;id"}}) {
    auto params = kPipParams;
    params[key] = value;
    FixPlan plan = plan_with(d, tree, params);
    ASSERT_EQ(plan.recipes.size(), 1u);
    EXPECT_TRUE(plan.recipes[0].refused) << key << " = " << value.dump();
  }
}

}  // namespace
}  // namespace amdml
