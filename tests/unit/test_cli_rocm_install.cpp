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

  // The old name taken meanwhile: nothing is renamed over it, nothing restored.
  TestTree t2("bad-symlinks");
  become_root_via_sudo(t2);
  ASSERT_EQ(run_amdml("fix --root " + t2.str() + " --color never --no-runtime --apply --yes --only rocm-install").code, 0);
  t2.write("opt/rocm-6.2.4/.info/version", "6.2.4-999\n");
  auto refused = run_amdml("fix --root " + t2.str() + " --color never --undo");
  EXPECT_NE(refused.code, 0);
  EXPECT_NE(refused.err.find("/opt/rocm-6.2.4"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(t2 / "opt/amdml-set-aside-rocm-6.2.4/.info/version"));
  EXPECT_TRUE(fs::exists(t2 / "etc/apt/sources.list.d/rocm.list"));
}
