// `amdml fix --only rocm-install` on the issue-20 machines, plan only: the release, the
// suite, every file and command, what --undo removes -- or, where no release fits, why.
#include <gtest/gtest.h>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;

namespace {

std::string plan_of(const std::string& machine, int want_code = 0) {
  TestTree t(machine);
  auto r = run_amdml("fix --root " + t.str() + " --color never --no-runtime --only rocm-install");
  EXPECT_EQ(r.code, want_code) << r.out << r.err;
  return r.out;
}

void expect_has(const std::string& text, const std::vector<std::string>& parts) {
  for (const auto& p : parts) EXPECT_NE(text.find(p), std::string::npos) << "no '" << p << "' in:\n" << text;
}

}  // namespace

// The issue-26 done-when, on the RX 7900 XTX box (Ubuntu 24.04): the current release from
// the current repository, with the pinned key; no driver repository and no pin for it.
TEST(CliRocmInstall, Rx7900xtxOnNobleGetsTheCoreSdk101AndEveryFile) {
  auto out = plan_of("rocm-install-rx7900xtx-noble");
  expect_has(out, {"/etc/apt/sources.list.d/rocm.list",
                   "+deb [arch=amd64 signed-by=/etc/apt/keyrings/amdrocm.gpg] "
                   "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/ stable main",
                   "/etc/apt/keyrings/amdrocm.gpg: the key from https://stable.repo.amd.com/rocm/gpg/packages.gpg is fetched",
                   "ROCm 10.1 (10.1.0, 2026-10-05) is the newest release with kernels for gfx1100 that AMD packages for "
                   "ubuntu 24.04",
                   "fingerprint pinned in amdml's knowledge (D0F004A0025A1145C7807FCD0701EAC4D5E02107)",
                   "+render:x:991:alice", "install --no-install-recommends amdrocm-core-sdk10.1-gfx1100",
                   "--undo removes amdrocm-core-sdk10.1-gfx1100", "No amdgpu-dkms", "Log out and in again"});
  for (const char* absent : {"amdgpu-dkms   #", "/etc/apt/preferences.d/rocm-pin-600", "amdgpu.list", "repo.radeon.com"})
    EXPECT_EQ(out.find(absent), std::string::npos) << absent << " in:\n" << out;
}

// The RX 9070 XT (gfx1201) on Ubuntu 24.04 with ROCm 6.3.3, which has no gfx1201 kernels:
// the current release from the current repository, its own device package, the key pinned.
TEST(CliRocmInstall, Rx9070xtOnNobleGetsItsDevicePackageFromTheCoreSdk) {
  auto out = plan_of("rx9070xt-rocm63");
  expect_has(out, {"https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/ stable main",
                   "amdrocm-core-sdk10.1-gfx1201", "ROCm 10.1 (10.1.0, 2026-10-05) is the newest release with kernels for gfx1201",
                   "the key from https://stable.repo.amd.com/rocm/gpg/packages.gpg is fetched"});
}

TEST(CliRocmInstall, Ubuntus57On780mIsRemovedForRocm101) {
  auto out = plan_of("rocm-install-780m-ubuntu-rocm57");
  expect_has(out, {"core/packages/ubuntu2404/ stable main", "apt-get -y -q remove rocminfo libhsa-runtime64-1",
                   "--undo installs rocminfo",
                   "resolves gfx.override-needed: ROCm 5.7.1 has no kernels for AMD Radeon 780M (gfx1103); ROCm 10.1 has"});
}

TEST(CliRocmInstall, Rx6600OnJammyReplacesAmds51ListAndUsesItsOverride) {
  auto out = plan_of("rocm-install-rx6600-jammy-rocm51");
  expect_has(out, {"-deb [arch=amd64] https://repo.radeon.com/rocm/apt/5.1 ubuntu main", "core/packages/ubuntu2204/ stable main",
                   "exists and is replaced", "through HSA_OVERRIDE_GFX_VERSION", "amdrocm-core-sdk10.1-gfx1030"});
}

TEST(CliRocmInstall, Rx580SaysPlainlyThatNoReleaseFits) {
  auto out = plan_of("rocm-install-rx580-noble", 1);
  expect_has(out, {"REFUSED: rocm.missing has no plan here: No ROCm release AMD ships for ubuntu 24.04 has kernels for gfx803",
                   "Vulkan"});
  EXPECT_EQ(out.find("/etc/apt/sources.list.d/rocm.list"), std::string::npos);
}

