// The ML-stack rules with literal facts and a literal knowledge base: each finding
// appears when its cause is present, carries the right fix parameters, and stays away
// when the cause is absent.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "formats/fix_params_json.hpp"
#include "rules/rules.hpp"
#include "support/rule_facts.hpp"
#include "support/findings.hpp"

using namespace amdml;

namespace {

using test::find_finding;
using test::gfx;

Knowledge kb() {
  Knowledge k;
  k.gfx.push_back(test::phoenix_gfx());
  GfxInfo navi22;
  navi22.target = gfx("gfx1031");
  navi22.isa = IsaFamily::rdna2;
  navi22.override_to = gfx("gfx1030");
  k.gfx.push_back(navi22);
  GfxInfo vega20;
  vega20.target = gfx("gfx906");
  vega20.isa = IsaFamily::gcn;
  k.gfx.push_back(vega20);
  RocmRelease r62;
  r62.version = {6, 2, 0};
  r62.kernels = {gfx("gfx906"), gfx("gfx908"), gfx("gfx90a"), gfx("gfx1030"), gfx("gfx1100")};
  r62.kernel_min = Version{5, 15, 0};
  r62.pytorch_index = "https://download.pytorch.org/whl/rocm6.2";
  k.rocm.push_back(r62);
  RocmRelease r72;
  r72.version = {7, 2, 0};
  r72.kernels = {gfx("gfx1030"), gfx("gfx1100"), gfx("gfx1103")};
  r72.kernel_min = Version{6, 8, 0};
  r72.pytorch_index = "https://download.pytorch.org/whl/rocm7.2";
  k.rocm.push_back(r72);
  k.pytorch.push_back({"https://download.pytorch.org/whl/rocm6.2", {6, 2, 0}, "2.5.1"});
  k.pytorch.push_back({"https://download.pytorch.org/whl/rocm7.2", {7, 2, 0}, "2.11.0"});
  k.ollama_policy.igpu_allow[gfx("gfx1151")] = Version{0, 30, 1};  // as recipes/knowledge/ollama.toml has it
  // ollama releases, shaped like recipes/knowledge/ollama.toml
  k.ollama.push_back({{0, 5, 8}, Version{0, 18, 0}, {6, 3, 3}, {gfx("gfx906"), gfx("gfx1030"), gfx("gfx1100")}});
  k.ollama.push_back({{0, 18, 0}, Version{0, 31, 2}, {7, 2, 1}, {gfx("gfx1030"), gfx("gfx1100"), gfx("gfx1103")}});
  k.ollama.push_back({{0, 31, 2}, std::nullopt, {7, 2, 1}, {gfx("gfx1030"), gfx("gfx1100")}});
  return k;
}

Gpu gpu(const char* g, bool apu) {
  Gpu x;
  x.gfx = gfx(g);
  x.apu = apu;
  x.kfd_node = 1;
  return x;
}

// An APU box with ollama v0.32.0 (ROCm 7.2 files for gfx1100 only) as a service running as ollama.
Facts apu_box() {
  Facts f;
  f.os.kernel = Version{6, 8, 0};
  f.os.id = "ubuntu";
  f.gpus.push_back(gpu("gfx1103", true));
  f.identity.passwd = {{"alice", 1000, 1000, "/home/alice", "/bin/bash"}, {"ollama", 998, 998, "/usr/share/ollama", "/bin/false"}};
  f.identity.groups = {{"render", 992, {"alice", "ollama"}}, {"video", 44, {"alice"}}, {"ollama", 998, {}}};
  DeviceAccess kfd;
  kfd.path = "/dev/kfd";
  kfd.exists = true;
  kfd.gid = 992;
  kfd.group = "render";
  kfd.mode = 0660;
  f.identity.devices.push_back(kfd);
  f.ml.probed = true;
  auto& o = f.ml.ollama;
  o.installed = true;
  o.binary = "/usr/local/bin/ollama";
  o.version = Version{0, 32, 0};
  o.rocm_dir = "/usr/local/lib/ollama/rocm_v7_2";
  o.bundled_rocm = Version{7, 2, 0};
  o.rocblas_targets = {gfx("gfx1030"), gfx("gfx1100"), gfx("gfx1151")};
  OllamaService s;
  s.unit_path = "/etc/systemd/system/ollama.service";
  s.files = {*s.unit_path};
  s.user = "ollama";
  o.service = s;
  return f;
}

std::vector<Finding> run(const Facts& f, const Knowledge& k) { return diagnose(f, k); }

int count(const std::vector<Finding>& v, const std::string& id) {
  int n = 0;
  for (const auto& x : v) n += to_string(x.id) == id;
  return n;
}

systemd::EnvValue ev(const std::string& v, bool env_file = false) { return {v, "/etc/systemd/system/ollama.service.d/override.conf", 3, env_file}; }

}  // namespace

