// The deep steps end to end against the fake HSA runtime (tests/fake_hsa): the child
// (`amdml __deep-hsa STEP`) never allocates past the limit or MemAvailable minus the
// margin, even from a pool that would give more; each scenario of the fake (no code
// object for the ISA, a corrupted copy, a refused allocation, a hang) becomes the right
// finding through the doctor's probes and rules; the time budget holds when a step
// hangs; and Debian's real runtime on this GPU-less machine fails cleanly.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "formats/deep_record.hpp"
#include "platform/host.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "support/cli.hpp"
#include "support/live_probes.hpp"
#include "support/knowledge.hpp"
#include "support/findings.hpp"

using namespace amdml;
using amdml::test::shipped_knowledge;
using nlohmann::json;

namespace {

using test::find_finding;
using test::evidence_text;
const std::string kMeminfo = std::string(AMDML_FAKE_HSA_VARIANTS) + "/../meminfo/16g-12g-available";

using test::ScopedEnv;

std::map<std::string, std::optional<std::string>> fake(const std::string& variant) { return test::fake_hsa(variant); }

// `amdml __deep-hsa ARGS` against a variant; the step it printed, and the fake's log of
// the most each pool held ("held <pool handle> <bytes>").
struct ChildRun {
  DeepStep step;
  std::map<std::uint64_t, std::uint64_t> peak;  // pool handle -> the most held at once
  test::CliRun run;
};

ChildRun deep_child(const std::string& variant, const std::vector<std::string>& args) {
  auto log = std::filesystem::temp_directory_path() / ("amdml-deep-log-" + std::to_string(::getpid()));
  std::filesystem::remove(log);
  auto env = fake(variant);
  env["AMDML_FAKE_HSA_LOG"] = log.string();
  ScopedEnv scoped(env);
  std::vector<std::string> argv = {"__deep-hsa"};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildRun r;
  r.run = test::amdml_run(argv);
  auto doc = json::parse(r.run.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.run.out << r.run.err;
  if (!doc.is_discarded()) {
    auto s = formats::parse_deep_step(doc);
    EXPECT_TRUE(s.ok()) << r.run.out;
    if (s) r.step = *s;
  }
  std::ifstream in(log);
  std::string word;
  std::uint64_t pool = 0, held = 0;
  while (in >> word >> pool >> held) r.peak[pool] = std::max(r.peak[pool], held);
  std::filesystem::remove(log);
  return r;
}

// Pool handles of the apu variant: agent index << 32 | pool index + 1 (fake_hsa.cpp).
constexpr std::uint64_t kCpuFinePool = (1ull << 32) | 2;  // CPU agent, pool 2 (fine-grained)
constexpr std::uint64_t kGpuCoarsePool = (2ull << 32) | 1;  // GPU agent, pool 1 (coarse-grained)

const DeepAlloc* alloc_of(const DeepStep& s, const std::string& pool) {
  for (const auto& a : s.allocs)
    if (a.pool == pool) return &a;
  return nullptr;
}

using DoctorRun = test::LiveRun;

DoctorRun doctor_deep(const std::string& variant, std::chrono::milliseconds budget = std::chrono::milliseconds(20000)) {
  ScopedEnv env(fake(variant));
  probes::ProbeOptions o;
  o.deep = true;
  o.deep_timeout = budget;
  return test::run_live_probes(o);
}

}  // namespace

TEST(DeepChild, GreedyPoolsNeverGiveMoreThanTheLimitOrMemAvailableMinusTheMargin) {
  // The fake's pools would hand out 1 TiB. MemTotal 16 GiB, MemAvailable 12 GiB: the
  // margin is 2 GiB, so nothing sweeps past 10 GiB of system memory; the system pool's
  // target is the 6 GiB the GTT/TTM limit promises; the APU's VRAM pool aims for the
  // larger of its 16 GiB and that limit, and is bounded by MemAvailable too.
  auto r = deep_child("deep-greedy", {"memory", "--agent", "0", "--system-limit", std::to_string(6 * kGiB), "--apu",
                                      "--meminfo", kMeminfo, "--timeout-ms", "20000"});
  ASSERT_EQ(r.step.outcome, DeepOutcome::ok) << r.run.out << r.run.err;
  const DeepAlloc* vram = alloc_of(r.step, "vram");
  const DeepAlloc* sys = alloc_of(r.step, "system");
  ASSERT_TRUE(vram && sys);
  EXPECT_EQ(vram->target.value, 16 * kGiB);
  EXPECT_EQ(vram->bound->value, 10 * kGiB);
  EXPECT_EQ(vram->mem_available->value, 12 * kGiB);
  EXPECT_EQ(vram->allocated.value, 10 * kGiB);
  EXPECT_EQ(vram->stop, DeepAllocStop::meminfo);
  EXPECT_EQ(sys->target.value, 6 * kGiB);
  EXPECT_EQ(sys->allocated.value, 6 * kGiB);
  EXPECT_EQ(sys->stop, DeepAllocStop::target);
  // What the fake saw: never more than the bounds at any moment, and all of it freed
  // before the next pool (each pool's peak is its own sweep).
  EXPECT_EQ(r.peak[kGpuCoarsePool], 10 * kGiB);
  EXPECT_EQ(r.peak[kCpuFinePool], 6 * kGiB);
}

TEST(DeepChild, SystemSweepStopsAtMemAvailableWhenTheLimitIsLarger) {
  auto r = deep_child("deep-greedy", {"memory", "--agent", "0", "--system-limit", std::to_string(64 * kGiB),
                                      "--meminfo", kMeminfo, "--timeout-ms", "20000"});
  const DeepAlloc* vram = alloc_of(r.step, "vram");
  const DeepAlloc* sys = alloc_of(r.step, "system");
  ASSERT_TRUE(vram && sys) << r.run.out;
  // Not an APU: the VRAM pool is its own memory, swept to its size and no further.
  EXPECT_EQ(vram->allocated.value, 16 * kGiB);
  EXPECT_FALSE(vram->bound.has_value());
  EXPECT_EQ(sys->allocated.value, 10 * kGiB);
  EXPECT_EQ(sys->stop, DeepAllocStop::meminfo);
  EXPECT_LE(r.peak[kCpuFinePool], 10 * kGiB);
  EXPECT_LE(r.peak[kGpuCoarsePool], 16 * kGiB);
}

TEST(DeepChild, RefusedAllocationIsRecordedWithTheStatus) {
  auto r = deep_child("deep-alloc-short", {"memory", "--meminfo", kMeminfo, "--timeout-ms", "20000"});
  EXPECT_EQ(r.step.outcome, DeepOutcome::failed);
  const DeepAlloc* vram = alloc_of(r.step, "vram");
  ASSERT_TRUE(vram);
  EXPECT_EQ(vram->stop, DeepAllocStop::error);
  EXPECT_EQ(vram->error, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  EXPECT_EQ(vram->allocated.value, 512ull << 20);  // 1 GiB chunks do not fit; the fake's 512 MiB are reached by none
}

TEST(DeepChild, CopyChecksumsAndTimesBothWays) {
  auto ok = deep_child("deep-ok", {"copy", "--timeout-ms", "20000"});
  ASSERT_EQ(ok.step.outcome, DeepOutcome::ok) << ok.run.out << ok.run.err;
  EXPECT_EQ(ok.step.data_ok, true);
  EXPECT_EQ(ok.step.bytes->value, 64ull << 20);
  EXPECT_GT(*ok.step.h2d_gbps, 0.0);
  EXPECT_GT(*ok.step.d2h_gbps, 0.0);

  auto bad = deep_child("deep-corrupt", {"copy", "--timeout-ms", "20000"});
  EXPECT_EQ(bad.step.outcome, DeepOutcome::failed);
  EXPECT_EQ(bad.step.data_ok, false);
  EXPECT_EQ(bad.step.mismatch_at, 4097u);
}

TEST(DeepChild, FillReadsBackOrNamesTheRuntimeError) {
  auto ok = deep_child("deep-ok", {"fill", "--timeout-ms", "20000"});
  ASSERT_EQ(ok.step.outcome, DeepOutcome::ok) << ok.run.out << ok.run.err;
  EXPECT_EQ(ok.step.data_ok, true);

  auto isa = deep_child("deep-fill-isa", {"fill", "--timeout-ms", "20000"});
  EXPECT_EQ(isa.step.outcome, DeepOutcome::failed);
  EXPECT_EQ(isa.step.call, "hsa_amd_memory_fill");
  EXPECT_EQ(isa.step.error, "HSA_STATUS_ERROR_INVALID_ISA");
  EXPECT_NE(isa.run.err.find("no code object for ISA"), std::string::npos);
}

TEST(DeepChild, ACopyThatNeverCompletesEndsWithinTheChildsTime) {
  auto start = std::chrono::steady_clock::now();
  auto r = deep_child("deep-copy-hang", {"copy", "--timeout-ms", "1500"});
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.step.outcome, DeepOutcome::failed);
  EXPECT_EQ(r.step.call, "hsa_signal_wait_scacquire");
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST(DeepDoctor, EachScenarioGivesItsFinding) {
  auto isa = doctor_deep("deep-fill-isa");
  ASSERT_EQ(isa.facts.deep.gpus.size(), 1u) << isa.facts.deep.reason;
  const Finding* fill = find_finding(isa.findings, FindingId::deep_fill_failed);
  ASSERT_NE(fill, nullptr);
  EXPECT_NE(evidence_text(*fill).find("no code object for ISA amdgcn-amd-amdhsa--gfx1103"), std::string::npos)
      << evidence_text(*fill);
  ASSERT_TRUE(isa.recorded.count("deep"));
  EXPECT_EQ(isa.recorded["deep"]["gpus"][0]["steps"][2]["error"], "HSA_STATUS_ERROR_INVALID_ISA");

  auto corrupt = doctor_deep("deep-corrupt");
  EXPECT_NE(find_finding(corrupt.findings, FindingId::deep_copy_failed), nullptr);

  auto ok = doctor_deep("deep-ok");
  const Finding* v = find_finding(ok.findings, FindingId::deep_verified);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->title.find("ran the runtime's fill kernel"), std::string::npos) << v->title;
  EXPECT_EQ(find_finding(ok.findings, FindingId::deep_step_failed), nullptr);
}

TEST(DeepDoctor, AllocationRefusedBelowThePoolIsAllocShort) {
  auto r = doctor_deep("deep-alloc-short");
  const Finding* fd = find_finding(r.findings, FindingId::deep_alloc_short);
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->title.find("gave 512 MiB"), std::string::npos) << fd->title;
}

