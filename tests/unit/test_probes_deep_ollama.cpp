// doctor --deep's questions to a running ollama, live against a server the test starts on
// 127.0.0.1 (support/loopback_server.hpp) and names with OLLAMA_HOST: the version and the
// loaded models are read, a model partly in system memory is a warning with its numbers,
// the answer is recorded for snapshots, a silent server costs its limit and no more, and
// without --deep nothing connects.
#include <gtest/gtest.h>

#include <cstdlib>

#include "platform/host.hpp"
#include "platform/host_recording.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "support/knowledge.hpp"
#include "support/findings.hpp"
#include "support/loopback_server.hpp"
#include "support/recorded_probes.hpp"

using namespace amdml;

namespace {

constexpr const char* kPs = R"({"models":[
  {"name":"llama3.2:3b","model":"llama3.2:3b","size":3565551616,"size_vram":3565551616,"digest":"a80c4f17acd5",
   "details":{"format":"gguf","family":"llama","parameter_size":"3.2B","quantization_level":"Q4_K_M"},
   "expires_at":"2026-11-26T09:00:00Z"},
  {"name":"qwen3:30b","model":"qwen3:30b","size":19327352832,"size_vram":8589934592,"expires_at":"2026-11-26T09:00:00Z"}]})";

using Run = test::RecordedRun;

Run doctor_asking(int port, bool deep, std::chrono::milliseconds budget = std::chrono::milliseconds(20000)) {
  test::ScopedEnv env({{"OLLAMA_HOST", "127.0.0.1:" + std::to_string(port)}});
  probes::ProbeOptions o;
  o.deep = deep;
  o.deep_timeout = budget;
  o.runtime = false;
  return test::run_recorded_probes(o);
}

std::vector<const Finding*> with_id(const std::vector<Finding>& all, FindingId id) { return test::findings_with_id(all, id); }

}  // namespace

TEST(DeepOllama, TheRunningServerIsAskedAndRecorded) {
  test::LoopbackServer server({{"/api/version", {200, R"({"version":"0.12.3"})", false}}, {"/api/ps", {200, kPs, false}}});
  ASSERT_TRUE(server.ok());
  auto r = doctor_asking(server.port(), true);
  ASSERT_TRUE(r.facts.ml.ollama.server);
  const OllamaServer& s = *r.facts.ml.ollama.server;
  EXPECT_EQ(s.address, "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(s.address_from, "OLLAMA_HOST in the environment");
  EXPECT_TRUE(s.answered);
  EXPECT_EQ(s.version, "0.12.3");
  ASSERT_EQ(s.models.size(), 2u);
  EXPECT_EQ(s.models[1].size_vram, 8589934592u);
  EXPECT_EQ(server.requests(), (std::vector<std::string>{"GET /api/version HTTP/1.0", "GET /api/ps HTTP/1.0"}));
  auto info = with_id(r.findings, FindingId::deep_ollama_server);
  ASSERT_EQ(info.size(), 1u);
  EXPECT_EQ(info[0]->title, "ollama 0.12.3 answers on " + s.address + ", 2 models loaded");
  auto cpu = with_id(r.findings, FindingId::deep_ollama_cpu);
  ASSERT_EQ(cpu.size(), 1u);  // llama3.2 is wholly on the GPU
  EXPECT_EQ(cpu[0]->severity, Severity::warning);
  EXPECT_EQ(cpu[0]->title, "ollama holds qwen3:30b partly in system memory: 8 GiB of 18 GiB on the GPU");
  EXPECT_EQ(cpu[0]->evidence[0].value, "qwen3:30b: size 19327352832, size_vram 8589934592");
  // A snapshot keeps the answer, so a --root replay sees it without a server.
  auto rec = r.recording.facts.find("ollama_server");
  ASSERT_NE(rec, r.recording.facts.end());
  EXPECT_EQ(rec->second["version"], "0.12.3");
}

TEST(DeepOllama, WithoutDeepNothingConnects) {
  test::LoopbackServer server({{"/api/version", {200, R"({"version":"0.12.3"})", false}}, {"/api/ps", {200, kPs, false}}});
  ASSERT_TRUE(server.ok());
  auto r = doctor_asking(server.port(), false);
  EXPECT_FALSE(r.facts.ml.ollama.server);
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(r.recording.facts.count("ollama_server"), 0u);
}

TEST(DeepOllama, ASilentServerCostsItsLimitAndSaysNothing) {
  test::LoopbackServer server({{"/api/version", {200, "", true}}});
  ASSERT_TRUE(server.ok());
  auto r = doctor_asking(server.port(), true, std::chrono::milliseconds(3000));
  EXPECT_LT(r.took.count(), 3000 + 2000);
  ASSERT_TRUE(r.facts.ml.ollama.server);
  EXPECT_FALSE(r.facts.ml.ollama.server->answered);
  ASSERT_TRUE(r.facts.ml.ollama.server->error);
  EXPECT_NE(r.facts.ml.ollama.server->error->find("time limit"), std::string::npos) << *r.facts.ml.ollama.server->error;
  EXPECT_TRUE(with_id(r.findings, FindingId::deep_ollama_server).empty());
}

TEST(DeepOllama, NotJsonIsAnErrorNotAFinding) {
  test::LoopbackServer server({{"/api/version", {200, "<html>hello</html>", false}}});
  ASSERT_TRUE(server.ok());
  auto r = doctor_asking(server.port(), true);
  ASSERT_TRUE(r.facts.ml.ollama.server);
  EXPECT_FALSE(r.facts.ml.ollama.server->answered);
  EXPECT_NE(r.facts.ml.ollama.server->error->find("/api/version"), std::string::npos);
  EXPECT_TRUE(with_id(r.findings, FindingId::deep_ollama_server).empty());
  EXPECT_EQ(server.requests().size(), 1u);  // /api/ps is not asked after a bad /api/version
}
