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

TEST(CliRocmInstall, Rx7900xtxOnNobleGetsRocm72AndEveryFile) {
  auto out = plan_of("rocm-install-rx7900xtx-noble");
  expect_has(out, {"/etc/apt/sources.list.d/rocm.list",
                   "+deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.2.1 noble main",
                   "+deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/30.30.1/ubuntu noble main",
                   "/etc/apt/preferences.d/rocm-pin-600", "+Pin: release o=repo.radeon.com", "+Pin-Priority: 600",
                   "/etc/apt/keyrings/rocm.gpg: the key from https://repo.radeon.com/rocm/rocm.gpg.key is fetched",
                   "+render:x:991:alice", "install --no-install-recommends rocm", "--undo removes rocm",
                   "No amdgpu-dkms", "Log out and in again"});
  EXPECT_EQ(out.find("amdgpu-dkms   #"), std::string::npos);
}

TEST(CliRocmInstall, Ubuntus57On780mIsRemovedForRocm72) {
  auto out = plan_of("rocm-install-780m-ubuntu-rocm57");
  expect_has(out, {"rocm/apt/7.2.1 noble main", "apt-get -y -q remove rocminfo libhsa-runtime64-1", "--undo installs rocminfo",
                   "resolves gfx.override-needed: ROCm 5.7.1 has no kernels for AMD Radeon 780M (gfx1103); ROCm 7.2 has"});
}

TEST(CliRocmInstall, Rx6600OnJammyReplacesAmds51ListAndUsesItsOverride) {
  auto out = plan_of("rocm-install-rx6600-jammy-rocm51");
  expect_has(out, {"-deb [arch=amd64] https://repo.radeon.com/rocm/apt/5.1 ubuntu main", "rocm/apt/7.2.1 jammy main",
                   "exists and is replaced", "through HSA_OVERRIDE_GFX_VERSION"});
  // AMD's own 5.1 packages are upgraded in place by the new source, not removed.
  EXPECT_EQ(out.find(" remove rocminfo"), std::string::npos) << out;
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
                    "owns it", "nothing is deleted, and --undo moves it back. Delete it once ROCm 7.2 works."});
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