TEST(MlRules, OllamaApuNeedsOverrideAndIgpuSwitch) {
  auto fs = run(apu_box(), kb());
  const auto* e = find_finding(fs, "ollama.env");
  ASSERT_TRUE(e);
  ASSERT_TRUE(e->fix);
  EXPECT_EQ(e->fix->recipe, "ollama-override");
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["env"]["OLLAMA_IGPU_ENABLE"], "1");
  EXPECT_FALSE(find_finding(fs, "ollama.gfx-unsupported"));
  EXPECT_FALSE(find_finding(fs, "ollama.access"));  // ollama is in render
}

TEST(MlRules, OllamaCorrectServiceHasNoEnvFinding) {
  auto f = apu_box();
  f.ml.ollama.service->environment["HSA_OVERRIDE_GFX_VERSION"] = ev("11.0.0");
  f.ml.ollama.service->environment["OLLAMA_IGPU_ENABLE"] = ev("true");
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.env"));
}

// The unit and drop-in say what the GPU needs, but the running service (its own
// /proc/PID/environ) started before that: a pending restart, an info with no recipe.
TEST(MlRules, OllamaConfiguredButNotRestartedIsPending) {
  auto f = apu_box();
  auto& svc = *f.ml.ollama.service;
  svc.environment["HSA_OVERRIDE_GFX_VERSION"] = ev("11.0.0");
  svc.environment["OLLAMA_IGPU_ENABLE"] = ev("1");
  svc.environment["PATH"] = ev("/usr/local/bin:/usr/bin");
  svc.active = "active";
  svc.main_pid = 1843;
  svc.running_environment = std::map<std::string, std::string>{{"PATH", "/usr/local/bin:/usr/bin"}, {"USER", "ollama"},
                                                               {"HSA_OVERRIDE_GFX_VERSION", "10.3.0"}};
  auto fs = run(f, kb());
  EXPECT_FALSE(find_finding(fs, "ollama.env"));
  const auto* p = find_finding(fs, "ollama.restart-pending");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->severity, Severity::info);
  EXPECT_FALSE(p->fix);
  EXPECT_EQ(p->title, "The ollama service is configured with HSA_OVERRIDE_GFX_VERSION=11.0.0, OLLAMA_IGPU_ENABLE=1: "
                      "it takes effect after a restart");
  ASSERT_EQ(p->commands.size(), 1u);
  EXPECT_EQ(p->commands[0], "sudo systemctl restart ollama");
  bool saw_old = false, saw_unset = false;
  for (const auto& e : p->evidence) {
    saw_old |= e.source == "/proc/1843/environ" && e.value == "HSA_OVERRIDE_GFX_VERSION=10.3.0";
    saw_unset |= e.source == "/proc/1843/environ" && e.value == "OLLAMA_IGPU_ENABLE unset";
  }
  EXPECT_TRUE(saw_old && saw_unset);

  // Restarted: the process has what the unit says (PATH and USER are not GPU settings).
  svc.running_environment = std::map<std::string, std::string>{
      {"PATH", "/usr/bin"}, {"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}, {"OLLAMA_IGPU_ENABLE", "1"}};
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.restart-pending"));

  // A GPU setting the process still has that the unit dropped is pending too.
  svc.running_environment->emplace("ROCR_VISIBLE_DEVICES", "1");
  const auto findings = run(f, kb());  // alive while dropped points into it
  const auto* dropped = find_finding(findings, "ollama.restart-pending");
  ASSERT_TRUE(dropped);
  EXPECT_NE(dropped->title.find("ROCR_VISIBLE_DEVICES unset"), std::string::npos);

  // Unknown without root (EACCES on /proc/PID/environ): nothing is judged.
  svc.running_environment.reset();
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.restart-pending"));
}

// A unit that is wrong is ollama.env's, whatever the process has: one finding, one fix.
TEST(MlRules, OllamaRestartPendingDefersToTheEnvFinding) {
  auto f = apu_box();
  auto& svc = *f.ml.ollama.service;
  svc.active = "active";
  svc.main_pid = 77;
  svc.running_environment = std::map<std::string, std::string>{{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}};
  auto fs = run(f, kb());
  EXPECT_TRUE(find_finding(fs, "ollama.env"));
  EXPECT_FALSE(find_finding(fs, "ollama.restart-pending"));
}

TEST(MlRules, OllamaBeforeV030NeedsNoIgpuSwitch) {
  auto f = apu_box();
  f.ml.ollama.version = Version{0, 24, 0};
  f.ml.ollama.service->environment["HSA_OVERRIDE_GFX_VERSION"] = ev("11.0.0");
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.env"));
}

TEST(MlRules, OllamaQuotedOverrideIsReplaced) {
  auto f = apu_box();
  f.ml.ollama.service->environment["HSA_OVERRIDE_GFX_VERSION"] = ev("\"11.0.3\"");
  f.ml.ollama.service->environment["OLLAMA_IGPU_ENABLE"] = ev("1");
  auto found = run(f, kb());
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e);
  EXPECT_NE(e->detail.find("literal quotes"), std::string::npos);
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
  EXPECT_FALSE(amdml::formats::fix_params_json(e->fix->params)["env"].contains("OLLAMA_IGPU_ENABLE"));
}

