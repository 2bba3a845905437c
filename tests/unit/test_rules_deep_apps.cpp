// deep.llamacpp-* rules with literal facts: a HIP build that lists no ROCm device while an
// AMD GPU is there is an error quoting its output; a list is an info line; no list is a
// warning; a build without a GPU backend, or a machine without a GPU, has nothing missing.
#include <gtest/gtest.h>

#include "rules/rules.hpp"
#include "support/findings.hpp"

using namespace amdml;

namespace {

const Knowledge& kb() {
  static Knowledge k;
  return k;
}

Facts with_gpu() {
  Facts f;
  Gpu g;
  g.kfd_node = 1;
  g.gfx = GfxTarget{11, 0, 0};
  g.marketing_name = "AMD Radeon RX 7900 XTX";
  f.gpus = {g};
  f.ml.probed = true;
  return f;
}

LlamaBinary build(std::vector<LlamaBackend> backends, LlamaDeviceList d) {
  LlamaBinary b;
  b.path = "/home/alice/llama.cpp/build/bin/llama-cli";
  b.backends = std::move(backends);
  b.evidence = "/home/alice/llama.cpp/build/bin/libggml-hip.so";
  b.devices = std::move(d);
  return b;
}

LlamaDevice device(std::string name, std::string backend, std::string description) {
  LlamaDevice d;
  d.name = std::move(name);
  d.backend = std::move(backend);
  d.description = std::move(description);
  d.total_mib = 24560;
  d.free_mib = 24472;
  return d;
}

LlamaDeviceList listed(std::vector<LlamaDevice> devices, std::string output) {
  LlamaDeviceList d;
  d.ran = true;
  d.listed = true;
  d.exit_code = 0;
  d.devices = std::move(devices);
  d.output = std::move(output);
  return d;
}

using test::evidence_text;

std::vector<const Finding*> with_id(const std::vector<Finding>& all, FindingId id) { return test::findings_with_id(all, id); }

}  // namespace

TEST(DeepLlamaRules, AHipBuildListingNoRocmDeviceIsAnErrorQuotingItsOutput) {
  Facts f = with_gpu();
  f.ml.llama = {build({LlamaBackend::hip, LlamaBackend::cpu},
                      listed({}, "Available devices:\nggml_cuda_init: failed to initialize ROCm: no ROCm-capable "
                                 "device is detected"))};
  auto out = diagnose(f, kb());
  auto e = with_id(out, FindingId::deep_llamacpp_no_gpu);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]->severity, Severity::error);
  EXPECT_EQ(e[0]->title, "/home/alice/llama.cpp/build/bin/llama-cli lists no ROCm device");
  EXPECT_EQ(evidence_text(*e[0]),
            "/home/alice/llama.cpp/build/bin/llama-cli --list-devices: Available devices: | ggml_cuda_init: failed to "
            "initialize ROCm: no ROCm-capable device is detected\n");
  EXPECT_EQ(e[0]->gpus, std::vector<int>{0});
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_devices).empty());
}

TEST(DeepLlamaRules, AHipBuildSeeingOnlyVulkanIsAnErrorAndAnInfoLine) {
  Facts f = with_gpu();
  f.ml.llama = {build({LlamaBackend::hip, LlamaBackend::vulkan},
                      listed({device("Vulkan0", "Vulkan", "AMD Radeon RX 7900 XTX (RADV NAVI31)")}, "..."))};
  auto out = diagnose(f, kb());
  auto e = with_id(out, FindingId::deep_llamacpp_no_gpu);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]->title, "/home/alice/llama.cpp/build/bin/llama-cli lists no ROCm device (only Vulkan0)");
  auto i = with_id(out, FindingId::deep_llamacpp_devices);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0]->severity, Severity::info);
}

TEST(DeepLlamaRules, AListIsAnInfoLineWithEachDevice) {
  Facts f = with_gpu();
  f.ml.llama = {build({LlamaBackend::hip}, listed({device("ROCm0", "ROCm", "AMD Radeon RX 7900 XTX"),
                                                   device("Vulkan0", "Vulkan", "AMD Radeon RX 7900 XTX (RADV NAVI31)")},
                                                  "..."))};
  auto out = diagnose(f, kb());
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_no_gpu).empty());
  auto i = with_id(out, FindingId::deep_llamacpp_devices);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0]->title,
            "/home/alice/llama.cpp/build/bin/llama-cli sees ROCm0 (AMD Radeon RX 7900 XTX), Vulkan0 (AMD Radeon RX "
            "7900 XTX (RADV NAVI31))");
  EXPECT_EQ(evidence_text(*i[0]),
            "/home/alice/llama.cpp/build/bin/llama-cli --list-devices: ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, "
            "24472 MiB free)\n/home/alice/llama.cpp/build/bin/llama-cli --list-devices: Vulkan0: AMD Radeon RX 7900 "
            "XTX (RADV NAVI31) (24560 MiB, 24472 MiB free)\n");
}

TEST(DeepLlamaRules, AVulkanBuildListingNothingIsAnError) {
  Facts f = with_gpu();
  f.ml.llama = {build({LlamaBackend::vulkan}, listed({}, "Available devices:"))};
  auto out = diagnose(f, kb());
  auto e = with_id(out, FindingId::deep_llamacpp_no_gpu);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]->title, "/home/alice/llama.cpp/build/bin/llama-cli lists no GPU device");
}

