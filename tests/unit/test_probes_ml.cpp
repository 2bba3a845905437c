// The ML probe against the fixture machines (ml-apu-ollama, ml-dgpu-ollama): what it
// finds on disk and in the recorded commands, and the systemd merge compared with
// `systemd-analyze cat-config` on the same trees.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "formats/fix_params_json.hpp"
#include "formats/ml_outputs.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "formats/systemd_unit.hpp"
#include "probes/service_unit.hpp"
#include "probes/probes.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"

using amdml::test::shipped_knowledge;

using namespace amdml;

namespace {


Facts probe(const std::string& machine, probes::ProbeOptions opts = {}) {
  auto host = platform::make_host(test::fixture(machine));
  EXPECT_TRUE(host.ok()) << (host.ok() ? "" : host.error().message);
  opts.runtime = false;
  const Knowledge& kb = shipped_knowledge();
  return probes::collect_facts(**host, kb, opts);
}

const PythonEnv* env_at(const Facts& f, const std::string& prefix) {
  for (const auto& e : f.ml.python)
    if (e.prefix == prefix) return &e;
  return nullptr;
}

}  // namespace

TEST(MlProbe, ApuOllamaService) {
  auto f = probe("ml-apu-ollama");
  const auto& o = f.ml.ollama;
  EXPECT_TRUE(o.installed);
  EXPECT_EQ(o.binary, "/usr/local/bin/ollama");
  EXPECT_EQ(o.version, (Version{0, 32, 0}));
  EXPECT_EQ(o.rocm_dir, "/usr/local/lib/ollama/rocm_v7_2");
  EXPECT_EQ(o.bundled_rocm, (Version{7, 2, 0}));
  EXPECT_EQ(o.backends, (std::vector<std::string>{"rocm_v7_2", "vulkan"}));
  EXPECT_EQ(o.rocblas_targets.size(), 12u);
  ASSERT_TRUE(o.service);
  const auto& s = *o.service;
  EXPECT_EQ(s.user, "ollama");
  EXPECT_TRUE(s.user_known);
  EXPECT_EQ(s.user_groups, (std::vector<std::string>{"ollama", "video"}));  // not render
  EXPECT_EQ(s.active, "active");
  ASSERT_EQ(s.files.size(), 3u);
  EXPECT_EQ(s.files[1], "/etc/systemd/system/ollama.service.d/10-gfx.conf");  // sorted by name
  // the quoted value keeps its literal quotes; the typo'd line is not applied
  EXPECT_EQ(s.environment.at("HSA_OVERRIDE_GFX_VERSION").value, "\"11.0.3\"");
  EXPECT_EQ(s.environment.at("OLLAMA_HOST").value, "0.0.0.0");
  // the EnvironmentFile= value wins over the Environment= line
  EXPECT_EQ(s.environment.at("OLLAMA_KEEP_ALIVE").value, "-1");
  EXPECT_TRUE(s.environment.at("OLLAMA_KEEP_ALIVE").from_env_file);
  EXPECT_EQ(s.environment.at("OLLAMA_MODELS").value, "/srv/models");
  ASSERT_EQ(s.unknown_keys.size(), 1u);
  EXPECT_EQ(s.unknown_keys[0].key, "Enviroment");
}

// The running service's own environment: the MainPID systemctl names, its
// /proc/PID/environ (NUL-separated). ml-apu-ollama's manifest has no MainPID answer.
TEST(MlProbe, RunningServiceEnvironmentFromItsMainPid) {
  auto f = probe("ollama-780m-restart-pending");
  ASSERT_TRUE(f.ml.ollama.service);
  const auto& s = *f.ml.ollama.service;
  EXPECT_EQ(s.active, "active");
  EXPECT_EQ(s.main_pid, 1843);
  ASSERT_TRUE(s.running_environment);
  // Only the names the rules compare are kept: HOME, PATH, systemd's own are not facts.
  EXPECT_EQ(s.running_environment->count("HOME"), 0u);
  EXPECT_EQ(s.running_environment->count("SYSTEMD_EXEC_PID"), 0u);
  EXPECT_EQ(s.running_environment->count("HSA_OVERRIDE_GFX_VERSION"), 0u);
  EXPECT_EQ(s.environment.at("HSA_OVERRIDE_GFX_VERSION").value, "11.0.0");  // the drop-in says so

  auto other = probe("ml-apu-ollama");
  ASSERT_TRUE(other.ml.ollama.service);
  EXPECT_FALSE(other.ml.ollama.service->main_pid);
  EXPECT_FALSE(other.ml.ollama.service->running_environment);
}