TEST(MlRules, OllamaEnvFileValueGetsANote) {
  auto f = apu_box();
  f.ml.ollama.service->environment["HSA_OVERRIDE_GFX_VERSION"] = ev("gfx1100", true);
  auto found = run(f, kb());
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e);
  bool noted = false;
  for (const auto& n : e->notes) noted = noted || n.find("EnvironmentFile=") != std::string::npos;
  EXPECT_TRUE(noted);
  // a drop-in line could not beat the env file: the fix leaves it to the person
  ASSERT_TRUE(e->fix);
  EXPECT_FALSE(amdml::formats::fix_params_json(e->fix->params)["env"].contains("HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["env"]["OLLAMA_IGPU_ENABLE"], "1");
}

TEST(MlRules, OllamaTypoAndPerDeviceAndShellExport) {
  auto f = apu_box();
  f.ml.ollama.version = Version{0, 24, 0};
  auto& s = *f.ml.ollama.service;
  s.unknown_keys.push_back({"Service", "Enviroment", "\"OLLAMA_HOST=0.0.0.0\"", "/etc/x.conf", 4});
  s.environment["HSA_OVERRIDE_GFX_VERSION_1"] = ev("11.0.0");
  f.env["ROCR_VISIBLE_DEVICES"] = "0";
  auto found = run(f, kb());
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e);
  const auto p = amdml::formats::fix_params_json(e->fix->params);
  EXPECT_EQ(p["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
  EXPECT_EQ(p["env"]["OLLAMA_HOST"], "0.0.0.0");       // what the typo'd line meant
  EXPECT_EQ(p["env"]["ROCR_VISIBLE_DEVICES"], "0");    // what the shell had
  EXPECT_EQ(p["unset"], nlohmann::json({"HSA_OVERRIDE_GFX_VERSION_1"}));
  EXPECT_NE(e->detail.find("Enviroment"), std::string::npos);
  EXPECT_NE(e->detail.find("never sees"), std::string::npos);
}

TEST(MlRules, OllamaServiceUserOutsideTheGroup) {
  auto f = apu_box();
  f.identity.groups = {{"render", 992, {"alice"}}, {"ollama", 998, {}}};
  auto found = run(f, kb());
  const auto* a = find_finding(found, "ollama.access");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->fix->recipe, "groups");
  EXPECT_EQ(amdml::formats::fix_params_json(a->fix->params)["user"], "ollama");
  EXPECT_EQ(amdml::formats::fix_params_json(a->fix->params)["groups"], nlohmann::json({"render"}));
  EXPECT_EQ(a->commands.front(), "sudo usermod -a -G render ollama");
  // SupplementaryGroups= grants it too
  f.ml.ollama.service->supplementary_groups = {"render"};
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.access"));
}

TEST(MlRules, OllamaDroppedGfxWithoutOverride) {
  auto f = apu_box();
  f.gpus = {gpu("gfx906", false)};
  auto fs = run(f, kb());
  const auto* u = find_finding(fs, "ollama.gfx-unsupported");
  ASSERT_TRUE(u);
  bool older = false;
  for (const auto& n : u->notes) older = older || n.find("v0.5.8") != std::string::npos;
  EXPECT_TRUE(older);  // the releases that still shipped gfx906
  EXPECT_FALSE(find_finding(fs, "ollama.env"));
}

TEST(MlRules, OllamaTableUsedWithoutLibraries) {
  auto f = apu_box();
  f.ml.ollama.rocblas_targets.clear();
  f.ml.ollama.rocm_dir.reset();
  f.ml.ollama.version = Version{0, 20, 0};  // still ships gfx1103
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.env"));
  f.ml.ollama.version = Version{0, 31, 2};  // dropped it
  EXPECT_TRUE(find_finding(run(f, kb()), "ollama.env"));
}

TEST(MlRules, OllamaDriverTooOld) {
  auto f = apu_box();
  f.os.kernel = Version{6, 5, 0};
  EXPECT_TRUE(find_finding(run(f, kb()), "ollama.driver"));
  f.driver.dkms_version = "6.10.5";  // AMD's driver: not judged by the kernel
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.driver"));
}

TEST(MlRules, MixedGpusGetNoGlobalOverride) {
  auto f = apu_box();
  f.gpus = {gpu("gfx1031", false), gpu("gfx1103", true)};
  f.ml.ollama.rocblas_targets = {gfx("gfx1030"), gfx("gfx1100")};
  auto found = run(f, kb());
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e);
  EXPECT_NE(e->detail.find("different"), std::string::npos);
  EXPECT_FALSE(e->fix && amdml::formats::fix_params_json(e->fix->params)["env"].contains("HSA_OVERRIDE_GFX_VERSION"));
}

