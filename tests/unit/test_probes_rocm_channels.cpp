// Every ROCm install channel recognised from its own files (issue 26), against the
// channel-* fixture machines: the channel, version and targets of each install, TheRock's
// wheels and the PyTorch kinds, llama.cpp's own libamdhip64, and files in /opt that are
// no release (issue 29 M9).
#include <gtest/gtest.h>

#include <algorithm>

#include "platform/host.hpp"
#include "probes/collect.hpp"
#include "support/knowledge.hpp"

using amdml::test::shipped_knowledge;

using namespace amdml;

namespace {

Facts probe(const std::string& machine) {
  auto host = platform::make_host(test::fixture(machine));
  EXPECT_TRUE(host.ok()) << (host.ok() ? "" : host.error().message);
  probes::ProbeOptions opts;
  opts.runtime = false;
  return probes::collect_facts(**host, shipped_knowledge(), opts);
}

std::string targets(const RocmInstall& in) {
  std::string s;
  for (const auto& t : in.targets) s += (s.empty() ? "" : " ") + t.name();
  return s;
}

// "channel version path [targets]" per install, in order.
std::vector<std::string> summary(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& in : f.rocm.installs)
    out.push_back(std::string(to_string(in.channel)) + " " + (in.version ? in.version->str() : "?") + " " + in.path + " [" +
                  targets(in) + "]");
  return out;
}

}  // namespace

TEST(RocmChannelsProbe, CoreSdkSideBySideAndFilesThatAreNoRelease) {
  Facts f = probe("channel-core-sdk-rx9070xt");
  EXPECT_TRUE(f.rocm.installed.empty()) << "a .tar.gz or .run in /opt is no release";
  EXPECT_EQ(summary(f), (std::vector<std::string>{"core-sdk 7.14.1 /opt/rocm/core-7.14 [gfx1100]",
                                                  "core-sdk 10.1.0 /opt/rocm/core-10.1 [gfx1201]"}));
  EXPECT_EQ(f.rocm.installs[1].device_packages, std::vector<std::string>{"amdrocm10.1-gfx1201"});
  // /opt/rocm holds no .info: the "core" alternative names the release in use.
  ASSERT_TRUE(f.rocm.version);
  EXPECT_EQ(f.rocm.version->str(), "10.1.0");
  EXPECT_EQ(f.rocm.resolved_path.value_or(""), "/opt/rocm/core-10.1");
}

TEST(RocmChannelsProbe, TarballBesideALegacyRelease) {
  Facts f = probe("channel-tarball-rx9070xt");
  EXPECT_EQ(summary(f), (std::vector<std::string>{"legacy 6.3.3 /opt/rocm-6.3.3 []", "tarball 7.14.1 /opt/therock [gfx1200 gfx1201]"}));
  EXPECT_EQ(f.rocm.installs[1].targets_from, "/opt/therock/share/therock/dist_info.json");
}

TEST(RocmChannelsProbe, DistributionPackages) {
  Facts deb = probe("channel-deb-rx7600");
  ASSERT_EQ(deb.rocm.installs.size(), 1u);
  EXPECT_EQ(summary(deb)[0], "deb 5.7.1 /usr [gfx803 gfx900 gfx906 gfx908 gfx90a gfx1010 gfx1030 gfx1100 gfx1101 gfx1102]");
  EXPECT_EQ(deb.rocm.installs[0].version_from, "dpkg libhsa-runtime64-1");
  Facts rpm = probe("channel-rpm-strixhalo");
  ASSERT_EQ(rpm.rocm.installs.size(), 1u);
  EXPECT_EQ(summary(rpm)[0], "rpm 6.4.2 /usr [gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1200 gfx1201]");
  EXPECT_EQ(rpm.rocm.installs[0].version_from, "/usr/include/rocm-core/rocm_version.h");
  Facts arch = probe("channel-pacman-rdna3");
  ASSERT_EQ(arch.rocm.installs.size(), 1u);
  EXPECT_EQ(arch.rocm.installs[0].channel, RocmChannel::pacman);
  EXPECT_EQ(arch.rocm.installs[0].version_text, "6.4.4-1");
  EXPECT_EQ(arch.rocm.installs[0].version_from, "/var/lib/pacman/local/rocm-core-6.4.4-1/desc");
}

TEST(RocmChannelsProbe, TorchKindsAndTheRockWheels) {
  Facts deb = probe("channel-deb-rx7600");
  ASSERT_EQ(deb.ml.python.size(), 1u);
  EXPECT_EQ(deb.ml.python[0].torch_rocm, TorchRocm::bundled);

  Facts pip = probe("channel-pip-only-strixhalo");
  EXPECT_EQ(pip.rocm.source, RocmSource::none);
  ASSERT_EQ(pip.ml.python.size(), 1u);
  const auto& e = pip.ml.python[0];
  EXPECT_EQ(e.torch_rocm, TorchRocm::rocm_wheels);
  EXPECT_EQ(e.rocm_wheels.rocm_version.value_or(""), "7.14.1");
  EXPECT_EQ(e.rocm_wheels.device_targets.size(), 24u);
  ASSERT_EQ(pip.rocm.installs.size(), 1u);
  EXPECT_EQ(pip.rocm.installs[0].channel, RocmChannel::pip);
  EXPECT_EQ(pip.rocm.installs[0].python_env.value_or(""), "/home/alice/venv");
  EXPECT_EQ(pip.rocm.installs[0].path, "/home/alice/venv/lib/python3.12/site-packages/_rocm_sdk_core");

  Facts amd = probe("channel-torch-amd-strixhalo");
  std::map<std::string, TorchRocm> kinds;
  for (const auto& x : amd.ml.python) kinds[x.prefix] = x.torch_rocm;
  EXPECT_EQ(kinds["/home/alice/therock"], TorchRocm::amd_device);
  EXPECT_EQ(kinds["/home/alice/nodeps"], TorchRocm::rocm_wheels);
}

TEST(RocmChannelsProbe, OllamaIdentifiedByTheClientVersionWarning) {
  Facts f = probe("ollama-780m-rocm62");
  ASSERT_TRUE(f.ml.ollama.version);
  EXPECT_EQ(f.ml.ollama.version->str(), "0.32.0");
  EXPECT_EQ(f.ml.ollama.bundled_rocm.value_or(Version{}).str(), "7.2.0");
  EXPECT_EQ(f.ml.ollama.rocblas_targets.size(), 12u);
  Facts u = probe("ollama-780m-unidentified");
  EXPECT_FALSE(u.ml.ollama.version);
  EXPECT_TRUE(u.ml.ollama.installed);
}

TEST(RocmChannelsProbe, WslHasDxg) {
  Facts f = probe("wsl-rx7900xtx");
  EXPECT_TRUE(f.os.wsl);
  EXPECT_TRUE(f.os.dxg);
  EXPECT_TRUE(f.gpus.empty());
}