// bad-symlinks: /opt/rocm-6.2.4 came from no package (dpkg's status has none of ROCm), so
// apt could never remove it. The plan moves it aside, a rename inside the tree that the
// journal records; a second apply has nothing to do; --undo puts it back byte for byte,
// and refuses when something took its old name meanwhile.
TEST(CliRocmInstall, AReleaseNoPackageOwnsIsMovedAsideAndUndoPutsItBack) {
  auto plan = plan_of("bad-symlinks");
  expect_has(plan, {"run: mv -T -- /opt/rocm-6.2.4 /opt/amdml-set-aside-rocm-6.2.4   # move /opt/rocm-6.2.4 aside: no package "
                    "owns it", "nothing is deleted, and --undo moves it back. Delete it once ROCm 10.1 works."});
  TestTree t("bad-symlinks");
  become_root_via_sudo(t);
  const auto before = snapshot(t.dir);
  auto a = run_amdml("fix --root " + t.str() + " --color never --no-runtime --apply --yes --only rocm-install");
  ASSERT_EQ(a.code, 0) << a.out << a.err;
  expect_has(a.out, {"ran mv -T -- /opt/rocm-6.2.4 /opt/amdml-set-aside-rocm-6.2.4: renamed"});
  EXPECT_FALSE(fs::exists(t / "opt/rocm-6.2.4"));
  EXPECT_EQ(read_file(t / "opt/amdml-set-aside-rocm-6.2.4/.info/version"), "6.2.4-120\n");
  auto again = run_amdml("fix --root " + t.str() + " --color never --no-runtime --apply --yes --only rocm-install");
  EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
  auto u = run_amdml("fix --root " + t.str() + " --color never --undo");
  ASSERT_EQ(u.code, 0) << u.out << u.err;
  EXPECT_EQ(snapshot(t.dir), before);

  // The old name taken meanwhile: nothing is renamed over it; every other change is
  // undone, and the exit status says the undo was partial (issue 29 M8).
  TestTree t2("bad-symlinks");
  become_root_via_sudo(t2);
  ASSERT_EQ(run_amdml("fix --root " + t2.str() + " --color never --no-runtime --apply --yes --only rocm-install").code, 0);
  t2.write("opt/rocm-6.2.4/.info/version", "6.2.4-999\n");
  auto partial = run_amdml("fix --root " + t2.str() + " --color never --undo");
  EXPECT_EQ(partial.code, 1) << partial.out << partial.err;
  expect_has(partial.out, {"SKIPPED /opt/rocm-6.2.4: something took its name", "Partly undone"});
  EXPECT_TRUE(fs::exists(t2 / "opt/amdml-set-aside-rocm-6.2.4/.info/version"));
  EXPECT_FALSE(fs::exists(t2 / "etc/apt/sources.list.d/rocm.list"));
  EXPECT_FALSE(fs::exists(t2 / "etc/apt"));
}

// Issue 29 M8: undo is per change. The set-aside directory deleted (as the plan says to,
// once the new ROCm works), or /etc/group edited since: it is reported and left alone;
// the sources, the pin and the directories amdml made are still taken back, and the
// exit status says the undo was partial.
TEST(CliRocmInstall, UndoSkipsWhatDriftedAndRestoresEverythingElse) {
  {
    TestTree t("bad-symlinks");
    become_root_via_sudo(t);
    ASSERT_EQ(run_amdml("fix --root " + t.str() + " --color never --no-runtime --apply --yes --only rocm-install").code, 0);
    ASSERT_TRUE(fs::exists(t / "etc/apt/sources.list.d/rocm.list"));
    fs::remove_all(t / "opt/amdml-set-aside-rocm-6.2.4");
    auto u = run_amdml("fix --root " + t.str() + " --color never --undo");
    EXPECT_EQ(u.code, 1) << u.out << u.err;
    expect_has(u.out, {"SKIPPED /opt/rocm-6.2.4: moved aside to /opt/amdml-set-aside-rocm-6.2.4, which no longer exists",
                       "Partly undone", "/etc/apt/sources.list.d/rocm.list (removed: did not exist before)"});
    EXPECT_FALSE(fs::exists(t / "etc/apt"));
    // Partly undone: `--undo` alone finds nothing more to do.
    auto again = run_amdml("fix --root " + t.str() + " --color never --undo");
    EXPECT_EQ(again.code, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("no applied transaction to undo"), std::string::npos) << again.out;
  }
  {
    TestTree t("rocm-install-rx7900xtx-noble");
    become_root_via_sudo(t);
    const auto before = snapshot(t.dir);
    ASSERT_EQ(run_amdml("fix --root " + t.str() + " --color never --no-runtime --apply --yes --only rocm-install").code, 0);
    const std::string group = read_file(t / "etc/group") + "extra:x:4242:\n";
    t.write("etc/group", group);
    auto u = run_amdml("fix --root " + t.str() + " --color never --undo");
    EXPECT_EQ(u.code, 1) << u.out << u.err;
    expect_has(u.out, {"SKIPPED /etc/group: changed after amdml wrote it; left as it is",
                       "/etc/apt/sources.list.d/rocm.list (removed: did not exist before)", "Partly undone"});
    EXPECT_EQ(read_file(t / "etc/group"), group);
    auto now = snapshot(t.dir);
    now.erase("etc/group");
    auto want = before;
    want.erase("etc/group");
    EXPECT_EQ(now, want);
  }
}