// An override in the service is judged per GPU like one anywhere else (issue 28): 10.3.0
// in the drop-in makes the RDNA3 card load RDNA2 code, and the finding says so.
TEST(MlRules, ServiceOverrideOfAnotherFamilyNamesTheCard) {
  auto f = apu_box();
  f.gpus = {gpu("gfx1031", false), gpu("gfx1103", true)};
  f.gpus[1].kfd_node = 2;
  f.gpus[1].marketing_name = "AMD Radeon 780M";
  f.ml.ollama.rocblas_targets = {gfx("gfx1030"), gfx("gfx1100")};
  f.ml.ollama.service->environment["HSA_OVERRIDE_GFX_VERSION"] = ev("10.3.0");
  Knowledge k = kb();
  GfxInfo navi21;  // the override's target, so its family is known
  navi21.target = gfx("gfx1030");
  navi21.isa = IsaFamily::rdna2;
  k.gfx.push_back(navi21);
  auto found = run(f, k);
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e);
  EXPECT_NE(e->detail.find("HSA_OVERRIDE_GFX_VERSION=10.3.0 in /etc/systemd/system/ollama.service.d/override.conf:3 makes "
                           "GPU 1 (AMD Radeon 780M, gfx1103; rdna3) load gfx1030 (rdna2) code"),
            std::string::npos) << e->detail;
  EXPECT_NE(e->detail.find("another ISA family"), std::string::npos) << e->detail;
  // The RDNA2 card it suits is not named as crossing.
  EXPECT_EQ(e->detail.find("gfx1031; rdna2)"), std::string::npos) << e->detail;
}

TEST(MlRules, TorchCpuAndCudaBuilds) {
  auto f = apu_box();
  f.ml.ollama = {};
  PythonEnv cpu;
  cpu.prefix = "/home/alice/venv";
  cpu.interpreter = "/home/alice/venv/bin/python3";
  cpu.torch_path = "/home/alice/venv/lib/python3.12/site-packages/torch";
  cpu.torch_version = "2.5.1+cpu";
  cpu.torch_build = TorchBuild::cpu;
  PythonEnv cuda = cpu;
  cuda.torch_build = TorchBuild::cuda;
  cuda.torch_cuda = "12.1";
  f.ml.python = {cpu, cuda};
  auto fs = run(f, kb());
  EXPECT_EQ(count(fs, "torch.build"), 2);
  const auto* b = find_finding(fs, "torch.build");
  // 7.2 is the newest release covering gfx1103 on kernel 6.8
  EXPECT_EQ(b->commands.front(), "/home/alice/venv/bin/python3 -m pip install --force-reinstall torch --index-url "
                                 "https://download.pytorch.org/whl/rocm7.2");
  f.os.kernel = Version{6, 5, 0};  // too old for 7.2: falls back to 6.2 (gfx1103 via its 11.0.0 override)
  fs = run(f, kb());
  EXPECT_NE(find_finding(fs, "torch.build")->commands.front().find("rocm6.2"), std::string::npos);
}

