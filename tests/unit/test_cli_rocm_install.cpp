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