TEST(DeepDoctor, TheBudgetHoldsWhenTheFillHangs) {
  // The fill never returns. Whatever the machine's speed, the run ends within the budget
  // (plus the kill and the reap), the budget is marked spent, and the step that hung or
  // could not start is a finding.
  auto r = doctor_deep("deep-fill-hang", std::chrono::milliseconds(4000));
  ASSERT_EQ(r.facts.deep.gpus.size(), 1u);
  const auto& steps = r.facts.deep.gpus[0].steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_TRUE(r.facts.deep.budget_spent);
  EXPECT_LE(r.facts.deep.elapsed_ms, 4000u + 1000u);
  EXPECT_NE(steps[2].outcome, DeepOutcome::ok);
  if (steps[2].outcome == DeepOutcome::timed_out) {
    EXPECT_EQ(steps[2].last_step, "hsa_amd_memory_fill");
  }
  const Finding* fd = find_finding(r.findings, FindingId::deep_step_failed);
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->title.find(steps[2].outcome == DeepOutcome::timed_out ? "fill step did not finish" : "not run"),
            std::string::npos)
      << fd->title;
}

TEST(DeepDoctor, DebiansRuntimeWithoutKfdSaysSoCleanly) {
  const std::string debian = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";
  if (!std::filesystem::exists(debian) || std::filesystem::exists("/dev/kfd"))
    GTEST_SKIP() << "needs Debian's libhsa-runtime64-1 and no /dev/kfd";
  ScopedEnv env({{"AMDML_HSA_LIBRARY", debian}, {"AMDML_FAKE_HSA", std::nullopt}});
  // The step's own child: hsa_init fails, and the step says which status.
  auto child = test::amdml_run({"__deep-hsa", "fill", "--timeout-ms", "8000"});
  auto doc = json::parse(child.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << child.out << child.err;
  EXPECT_EQ(doc["status"], "init-failed");
  EXPECT_EQ(doc["error"], "HSA_STATUS_ERROR_OUT_OF_RESOURCES");
  // The doctor: the runtime probe fails first, so no step is started, and the reason says so.
  auto live = platform::make_host("/");
  probes::ProbeOptions o;
  o.runtime_helper = AMDML_BINARY;
  o.deep = true;
  Facts f = probes::collect_facts(**live, shipped_knowledge(), o);
  EXPECT_TRUE(f.deep.gpus.empty());
  EXPECT_EQ(f.deep.reason, "the HSA runtime did not start (init-failed), so nothing ran on a GPU");
}