TEST(MlRules, TorchWheelWithoutTheGfx) {
  auto f = apu_box();
  f.ml.ollama = {};
  PythonEnv e;
  e.prefix = "/home/alice/miniconda3/envs/rocm";
  e.torch_path = e.prefix + "/lib/python3.11/site-packages/torch";
  e.torch_version = "2.5.1+rocm6.2";
  e.torch_hip = "6.2.41133-dd7f95766";
  e.torch_build = TorchBuild::rocm;
  e.torch_rocblas_targets = {gfx("gfx1030"), gfx("gfx1100")};
  f.ml.python = {e};
  auto found = run(f, kb());
  const auto* t = find_finding(found, "torch.gfx");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->fix->recipe, "hsa-override");
  EXPECT_EQ(amdml::formats::fix_params_json(t->fix->params)["value"], "11.0.0");
  // Set for new logins but not in this session: no recipe, a note saying where.
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "11.0.0", "/etc/profile.d/amdml-gpu.sh:3"});
  f.login_env.push_back({"HSA_OVERRIDE_GFX_VERSION", "11.0.0", "/etc/environment.d/90-amdml.conf:3"});
  found = run(f, kb());
  t = find_finding(found, "torch.gfx");
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->fix);
  ASSERT_FALSE(t->notes.empty());
  EXPECT_NE(t->notes.back().find("/etc/profile.d/amdml-gpu.sh:3"), std::string::npos);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";  // the person already maps it
  EXPECT_FALSE(find_finding(run(f, kb()), "torch.gfx"));
}

TEST(MlRules, TorchRocmTooNewForTheKernel) {
  auto f = apu_box();
  f.ml.ollama = {};
  f.os.kernel = Version{6, 5, 0};
  PythonEnv e;
  e.prefix = "/venv";
  e.torch_path = "/venv/lib/python3.12/site-packages/torch";
  e.torch_hip = "7.2.26015";
  e.torch_build = TorchBuild::rocm;
  f.ml.python = {e};
  EXPECT_TRUE(find_finding(run(f, kb()), "torch.rocm-too-new"));
}

TEST(MlRules, DeepErrorIsMappedToItsCause) {
  auto f = apu_box();
  f.ml.ollama = {};
  PythonEnv e;
  e.prefix = "/venv";
  e.torch_path = "/venv/torch";
  e.torch_build = TorchBuild::rocm;
  TorchRuntime rt;
  rt.ran = true;
  rt.error = "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"";
  e.runtime = rt;
  f.ml.python = {e};
  auto found = run(f, kb());
  const auto* t = find_finding(found, "torch.runtime");
  ASSERT_TRUE(t);
  EXPECT_NE(t->detail.find("no code object"), std::string::npos);
  e.runtime->error.reset();
  e.runtime->available = true;
  f.ml.python = {e};
  EXPECT_FALSE(find_finding(run(f, kb()), "torch.runtime"));
}

TEST(MlRules, UnifiedMemoryZeroStillEnables) {
  auto f = apu_box();
  f.ml.ollama = {};
  f.env["GGML_CUDA_ENABLE_UNIFIED_MEMORY"] = "0";
  EXPECT_TRUE(find_finding(run(f, kb()), "llamacpp.uma-env"));
  f.env["GGML_CUDA_ENABLE_UNIFIED_MEMORY"] = "1";  // deliberate, on an APU
  EXPECT_FALSE(find_finding(run(f, kb()), "llamacpp.uma-env"));
  f.gpus = {gpu("gfx1031", false)};  // but not on a discrete GPU
  EXPECT_TRUE(find_finding(run(f, kb()), "llamacpp.uma-env"));
}

TEST(MlRules, LlamaBackendsAndVulkanIcd) {
  auto f = apu_box();
  f.ml.ollama = {};
  f.ml.llama = {{"/usr/bin/llama-cli", {LlamaBackend::cpu}, "ldd"}, {"/usr/local/bin/llama-server", {LlamaBackend::vulkan}, "lib"}};
  auto fs = run(f, kb());
  EXPECT_EQ(count(fs, "llamacpp.no-gpu-backend"), 1);
  EXPECT_TRUE(find_finding(fs, "vulkan.no-icd"));
  f.ml.vulkan_icds = {{"/usr/share/vulkan/icd.d/radeon_icd.x86_64.json", "radv"}};
  EXPECT_FALSE(find_finding(run(f, kb()), "vulkan.no-icd"));
}

