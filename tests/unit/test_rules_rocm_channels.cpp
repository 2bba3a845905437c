// Issue 26's rules with literal facts: rocm.device-missing (per-target device packages
// against the GPUs here), torch.rocm-wheels (a wheel that loads ROCm from TheRock's rocm
// wheels without them), rocm.missing on a wheels-only machine, a system-ROCm problem
// judged by whom it affects, and gpu.wsl (/dev/dxg: the HSA runtime is the GPU list).
#include <gtest/gtest.h>

#include "rules/rules.hpp"
#include "support/rule_facts.hpp"

using namespace amdml;

namespace {

using test::gfx;

Knowledge kb() {
  Knowledge k;
  k.gfx.push_back(test::phoenix_gfx());
  GfxInfo halo;
  halo.target = gfx("gfx1151");
  halo.isa = IsaFamily::rdna3_5;
  halo.apu = true;
  k.gfx.push_back(halo);
  RocmRelease r62;
  r62.version = {6, 2, 0};
  r62.official = {gfx("gfx1100")};
  r62.kernels = {gfx("gfx1030"), gfx("gfx1100")};
  r62.distros = {"ubuntu 24.04"};
  k.rocm.push_back(r62);
  RocmRelease r72;
  r72.version = {7, 2, 0};
  r72.official = {gfx("gfx1100")};
  r72.kernels = {gfx("gfx1030"), gfx("gfx1100"), gfx("gfx1103"), gfx("gfx1151")};
  r72.distros = {"ubuntu 24.04"};
  k.rocm.push_back(r72);
  return k;
}

Facts box(const char* g) {
  Facts f;
  f.os.id = "ubuntu";
  f.os.version_id = "24.04";
  Gpu x;
  x.gfx = gfx(g);
  x.apu = true;
  x.kfd_node = 1;
  x.gfx_target_version = x.gfx->kfd_version();
  f.gpus.push_back(x);
  f.ml.probed = true;
  return f;
}

// A venv with TheRock's rocm wheels for targets, and a torch of the given version and kind.
PythonEnv wheels_env(std::vector<GfxTarget> targets, const std::string& torch_version, TorchRocm kind) {
  PythonEnv e;
  e.kind = "venv";
  e.prefix = "/home/alice/venv";
  e.interpreter = "/home/alice/venv/bin/python3";
  e.site_packages = {"/home/alice/venv/lib/python3.12/site-packages"};
  e.torch_path = e.site_packages[0] + "/torch";
  e.torch_version = torch_version;
  e.torch_hip = "7.14.60850";
  e.torch_build = TorchBuild::rocm;
  e.torch_rocm = kind;
  auto& w = e.rocm_wheels;
  w.rocm_version = w.core_version = w.libraries_version = "7.14.1";
  w.core_path = e.site_packages[0] + "/_rocm_sdk_core";
  w.device_targets = targets;
  for (const auto& t : targets) w.device_packages.push_back("rocm-sdk-device-" + t.name());
  return e;
}

RocmInstall pip_install(const PythonEnv& e) {
  RocmInstall in;
  in.channel = RocmChannel::pip;
  in.path = *e.rocm_wheels.core_path;
  in.version = Version{7, 14, 1};
  in.version_text = "7.14.1";
  in.targets = e.rocm_wheels.device_targets;
  in.device_packages = e.rocm_wheels.device_packages;
  in.python_env = e.prefix;
  return in;
}

// The findings with id, copied: the callers pass diagnose()'s result straight in.
std::vector<Finding> all(const std::vector<Finding>& v, FindingId id) {
  std::vector<Finding> out;
  for (const auto& x : v)
    if (x.id == id) out.push_back(x);
  return out;
}

}  // namespace

// rocm-install's pip channel: a venv's torch without its rocm wheels, in alice's home, gets
// them from TheRock's index for its series with its own interpreter, as alice.
TEST(RocmChannelRules, MissingWheelsArePipInstalledIntoTheVenvAsItsOwner) {
  Knowledge k = kb();
  RocmRelease r714;
  r714.version = {7, 14, 1};
  r714.official = {gfx("gfx1100"), gfx("gfx1151")};
  r714.kernels = r714.official;
  k.rocm.push_back(r714);
  ChannelSpec pip;
  pip.id = "therock-pip-7.14";
  pip.kind = "pip";
  pip.title = "TheRock ROCm 7.14 Python wheels";
  pip.rocm = {Version{7, 14, 0}};
  pip.full = {{"7.14", Version{7, 14, 1}}};
  pip.repo = "https://repo.amd.com/rocm/whl-multi-arch/";
  k.channels.push_back(pip);
  Facts f = box("gfx1151");
  f.identity.passwd = {{"alice", 1000, 1000, "/home/alice", "/bin/bash"}};
  PythonEnv e = wheels_env({}, "2.14.0+rocm7.14", TorchRocm::rocm_wheels);
  e.rocm_wheels = {};
  f.ml.python.push_back(e);
  auto tw = all(diagnose(f, k), FindingId::torch_rocm_wheels);
  ASSERT_EQ(tw.size(), 1u);
  ASSERT_TRUE(tw[0].fix.has_value());
  EXPECT_EQ(tw[0].fix->recipe, "rocm-install");
  const auto& p = std::get<RocmInstallParams>(tw[0].fix->params);
  EXPECT_EQ(p.manager, "pip");
  EXPECT_EQ(p.channel, "therock-pip-7.14");
  EXPECT_EQ(p.release, "7.14");
  EXPECT_EQ(p.python, "/home/alice/venv/bin/python3");
  EXPECT_EQ(p.index_url, "https://repo.amd.com/rocm/whl-multi-arch/");
  EXPECT_EQ(p.install, std::vector<std::string>{"rocm[libraries,device-gfx1151]==7.14.1"});
  EXPECT_EQ(p.run_as, "alice");
  EXPECT_TRUE(tw[0].commands.empty());  // the hand commands are the recipe's
  // Without an index for the series in the knowledge: the hand command stays, no fix.
  auto none = all(diagnose(f, kb()), FindingId::torch_rocm_wheels);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none[0].fix.has_value());
  EXPECT_FALSE(none[0].commands.empty());
}

