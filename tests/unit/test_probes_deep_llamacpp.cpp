// doctor --deep's llama.cpp child end to end against the fake llama-cli
// (tests/fake_llama): copied into a temporary directory with an empty libggml-hip.so
// beside it, that directory first on PATH, the probes run live through the recording
// host `amdml snapshot` uses. Each scenario gives its facts and finding; the hang costs
// the budget, never more; the command and its output are recorded for --root replays;
// nothing is written beside the build; without --deep it is not run at all.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "platform/host_recording.hpp"
#include "platform/host.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "support/fixtures.hpp"
#include "support/knowledge.hpp"
#include "support/recorded_probes.hpp"
#include "support/tree.hpp"

using namespace amdml;
namespace fs = std::filesystem;

namespace {

// The fake build in a temporary directory; removed when it ends.
class FakeLlamaBuild {
 public:
  FakeLlamaBuild() {
    char tmpl[] = "/tmp/amdml-fake-llama-XXXXXX";
    if (!::mkdtemp(tmpl)) return;
    dir_ = tmpl;
    fs::copy_file(test::source_path("tests/fake_llama/llama-cli"), dir_ / "llama-cli");
    fs::permissions(dir_ / "llama-cli", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
    std::ofstream(dir_ / "libggml-hip.so");
  }
  ~FakeLlamaBuild() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir() const { return dir_.string(); }
  std::string cli() const { return (dir_ / "llama-cli").string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  fs::path dir_;
};

using Run = test::RecordedRun;

Run doctor_with(const FakeLlamaBuild& build, const std::string& scenario, std::chrono::milliseconds budget,
                bool deep = true) {
  const char* path = std::getenv("PATH");
  test::ScopedEnv env({{"AMDML_FAKE_LLAMA", scenario},
                       {"PATH", build.dir() + ":" + (path ? path : "/usr/bin:/bin")}});
  probes::ProbeOptions o;
  o.deep = deep;
  o.deep_timeout = budget;
  o.runtime = false;  // the HSA steps are tested in test_probes_deep.cpp
  return test::run_recorded_probes(o);
}

const LlamaBinary* binary(const Facts& f, const std::string& path) {
  for (const auto& b : f.ml.llama)
    if (b.path == path) return &b;
  return nullptr;
}

const Finding* about(const std::vector<Finding>& all, FindingId id, const std::string& path) {
  for (const auto& f : all)
    if (f.id == id && f.title.find(path) != std::string::npos) return &f;
  return nullptr;
}

}  // namespace

TEST(DeepLlama, TheDeviceListIsReadAndRecorded) {
  FakeLlamaBuild build;
  auto before = build.names();
  auto r = doctor_with(build, "ok", std::chrono::milliseconds(20000));
  const LlamaBinary* b = binary(r.facts, build.cli());
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->devices);
  EXPECT_TRUE(b->devices->listed) << b->devices->output;
  ASSERT_EQ(b->devices->devices.size(), 2u);
  EXPECT_EQ(b->devices->devices[0].name, "ROCm0");
  EXPECT_EQ(b->devices->devices[1].description, "AMD Radeon RX 7900 XTX (RADV NAVI31)");
  EXPECT_GT(b->devices->timeout_ms, 0u);
  const Finding* info = about(r.findings, FindingId::deep_llamacpp_devices, build.cli());
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->title, build.cli() + " sees ROCm0 (AMD Radeon RX 7900 XTX), Vulkan0 (AMD Radeon RX 7900 XTX (RADV NAVI31))");
  // The snapshot keeps the command and its output, so a --root replay sees the same list.
  auto it = r.recording.commands.find(build.cli() + " --list-devices");
  ASSERT_NE(it, r.recording.commands.end());
  ASSERT_TRUE(it->second.result);
  EXPECT_NE(it->second.result->out.find("ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)"), std::string::npos);
  EXPECT_EQ(build.names(), before);  // nothing written beside the build
}

TEST(DeepLlama, NoDeviceIsAnEmptyListWithGgmlsOwnWords) {
  FakeLlamaBuild build;
  auto r = doctor_with(build, "none", std::chrono::milliseconds(20000));
  const LlamaBinary* b = binary(r.facts, build.cli());
  ASSERT_TRUE(b && b->devices);
  EXPECT_TRUE(b->devices->listed);
  EXPECT_TRUE(b->devices->devices.empty());
  EXPECT_NE(b->devices->output.find("no ROCm-capable device is detected"), std::string::npos) << b->devices->output;
  EXPECT_EQ(about(r.findings, FindingId::deep_llamacpp_devices, build.cli()), nullptr);
  // With an AMD GPU in the facts (this machine may have none), the same facts are the error.
  Facts f = r.facts;
  Gpu g;
  g.gfx = GfxTarget{11, 0, 0};
  f.gpus = {g};
  auto with_gpu = diagnose(f, test::shipped_knowledge());
  const Finding* e = about(with_gpu, FindingId::deep_llamacpp_no_gpu, build.cli());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->severity, Severity::error);
}