namespace {

// `apt-cache policy` over a tree's /etc/apt (no lists, no dpkg status): reads every
// source list, the pins and the keyring paths, and fails as apt-get update would on
// conflicting entries.
CliRun apt_policy(const TestTree& t) {
  fs::create_directories(t / "var/lib/apt/lists/partial");
  fs::create_directories(t / "var/cache/apt/archives/partial");
  return shell_run("apt-cache -o Dir::Etc=" + sh_quote((t / "etc/apt").string()) + " -o Dir::State=" +
                   sh_quote((t / "var/lib/apt").string()) + " -o Dir::Cache=" + sh_quote((t / "var/cache/apt").string()) +
                   " -o Dir::State::status=/dev/null policy 2>&1");
}

}  // namespace

// Issue 29 M5: AMD's repository already configured in a deb822 rocm.sources with another
// keyring. Adding rocm.list beside it would make apt refuse every source ("Conflicting
// values set for option Signed-By"); the plan turns that stanza off instead (Enabled: no,
// every other byte kept), says so, and --undo turns it back on. apt-cache policy over
// the tree proves both.
TEST(CliRocmInstall, TheSameRepositoryInADeb822FileIsTurnedOffNotDuplicated) {
  TestTree t("rocm-install-rx7900xtx-noble");
  become_root_via_sudo(t);
  const std::string sources =
      "Types: deb\n"
      "URIs: https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/\n"
      "Suites: stable\n"
      "Components: main\n"
      "Signed-By: /usr/share/keyrings/amd-rocm.gpg\n";
  t.write("etc/apt/sources.list.d/rocm.sources", sources);
  const auto before = snapshot(t.dir);
  auto plan = run_amdml("fix --root " + t.str() + " --color never --no-runtime --only rocm-install");
  EXPECT_EQ(plan.code, 0) << plan.out << plan.err;
  expect_has(plan.out, {"/etc/apt/sources.list.d/rocm.sources already configures https://stable.repo.amd.com/rocm/core/packages/ubuntu2404 stable",
                        "+Enabled: no"});
  auto a = run_amdml("fix --root " + t.str() + " --color never --no-runtime --apply --yes --only rocm-install");
  ASSERT_EQ(a.code, 0) << a.out << a.err;
  const std::string off = read_file(t / "etc/apt/sources.list.d/rocm.sources");
  EXPECT_NE(off.find("Enabled: no\n" + sources), std::string::npos) << off;
  if (have_tool("apt-cache")) {
    auto policy = apt_policy(t);
    EXPECT_EQ(policy.code, 0) << policy.out;
    EXPECT_EQ(policy.out.find("Conflicting"), std::string::npos) << policy.out;
    // What the recipe would have left without turning it off: apt refuses the sources.
    t.write("etc/apt/sources.list.d/rocm.sources", sources);
    auto conflict = apt_policy(t);
    EXPECT_NE(conflict.out.find("Conflicting values set for option Signed-By"), std::string::npos) << conflict.out;
    t.write("etc/apt/sources.list.d/rocm.sources", off);
    fs::remove_all(t / "var/lib/apt");
    fs::remove_all(t / "var/cache/apt");
    // apt-cache made these parents where the tree had none: they are the test's, not amdml's.
    for (const char* d : {"var/cache", "var/lib", "var"})
      if (!before.count(d) && fs::is_directory(t / d) && fs::is_empty(t / d)) fs::remove(t / d);
  }
  auto u = run_amdml("fix --root " + t.str() + " --color never --undo");
  EXPECT_EQ(u.code, 0) << u.out << u.err;
  EXPECT_EQ(read_file(t / "etc/apt/sources.list.d/rocm.sources"), sources);
  EXPECT_EQ(snapshot(t.dir), before);
}