TEST(MlRules, FrameworkLibrariesMissing) {
  auto f = apu_box();
  f.ml.ollama = {};
  PythonEnv e;
  e.prefix = "/venv";
  e.rocm_packages = {{"tensorflow-rocm", "2.14.0.600", "/venv/x.dist-info"}};
  f.ml.python = {e};
  f.ml.rocm_libraries = {{"MIOpen", "miopen-hip", false}, {"rocBLAS", "rocblas", true}, {"hipCUB", "hipcub-dev", false}};
  auto found = run(f, kb());
  const auto* l = find_finding(found, "ml.rocm-libraries");
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->commands.front().starts_with("sudo apt install miopen-hip hipcub-dev"));
  for (auto& lib : f.ml.rocm_libraries) lib.present = true;
  EXPECT_FALSE(find_finding(run(f, kb()), "ml.rocm-libraries"));
}

TEST(MlRules, EveryMlIdIsCatalogued) {
  for (const char* id : {"ollama.env", "ollama.access", "ollama.gfx-unsupported", "ollama.driver", "ollama.restart-pending",
                         "torch.build", "torch.gfx",
                         "torch.rocm-too-new", "torch.runtime", "llamacpp.uma-env", "llamacpp.no-gpu-backend",
                         "ml.rocm-libraries", "vulkan.no-icd"}) {
    EXPECT_TRUE(find_finding_spec(id)) << id;
    EXPECT_TRUE(std::ifstream(std::string(AMDML_SOURCE_DIR) + "/docs/findings/" + id + ".md").good()) << id;
  }
}

TEST(MlRules, ShellOnlySettingsThatMatterForThisBox) {
  auto f = apu_box();
  f.gpus = {gpu("gfx1100", false)};  // natively shipped dGPU: neither variable changes anything
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  f.env["OLLAMA_IGPU_ENABLE"] = "1";
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.env"));
  // a GPU amdml knows no override for: the person's own value is carried into the service
  f.gpus = {gpu("gfx1032", false)};
  f.env.erase("OLLAMA_IGPU_ENABLE");
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  f.ml.ollama.service->environment["HSA_OVERRIDE_GFX_VERSION_1"] = ev("10.3.0");
  auto found = run(f, kb());
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e && e->fix);
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["env"]["HSA_OVERRIDE_GFX_VERSION"], "10.3.0");
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["unset"], nlohmann::json({"HSA_OVERRIDE_GFX_VERSION_1"}));
}

TEST(MlRules, StrixHaloIgpuAllowlistByVersion) {
  auto f = apu_box();
  Gpu g;
  g.gfx = gfx("gfx1151");  // not in this knowledge base: integrated by ollama's own sysfs rule
  g.vram = Bytes{512ULL << 20};
  g.gtt = Bytes{96ULL << 30};
  f.gpus = {g};
  f.ml.ollama.version = Version{0, 30, 0};  // dropped every iGPU
  auto found = run(f, kb());
  const auto* e = find_finding(found, "ollama.env");
  ASSERT_TRUE(e && e->fix);
  EXPECT_EQ(amdml::formats::fix_params_json(e->fix->params)["env"], nlohmann::json({{"OLLAMA_IGPU_ENABLE", "1"}}));
  f.ml.ollama.version = Version{0, 30, 1};  // allowlisted gfx1151
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.env"));
  f.gpus[0].gtt = Bytes{1ULL << 30};  // not integrated by the rule, and nothing says it is
  f.ml.ollama.version = Version{0, 30, 0};
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.env"));
}

TEST(MlRules, OllamaServiceUserMissing) {
  auto f = apu_box();
  f.ml.ollama.service->user = "ollama-svc";
  auto found = run(f, kb());
  const auto* a = find_finding(found, "ollama.access");
  ASSERT_TRUE(a);
  EXPECT_NE(a->title.find("does not exist"), std::string::npos);
  EXPECT_FALSE(a->fix);  // creating users is not a recipe
  f.ml.ollama.service->user = "root";
  EXPECT_FALSE(find_finding(run(f, kb()), "ollama.access"));
}