TEST(MlProbe, ApuPythonEnvironments) {
  auto f = probe("ml-apu-ollama");
  const auto* sys = env_at(f, "/usr");
  ASSERT_TRUE(sys);
  EXPECT_EQ(sys->torch_build, TorchBuild::cuda);  // from ~/.local
  EXPECT_EQ(sys->torch_cuda, "12.1");
  const auto* venv = env_at(f, "/home/alice/venv");
  ASSERT_TRUE(venv);
  EXPECT_EQ(venv->kind, "venv");
  EXPECT_EQ(venv->torch_build, TorchBuild::cpu);
  const auto* conda = env_at(f, "/home/alice/miniconda3/envs/rocm");
  ASSERT_TRUE(conda);
  EXPECT_EQ(conda->kind, "conda");
  EXPECT_EQ(conda->torch_build, TorchBuild::rocm);
  EXPECT_EQ(conda->torch_hip, "6.2.41133-dd7f95766");
  EXPECT_EQ(conda->torch_rocblas_targets.size(), 9u);
  EXPECT_FALSE(conda->runtime);  // no --deep
  EXPECT_TRUE(env_at(f, "/home/alice/miniconda3"));  // the conda base itself
}

TEST(MlProbe, DeepReplaysTheRecordedImport) {
  probes::ProbeOptions o;
  o.deep = true;
  auto f = probe("ml-apu-ollama", o);
  const auto* conda = env_at(f, "/home/alice/miniconda3/envs/rocm");
  ASSERT_TRUE(conda && conda->runtime);
  ASSERT_TRUE(conda->runtime->error);
  EXPECT_NE(conda->runtime->error->find("hipErrorNoBinaryForGpu"), std::string::npos);
  // a CPU-only build is not imported: it cannot see the GPU whatever happens
  const auto* venv = env_at(f, "/home/alice/venv");
  ASSERT_TRUE(venv);
  EXPECT_FALSE(venv->runtime);
}

TEST(MlProbe, ApuLlamaAndVulkan) {
  auto f = probe("ml-apu-ollama");
  ASSERT_EQ(f.ml.llama.size(), 2u);
  EXPECT_EQ(f.ml.llama[0].path, "/usr/local/bin/llama-server");
  EXPECT_EQ(f.ml.llama[0].backends, (std::vector<LlamaBackend>{LlamaBackend::vulkan}));
  EXPECT_EQ(f.ml.llama[1].path, "/home/alice/llama.cpp/build/bin/llama-cli");
  EXPECT_EQ(f.ml.llama[1].backends, (std::vector<LlamaBackend>{LlamaBackend::hip}));
  ASSERT_EQ(f.ml.vulkan_icds.size(), 1u);
  EXPECT_EQ(f.ml.vulkan_icds[0].driver, "other");  // lavapipe is not an AMD driver
}