TEST(DeepLlamaRules, NoGpuOrNoGpuBackendHasNothingMissing) {
  Facts none = with_gpu();
  none.gpus.clear();
  none.ml.llama = {build({LlamaBackend::hip}, listed({}, "Available devices:"))};
  EXPECT_TRUE(with_id(diagnose(none, kb()), FindingId::deep_llamacpp_no_gpu).empty());
  Facts cpu = with_gpu();
  cpu.ml.llama = {build({LlamaBackend::cpu}, listed({}, "Available devices:"))};
  auto out = diagnose(cpu, kb());
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_no_gpu).empty());
  EXPECT_EQ(with_id(out, FindingId::llamacpp_no_gpu_backend).size(), 1u);  // that finding says it
}

TEST(DeepLlamaRules, NoListIsAWarningWithTheReasonAndOutput) {
  Facts f = with_gpu();
  LlamaDeviceList d;
  d.ran = true;
  d.exit_code = 1;
  d.error = "exited with code 1 without a device list";
  d.output = "error: invalid argument: --list-devices";
  f.ml.llama = {build({LlamaBackend::hip}, d)};
  auto out = diagnose(f, kb());
  auto w = with_id(out, FindingId::deep_llamacpp_failed);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0]->severity, Severity::warning);
  EXPECT_EQ(w[0]->title,
            "/home/alice/llama.cpp/build/bin/llama-cli --list-devices: exited with code 1 without a device list");
  EXPECT_NE(evidence_text(*w[0]).find(": error: invalid argument: --list-devices\n"), std::string::npos);
  EXPECT_NE(evidence_text(*w[0]).find("(exit code): 1"), std::string::npos);
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_no_gpu).empty());
}

TEST(DeepLlamaRules, WithoutDeepNothingIsSaid) {
  Facts f = with_gpu();
  f.ml.llama = {build({LlamaBackend::hip}, {})};
  f.ml.llama[0].devices.reset();
  auto out = diagnose(f, kb());
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_no_gpu).empty());
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_failed).empty());
  EXPECT_TRUE(with_id(out, FindingId::deep_llamacpp_devices).empty());
}

namespace {

OllamaServer answered(std::string version, std::vector<OllamaLoadedModel> models) {
  OllamaServer s;
  s.address = "127.0.0.1:11434";
  s.address_from = "the default";
  s.answered = s.ps_answered = true;
  s.version = std::move(version);
  s.models = std::move(models);
  return s;
}

}  // namespace

TEST(DeepOllamaRules, AModelWhollyOnTheCpuIsAWarningWithItsNumbers) {
  Facts f = with_gpu();
  f.ml.ollama.server = answered("0.12.3", {{"llama3.1:8b", 5600000000u, 0u}});
  auto out = diagnose(f, kb());
  auto w = with_id(out, FindingId::deep_ollama_cpu);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0]->severity, Severity::warning);
  EXPECT_EQ(w[0]->title, "ollama runs llama3.1:8b on the CPU: none of its 5.2 GiB is in GPU memory");
  EXPECT_EQ(evidence_text(*w[0]),
            "GET http://127.0.0.1:11434/api/ps: llama3.1:8b: size 5600000000, size_vram 0\n"
            "GET http://127.0.0.1:11434/api/version: 0.12.3\n");
  EXPECT_NE(w[0]->detail.find("ollama.discovery"), std::string::npos);
}

TEST(DeepOllamaRules, AModelOnTheGpuOrOfUnknownSizeIsNoWarning) {
  Facts f = with_gpu();
  f.ml.ollama.server = answered("0.12.3", {{"a", 100u, 100u}, {"b", std::nullopt, 0u}, {"c", 0u, 0u}});
  auto out = diagnose(f, kb());
  EXPECT_TRUE(with_id(out, FindingId::deep_ollama_cpu).empty());
  auto i = with_id(out, FindingId::deep_ollama_server);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0]->title, "ollama 0.12.3 answers on 127.0.0.1:11434, 3 models loaded");
}

TEST(DeepOllamaRules, AServerOfAnotherVersionThanTheBinaryIsNamed) {
  Facts f = with_gpu();
  f.ml.ollama.installed = true;
  f.ml.ollama.binary = "/usr/local/bin/ollama";
  f.ml.ollama.version = Version{0, 13, 0};
  f.ml.ollama.version_text = "ollama version is 0.13.0";
  f.ml.ollama.server = answered("0.11.4", {});
  auto out = diagnose(f, kb());
  auto i = with_id(out, FindingId::deep_ollama_server);
  ASSERT_EQ(i.size(), 1u);
  EXPECT_EQ(i[0]->title,
            "ollama 0.11.4 answers on 127.0.0.1:11434, no model loaded; the ollama at /usr/local/bin/ollama is 0.13.0");
  EXPECT_NE(i[0]->detail.find("another build"), std::string::npos);
  f.ml.ollama.server = answered("0.13.0", {});
  auto out_same = diagnose(f, kb());
  auto same = with_id(out_same, FindingId::deep_ollama_server);
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0]->title, "ollama 0.13.0 answers on 127.0.0.1:11434, no model loaded");
}

TEST(DeepOllamaRules, NoAnswerNoFinding) {
  Facts f = with_gpu();
  OllamaServer s;
  s.address = "127.0.0.1:11434";
  s.error = "http://127.0.0.1:11434/api/version: Connection refused";
  f.ml.ollama.server = s;
  auto out = diagnose(f, kb());
  EXPECT_TRUE(with_id(out, FindingId::deep_ollama_server).empty());
  EXPECT_TRUE(with_id(out, FindingId::deep_ollama_cpu).empty());
}