TEST(RocmChannelRules, WheelsOnlyMachineHasNoRocmMissing) {
  Facts f = box("gfx1151");
  f.ml.python.push_back(wheels_env({gfx("gfx1151")}, "2.14.0+rocm7.14", TorchRocm::rocm_wheels));
  f.rocm.installs.push_back(pip_install(f.ml.python[0]));
  auto out = diagnose(f, kb());
  EXPECT_TRUE(all(out, FindingId::rocm_missing).empty());
  EXPECT_TRUE(all(out, FindingId::rocm_device_missing).empty());
  EXPECT_TRUE(all(out, FindingId::torch_rocm_wheels).empty());
  EXPECT_TRUE(all(out, FindingId::torch_gfx).empty());
}

TEST(RocmChannelRules, DeviceWheelsForAnotherFamilyNameThePackageToAdd) {
  Facts f = box("gfx1151");
  f.ml.python.push_back(wheels_env({gfx("gfx1100"), gfx("gfx1101"), gfx("gfx1102"), gfx("gfx1103")}, "2.12.0+rocm7.14.0",
                                   TorchRocm::amd_device));
  f.ml.python[0].rocm_wheels.torch_device_packages = {"amd-torch-device-gfx110x"};
  f.rocm.installs.push_back(pip_install(f.ml.python[0]));
  auto out = diagnose(f, kb());
  auto dm = all(out, FindingId::rocm_device_missing);
  ASSERT_EQ(dm.size(), 2u);
  EXPECT_EQ(dm[0].severity, Severity::error);
  EXPECT_NE(dm[0].title.find("add rocm-sdk-device-gfx1151"), std::string::npos) << dm[0].title;
  ASSERT_EQ(dm[0].commands.size(), 1u);
  EXPECT_TRUE(dm[0].commands[0].starts_with("/home/alice/venv/bin/python3 -m pip install 'rocm[device-gfx1151]==7.14.1'"))
      << dm[0].commands[0];
  EXPECT_NE(dm[1].title.find("add amd-torch-device-gfx1151"), std::string::npos) << dm[1].title;
  EXPECT_NE(dm[1].commands[0].find("'torch[device-gfx1151]==2.12.0+rocm7.14.0'"), std::string::npos) << dm[1].commands[0];
  EXPECT_EQ(dm[1].gpus, std::vector<int>{0});
}

TEST(RocmChannelRules, SubFamilyDevicePackageCoversItsMembers) {
  Facts f = box("gfx1103");
  f.ml.python.push_back(wheels_env({gfx("gfx1103")}, "2.12.0+rocm7.14.0", TorchRocm::amd_device));
  f.ml.python[0].rocm_wheels.torch_device_packages = {"amd-torch-device-gfx110x"};
  f.rocm.installs.push_back(pip_install(f.ml.python[0]));
  EXPECT_TRUE(all(diagnose(f, kb()), FindingId::rocm_device_missing).empty());
}

TEST(RocmChannelRules, CoreSdkDevicePackageForAnotherTarget) {
  Facts f = box("gfx1151");
  RocmInstall in;
  in.channel = RocmChannel::core_sdk;
  in.path = "/opt/rocm/core-7.14";
  in.version = Version{7, 14, 1};
  in.version_text = "7.14.1";
  in.targets = {gfx("gfx1100")};
  in.device_packages = {"amdrocm7.14-gfx1100"};
  f.rocm.installs.push_back(in);
  auto dm = all(diagnose(f, kb()), FindingId::rocm_device_missing);
  ASSERT_EQ(dm.size(), 1u);
  EXPECT_EQ(dm[0].commands, std::vector<std::string>{"sudo apt install amdrocm7.14-gfx1151"});
}