TEST(MlProbe, ApuFindings) {
  auto f = probe("ml-apu-ollama");
  auto fs = diagnose(f, shipped_knowledge());
  std::map<std::string, const Finding*> by;
  for (const auto& x : fs) by.emplace(to_string(x.id), &x);
  ASSERT_TRUE(by.count("ollama.env"));
  const auto& e = *by["ollama.env"];
  EXPECT_NE(e.detail.find("literal quotes"), std::string::npos);
  EXPECT_NE(e.detail.find("Enviroment"), std::string::npos);
  EXPECT_EQ(amdml::formats::fix_params_json(e.fix->params)["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
  EXPECT_EQ(amdml::formats::fix_params_json(e.fix->params)["env"]["OLLAMA_IGPU_ENABLE"], "1");
  ASSERT_TRUE(by.count("ollama.access"));
  EXPECT_EQ(by["ollama.access"]->commands.front(), "sudo usermod -a -G render ollama");
  EXPECT_TRUE(by.count("torch.build"));
  EXPECT_TRUE(by.count("torch.gfx"));
  EXPECT_TRUE(by.count("llamacpp.uma-env"));
  EXPECT_TRUE(by.count("vulkan.no-icd"));
}

TEST(MlProbe, DgpuPackagedOllama) {
  auto f = probe("ml-dgpu-ollama");
  const auto& o = f.ml.ollama;
  EXPECT_EQ(o.binary, "/usr/bin/ollama");
  EXPECT_EQ(o.version, (Version{0, 12, 3}));  // from the "client version is" warning
  EXPECT_FALSE(o.lib_dir);
  ASSERT_TRUE(o.service);
  const auto& s = *o.service;
  EXPECT_EQ(s.unit_path, "/usr/lib/systemd/system/ollama.service");
  EXPECT_EQ(s.active, "inactive");
  EXPECT_EQ(s.supplementary_groups, (std::vector<std::string>{"video"}));
  // /etc's override.conf shadows /run's file of the same name; 20-vendor.conf applies first
  EXPECT_FALSE(s.environment.count("SHADOWED"));
  EXPECT_EQ(s.environment.at("OLLAMA_DEBUG").value, "1");
  EXPECT_EQ(s.environment.at("VENDOR").value, "1");
  EXPECT_EQ(s.environment.at("HSA_OVERRIDE_GFX_VERSION_1").value, "10.3.0");
  ASSERT_EQ(f.ml.llama.size(), 1u);
  EXPECT_EQ(f.ml.llama[0].backends, (std::vector<LlamaBackend>{LlamaBackend::cpu}));  // from the recorded ldd
  const auto* tf = env_at(f, "/home/alice/.venvs/tf");
  ASSERT_TRUE(tf);
  ASSERT_EQ(tf->rocm_packages.size(), 1u);
  EXPECT_EQ(tf->rocm_packages[0].name, "tensorflow-rocm");
  std::map<std::string, bool> libs;
  for (const auto& l : f.ml.rocm_libraries) libs[l.name] = l.present;
  EXPECT_TRUE(libs["rocBLAS"]);
  EXPECT_FALSE(libs["MIOpen"]);
  auto fs = diagnose(f, shipped_knowledge());
  std::set<std::string> ids;
  for (const auto& x : fs) ids.insert(std::string(to_string(x.id)));
  EXPECT_TRUE(ids.count("ollama.env"));  // per-device override, shell-only export
  EXPECT_FALSE(ids.count("ollama.access"));  // ollama is in render and video
  EXPECT_TRUE(ids.count("ml.rocm-libraries"));
  EXPECT_TRUE(ids.count("llamacpp.no-gpu-backend"));
}

// systemd's own view of the same files: `systemd-analyze cat-config --root=DIR
// systemd/system/ollama.service` prints the unit and its drop-ins in the order systemd
// applies them. Parsing those blocks and merging them must give the environment
// load_service() computed through the rooted host.
TEST(MlProbe, MergeMatchesSystemdAnalyze) {
  if (std::system("command -v systemd-analyze >/dev/null 2>&1") != 0) GTEST_SKIP() << "systemd-analyze not installed";
  for (const char* machine : {"ml-apu-ollama", "ml-dgpu-ollama"}) {
    std::string root = test::fixture(machine);
    std::string cmd = "systemd-analyze cat-config --root='" + root + "' systemd/system/ollama.service 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    ASSERT_TRUE(pipe);
    std::string out;
    std::array<char, 4096> buf{};
    while (auto n = fread(buf.data(), 1, buf.size(), pipe.get())) out.append(buf.data(), n);
    // split into "# /path" blocks
    std::vector<std::pair<std::string, std::string>> blocks;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      if (line.starts_with("# " + root + "/")) {
        blocks.emplace_back(line.substr(2 + root.size()), "");
        continue;
      }
      if (!blocks.empty()) blocks.back().second += line + "\n";
    }
    ASSERT_FALSE(blocks.empty()) << machine << ": " << out;
    std::vector<systemd::ParsedUnit> parsed;
    for (const auto& [path, text] : blocks) parsed.push_back(formats::systemd_unit::parse_unit_text(text, path));
    auto theirs = formats::systemd_unit::merge_service(parsed);
    auto host = platform::make_host(root);
    ASSERT_TRUE(host.ok());
    formats::systemd_unit::apply_env_files(theirs, host->get(), [](const void* ctx, const std::string& p) -> Result<std::string> {
      return static_cast<const platform::Host*>(ctx)->read_file(p);
    });
    auto ours = probes::load_service(**host, "ollama.service");
    std::vector<std::string> their_files;
    for (const auto& b : blocks) their_files.push_back(b.first);
    EXPECT_EQ(ours.config.files, their_files) << machine;
    std::map<std::string, std::string> a, b;
    for (const auto& [k, v] : ours.config.environment) a[k] = v.value;
    for (const auto& [k, v] : theirs.environment) b[k] = v.value;
    EXPECT_EQ(a, b) << machine;
    EXPECT_EQ(ours.config.user, theirs.user) << machine;
  }
}

TEST(MlProbe, StrixCleanServiceAndDeepSuccess) {
  probes::ProbeOptions o;
  o.deep = true;
  auto f = probe("ml-strix-ollama", o);
  ASSERT_TRUE(f.ml.ollama.service);
  EXPECT_EQ(f.ml.ollama.service->files, (std::vector<std::string>{"/etc/systemd/system/ollama.service"}));
  const auto* venv = env_at(f, "/home/alice/work/.venv");
  ASSERT_TRUE(venv && venv->runtime);
  EXPECT_TRUE(venv->runtime->ran);
  EXPECT_EQ(venv->runtime->available, true);
  EXPECT_EQ(venv->runtime->device_names, (std::vector<std::string>{"AMD Radeon 8060S"}));
  EXPECT_EQ(venv->runtime->arch_list, (std::vector<std::string>{"gfx1100", "gfx1151", "gfx1200"}));
  EXPECT_FALSE(venv->runtime->error);
  ASSERT_EQ(f.ml.llama.size(), 1u);
  EXPECT_EQ(f.ml.llama[0].backends, (std::vector<LlamaBackend>{LlamaBackend::hip}));  // by ldd: libamdhip64
  // gfx1151 ships natively and is on ollama's iGPU allowlist; the wheel covers it; the
  // unified-memory switch is deliberate on an APU: nothing from the ML rules
  for (const auto& fd : diagnose(f, shipped_knowledge())) {
    auto area = finding_prefix(fd.id);
    EXPECT_TRUE(area != "ollama" && area != "torch" && area != "llamacpp" && area != "vulkan" && area != "ml") << to_string(fd.id);
  }
}

// --deep on the live host runs the interpreter for real, with a time limit: a stand-in
// python3 (a shell script) prints what torch would. (tests/fake_torch plays the whole
// program: test_probes_deep_torch.cpp.)
TEST(MlProbe, LiveDeepRunsTheInterpreter) {
  char tmpl[] = "/tmp/amdml-ml-XXXXXX";
  ASSERT_TRUE(mkdtemp(tmpl));
  std::string dir = tmpl;
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "/bin' '" + dir + "/lib/python3.12/site-packages/torch'").c_str()), 0);
  {
    std::ofstream py(dir + "/bin/python3");
    py << "#!/bin/sh\necho 'AMDML_TORCH {\"available\": false, \"count\": 0, \"error\": \"RuntimeError: No HIP GPUs are available\"}'\n";
    std::ofstream v(dir + "/lib/python3.12/site-packages/torch/version.py");
    v << "__version__ = '2.5.1+rocm6.2'\nhip: Optional[str] = '6.2.41133'\ncuda = None\n";
  }
  ASSERT_EQ(std::system(("chmod +x '" + dir + "/bin/python3'").c_str()), 0);
  auto host = platform::make_host("/");
  ASSERT_TRUE(host.ok());
  probes::ProbeOptions o;
  o.runtime = false;
  o.deep = true;
  o.python = dir;
  Facts f;
  f.ml.probed = true;
  f.identity.user = "nobody-amdml-test";  // no home walk
  amdml::Knowledge kb;
  probes::ProbeContext ctx{**host, kb, o};
  probes::ml(ctx, f);
  probes::deep(ctx, f);  // the torch child runs within the --deep budget (probes/deep_ml.cpp)
  std::system(("rm -rf '" + dir + "'").c_str());
  const auto* e = env_at(f, dir);
  ASSERT_TRUE(e && e->runtime);
  EXPECT_TRUE(e->runtime->ran);
  EXPECT_EQ(e->runtime->available, false);
  EXPECT_EQ(e->runtime->error, "RuntimeError: No HIP GPUs are available");
}