TEST(DeepLlama, GarbageIsNoListAndAWarning) {
  FakeLlamaBuild build;
  auto r = doctor_with(build, "garbage", std::chrono::milliseconds(20000));
  const LlamaBinary* b = binary(r.facts, build.cli());
  ASSERT_TRUE(b && b->devices);
  EXPECT_FALSE(b->devices->listed);
  EXPECT_EQ(b->devices->error, "printed no \"Available devices:\" list");
  const Finding* w = about(r.findings, FindingId::deep_llamacpp_failed, build.cli());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, Severity::warning);
}

TEST(DeepLlama, TheBudgetHoldsWhenItHangs) {
  FakeLlamaBuild build;
  auto r = doctor_with(build, "hang", std::chrono::milliseconds(3000));
  // Killed with its process group at what is left of the 3 s budget; the kill and the reap add little.
  EXPECT_LT(r.took.count(), 3000 + 2000);
  EXPECT_TRUE(r.facts.deep.budget_spent);
  const LlamaBinary* b = binary(r.facts, build.cli());
  ASSERT_TRUE(b && b->devices);
  EXPECT_TRUE(b->devices->timed_out);
  EXPECT_FALSE(b->devices->listed);  // the header came, the list never finished
  const Finding* w = about(r.findings, FindingId::deep_llamacpp_failed, build.cli());
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->title.find("did not finish"), std::string::npos) << w->title;
}

TEST(DeepLlama, WithoutDeepItIsNotRun) {
  FakeLlamaBuild build;
  auto r = doctor_with(build, "ok", std::chrono::milliseconds(20000), false);
  const LlamaBinary* b = binary(r.facts, build.cli());
  ASSERT_NE(b, nullptr);  // found as a file
  EXPECT_FALSE(b->devices);
  EXPECT_EQ(r.recording.commands.count(build.cli() + " --list-devices"), 0u);
}

namespace {

// The deep-780m-torch fixture replayed with --deep (nothing runs under --root).
Facts replay_deep(const std::string& root) {
  auto host = platform::make_host(root);
  EXPECT_TRUE(host);
  probes::ProbeOptions o;
  o.deep = true;
  o.runtime = false;
  return probes::collect_facts(**host, test::shipped_knowledge(), o);
}

}  // namespace

TEST(DeepLlama, ARootReplayReadsTheRecordedListAndNeverGuesses) {
  test::TestTree tree("deep-780m-torch");
  auto f = replay_deep(tree.dir.string());
  const LlamaBinary* hip = binary(f, "/home/alice/llama.cpp/build/bin/llama-cli");
  ASSERT_TRUE(hip && hip->devices);
  ASSERT_EQ(hip->devices->devices.size(), 1u);
  EXPECT_EQ(hip->devices->devices[0].total_mib, 512u);
  const LlamaBinary* server = binary(f, "/home/alice/llama.cpp/build/bin/llama-server");
  ASSERT_NE(server, nullptr);
  EXPECT_FALSE(server->devices);  // one child per build: its llama-cli answered
  // A snapshot taken before amdml asked has no answer: nothing is known, no finding.
  auto manifest = nlohmann::json::parse(test::read_file(tree.dir / "amdml-host.json"));
  manifest["commands"].erase("/home/alice/.local/bin/llama-server --list-devices");
  test::write_file(tree.dir / "amdml-host.json", manifest.dump(2));
  auto without = replay_deep(tree.dir.string());
  const LlamaBinary* vulkan = binary(without, "/home/alice/.local/bin/llama-server");
  ASSERT_NE(vulkan, nullptr);
  EXPECT_FALSE(vulkan->devices);
  auto findings = diagnose(without, test::shipped_knowledge());
  EXPECT_EQ(about(findings, FindingId::deep_llamacpp_failed, "/home/alice/.local/bin/llama-server"), nullptr);
  EXPECT_EQ(about(findings, FindingId::deep_llamacpp_no_gpu, "/home/alice/.local/bin/llama-server"), nullptr);
}