TEST(RocmChannelRules, Rocm714WheelWithoutTheRocmWheels) {
  Facts f = box("gfx1151");
  PythonEnv e = wheels_env({}, "2.14.0+rocm7.14", TorchRocm::rocm_wheels);
  e.rocm_wheels = {};
  f.ml.python.push_back(e);
  auto out = diagnose(f, kb());
  auto tw = all(out, FindingId::torch_rocm_wheels);
  ASSERT_EQ(tw.size(), 1u);
  EXPECT_EQ(tw[0].severity, Severity::error);
  ASSERT_EQ(tw[0].commands.size(), 1u);
  EXPECT_EQ(tw[0].commands[0], "/home/alice/venv/bin/python3 -m pip install --index-url https://download.pytorch.org/whl/rocm7.14 "
                                 "'rocm[libraries,device-gfx1151]==7.14.*'");
  // A bundled wheel never needs them.
  f.ml.python[0].torch_rocm = TorchRocm::bundled;
  EXPECT_TRUE(all(diagnose(f, kb()), FindingId::torch_rocm_wheels).empty());
}

TEST(RocmChannelRules, RocmMissingIsANoteWhenEveryConsumerBringsItsOwn) {
  Facts f = box("gfx1103");
  f.ml.ollama.installed = true;
  f.ml.ollama.binary = "/usr/local/bin/ollama";
  f.ml.ollama.rocm_dir = "/usr/local/lib/ollama/rocm_v7_2";
  f.ml.ollama.bundled_rocm = Version{7, 2, 1};
  auto missing = all(diagnose(f, kb()), FindingId::rocm_missing);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].severity, Severity::info);
  EXPECT_NE(missing[0].detail.find("ollama (its bundled ROCm 7.2.1 in /usr/local/lib/ollama/rocm_v7_2)"), std::string::npos);
  EXPECT_FALSE(missing[0].fix);
  // A llama.cpp HIP build that loads the system's: a warning again, naming it.
  LlamaBinary b;
  b.path = "/usr/local/bin/llama-server";
  b.backends = {LlamaBackend::hip};
  f.ml.llama.push_back(b);
  missing = all(diagnose(f, kb()), FindingId::rocm_missing);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].severity, Severity::warning);
  EXPECT_NE(missing[0].detail.find("llama.cpp /usr/local/bin/llama-server"), std::string::npos);
}

TEST(RocmChannelRules, SystemRocmProblemSaysWhomItAffects) {
  Facts f = box("gfx1103");
  f.rocm.source = RocmSource::opt_rocm;
  f.rocm.path = "/opt/rocm";
  f.rocm.version = Version{6, 2, 4};
  f.rocm.installed = {"/opt/rocm-6.2.4", "/opt/rocm-6.1.3"};
  f.ml.ollama.installed = true;
  f.ml.ollama.rocm_dir = "/usr/local/lib/ollama/rocm_v7_2";
  f.ml.ollama.bundled_rocm = Version{7, 2, 1};
  auto rv = all(diagnose(f, kb()), FindingId::rocm_version);
  ASSERT_FALSE(rv.empty());
  for (const auto& x : rv) {
    EXPECT_EQ(x.severity, Severity::info) << x.title;
    ASSERT_FALSE(x.notes.empty());
    EXPECT_TRUE(x.notes.front().starts_with("Nothing found here loads the system ROCm: ollama")) << x.notes.front();
  }
  // Nothing found at all: the problem keeps its weight.
  f.ml.ollama = {};
  for (const auto& x : all(diagnose(f, kb()), FindingId::rocm_version)) EXPECT_NE(x.severity, Severity::info) << x.title;
}

TEST(RocmChannelRules, WslListsWhatTheRuntimeEnumerates) {
  Facts f;
  f.os.wsl = f.os.dxg = true;
  f.runtime.hsa.outcome = HsaOutcome::ok;
  HsaAgent cpu;
  cpu.name = "AMD Ryzen 9 7950X";
  cpu.device = HsaDeviceType::cpu;
  f.runtime.hsa.agents.push_back(cpu);
  auto out = diagnose(f, kb());
  EXPECT_TRUE(all(out, FindingId::gpu_none).empty());
  auto w = all(out, FindingId::gpu_wsl);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].severity, Severity::error);
  EXPECT_NE(w[0].notes.at(0).find("torch-directml"), std::string::npos);
  for (const auto& c : w[0].commands) EXPECT_EQ(c.find("lspci"), std::string::npos);
  HsaAgent gpu;
  gpu.name = "gfx1100";
  gpu.marketing_name = "AMD Radeon RX 7900 XTX";
  gpu.device = HsaDeviceType::gpu;
  f.runtime.hsa.agents.push_back(gpu);
  w = all(diagnose(f, kb()), FindingId::gpu_wsl);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].severity, Severity::info);
  EXPECT_EQ(w[0].title, "WSL2: AMD's WSL runtime sees AMD Radeon RX 7900 XTX (gfx1100)");
  // Without /dev/dxg an empty machine is still gpu.none.
  f.os.dxg = false;
  EXPECT_EQ(all(diagnose(f, kb()), FindingId::gpu_none).size(), 1u);
}