// Under --root nothing runs: a --deep import the manifest did not record is reported as
// not collected, and no torch.runtime verdict is drawn from it.
TEST(MlProbe, DeepNotRecordedIsNotGuessed) {
  probes::ProbeOptions o;
  o.deep = true;
  auto f = probe("ml-dgpu-ollama", o);
  const auto* tf = env_at(f, "/home/alice/.venvs/tf");
  ASSERT_TRUE(tf && tf->runtime && tf->runtime->error);
  EXPECT_FALSE(tf->runtime->ran);
  EXPECT_NE(tf->runtime->error->find("not recorded"), std::string::npos);
  for (const auto& fd : diagnose(f, shipped_knowledge())) EXPECT_NE(fd.id, FindingId::torch_runtime);
}

// The home walk lists only where a tool keeps environments: pyenv's versions/ (each a
// prefix), not the rest of ~/.pyenv (plugins, sources), which holds none.
TEST(MlProbe, PyenvIsSearchedOnlyInVersions) {
  test::TestTree t("ml-apu-ollama");
  t.write("home/alice/.pyenv/versions/3.12.4/bin/python3", "");
  t.write("home/alice/.pyenv/plugins/pyenv-virtualenv/test/venv/pyvenv.cfg", "home = /usr/bin\n");
  auto host = t.host();
  ASSERT_TRUE(host);
  probes::ProbeOptions o;
  o.runtime = false;
  const Facts f = probes::collect_facts(*host, shipped_knowledge(), o);
  const auto* pyenv = env_at(f, "/home/alice/.pyenv/versions/3.12.4");
  ASSERT_TRUE(pyenv);
  EXPECT_EQ(pyenv->kind, "pyenv");
  EXPECT_FALSE(env_at(f, "/home/alice/.pyenv/plugins/pyenv-virtualenv/test/venv"));
  EXPECT_TRUE(env_at(f, "/home/alice/venv"));  // the rest of the walk is unchanged
}
