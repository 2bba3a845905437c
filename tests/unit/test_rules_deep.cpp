// deep.* rules and the --require compute gate with literal facts: each way a deep step
// can end maps to its finding, naming the runtime's error and the likely cause.
#include <gtest/gtest.h>

#include "amdml/check.hpp"
#include "amdml/report.hpp"
#include "rules/rules.hpp"
#include "support/findings.hpp"

using namespace amdml;

namespace {

using test::findings_with_id;
using test::evidence_text;

const Knowledge& kb() {
  static Knowledge k;
  return k;
}

// A Radeon 780M APU (gfx1103) with a 512 MiB carve-out, on the given kernel.
Facts apu(Version kernel) {
  Facts f;
  Gpu g;
  g.kfd_node = 1;
  g.gfx = GfxTarget{11, 0, 3};
  g.marketing_name = "AMD Radeon 780M";
  g.apu = true;
  g.vram = Bytes{512ull << 20};
  g.gtt = Bytes{24 * kGiB};
  f.gpus = {g};
  f.os.kernel = kernel;
  f.os.kernel_release = kernel.str() + "-generic";
  f.deep.asked = true;
  return f;
}

DeepGpu one_gpu(std::vector<DeepStep> steps) {
  DeepGpu g;
  g.gpu = 0;
  g.name = "gfx1103";
  g.steps = std::move(steps);
  return g;
}

DeepStep step(DeepStepKind k, DeepOutcome o) {
  DeepStep s;
  s.kind = k;
  s.outcome = o;
  return s;
}

DeepStep good_memory() {
  DeepStep s = step(DeepStepKind::memory, DeepOutcome::ok);
  DeepAlloc a;
  a.pool = "vram";
  a.target = a.allocated = Bytes{24 * kGiB};
  a.chunk = Bytes{kGiB};
  s.allocs = {a};
  return s;
}

DeepStep good_copy() {
  DeepStep s = step(DeepStepKind::copy, DeepOutcome::ok);
  s.bytes = Bytes{256ull << 20};
  s.h2d_gbps = 41.3;
  s.d2h_gbps = 38.5;
  s.data_ok = true;
  return s;
}

}  // namespace

TEST(DeepRules, AllStepsPassGiveOneInfoLineWithTheBandwidth) {
  Facts f = apu(Version{6, 17, 0});
  f.deep.gpus = {one_gpu({good_memory(), good_copy(), step(DeepStepKind::fill, DeepOutcome::ok)})};
  auto out = diagnose(f, kb());
  auto v = findings_with_id(out, FindingId::deep_verified);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->severity, Severity::info);
  EXPECT_EQ(v[0]->title,
            "GPU 0 (AMD Radeon 780M, gfx1103): allocated 24 GiB (vram), copied at 41.3 GB/s to the GPU, 38.5 GB/s "
            "back, ran the runtime's fill kernel");
  EXPECT_EQ(v[0]->gpus, std::vector<int>{0});
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_fill_failed).empty());
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_alloc_short).empty());
}

TEST(DeepRules, AllocationStoppedAtTheCarveOutOnAnOldKernelNamesIt) {
  Facts f = apu(Version{6, 8, 0});
  DeepStep s = step(DeepStepKind::memory, DeepOutcome::failed);
  DeepAlloc a;
  a.pool = "vram";
  a.target = Bytes{24 * kGiB};
  a.allocated = Bytes{512ull << 20};
  a.chunk = Bytes{kGiB};
  a.stop = DeepAllocStop::error;
  a.error = "HSA_STATUS_ERROR_OUT_OF_RESOURCES";
  s.allocs = {a};
  f.deep.gpus = {one_gpu({s})};
  auto out = diagnose(f, kb());
  auto v = findings_with_id(out, FindingId::deep_alloc_short);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->severity, Severity::warning);
  EXPECT_NE(v[0]->title.find("gave 512 MiB of the 24 GiB"), std::string::npos) << v[0]->title;
  EXPECT_NE(v[0]->detail.find("carve-out"), std::string::npos);
  EXPECT_NE(v[0]->detail.find("Linux 6.10"), std::string::npos);
  EXPECT_NE(v[0]->detail.find("This kernel is 6.8.0."), std::string::npos) << v[0]->detail;
  EXPECT_NE(v[0]->detail.find("HSA_STATUS_ERROR_OUT_OF_RESOURCES"), std::string::npos);
  // The refused pool is not claimed as proved; the system pool that gave all it promised is.
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_verified).empty());
  DeepAlloc sys = a;
  sys.pool = "system";
  sys.allocated = sys.target;
  sys.stop = DeepAllocStop::target;
  sys.error.reset();
  f.deep.gpus[0].steps[0].allocs.push_back(sys);
  auto out2 = diagnose(f, kb());
  auto v2 = findings_with_id(out2, FindingId::deep_verified);
  ASSERT_EQ(v2.size(), 1u);
  EXPECT_EQ(v2[0]->title, "GPU 0 (AMD Radeon 780M, gfx1103): allocated 24 GiB (system)");
}

TEST(DeepRules, AllocationBoundedByMemAvailableIsNotAFinding) {
  Facts f = apu(Version{6, 17, 0});
  DeepStep s = good_memory();
  s.allocs[0].stop = DeepAllocStop::meminfo;
  s.allocs[0].allocated = Bytes{10 * kGiB};
  s.allocs[0].bound = Bytes{10 * kGiB};
  f.deep.gpus = {one_gpu({s})};
  auto out = diagnose(f, kb());
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_alloc_short).empty());
  auto v = findings_with_id(out, FindingId::deep_verified);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(evidence_text(*v[0]).find("MemAvailable minus the margin: 10 GiB"), std::string::npos)
      << evidence_text(*v[0]);
}

TEST(DeepRules, FillWithoutCodeForTheIsaNamesTheErrorAndTheOverride) {
  Facts f = apu(Version{6, 17, 0});
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "12.0.0";
  DeepStep s = step(DeepStepKind::fill, DeepOutcome::failed);
  s.call = "hsa_amd_memory_fill";
  s.error = "HSA_STATUS_ERROR_INVALID_ISA";
  s.message = "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid.; the runtime said: no code "
              "object for ISA amdgcn-amd-amdhsa--gfx1200";
  f.deep.gpus = {one_gpu({good_memory(), good_copy(), s})};
  auto out = diagnose(f, kb());
  auto v = findings_with_id(out, FindingId::deep_fill_failed);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->severity, Severity::error);
  EXPECT_NE(v[0]->detail.find("HSA_STATUS_ERROR_INVALID_ISA means this runtime has no code for the ISA"),
            std::string::npos) << v[0]->detail;
  std::string ev = evidence_text(*v[0]);
  EXPECT_NE(ev.find("hsa_amd_memory_fill returned HSA_STATUS_ERROR_INVALID_ISA"), std::string::npos) << ev;
  EXPECT_NE(ev.find("no code object for ISA"), std::string::npos);
  EXPECT_NE(ev.find("env HSA_OVERRIDE_GFX_VERSION: 12.0.0"), std::string::npos);
  // What did pass is still said.
  ASSERT_EQ(findings_with_id(out, FindingId::deep_verified).size(), 1u);
}

TEST(DeepRules, CorruptCopyIsAnErrorWithTheOffset) {
  Facts f = apu(Version{6, 17, 0});
  DeepStep s = good_copy();
  s.outcome = DeepOutcome::failed;
  s.data_ok = false;
  s.mismatch_at = 4097;
  f.deep.gpus = {one_gpu({s})};
  auto out = diagnose(f, kb());
  auto v = findings_with_id(out, FindingId::deep_copy_failed);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0]->title.find("came back different"), std::string::npos);
  EXPECT_NE(v[0]->detail.find("first at offset 4097"), std::string::npos);
}

TEST(DeepRules, HungAndUnstartedStepsAreStepFailures) {
  Facts f = apu(Version{6, 17, 0});
  DeepStep hung = step(DeepStepKind::fill, DeepOutcome::timed_out);
  hung.timeout_ms = 3000;
  hung.last_step = "hsa_amd_memory_fill";
  DeepStep later = step(DeepStepKind::copy, DeepOutcome::not_run);
  f.deep.gpus = {one_gpu({hung, later})};
  auto out = diagnose(f, kb());
  auto v = findings_with_id(out, FindingId::deep_step_failed);
  ASSERT_EQ(v.size(), 2u);
  // Errors sort before warnings.
  EXPECT_EQ(v[0]->severity, Severity::error);
  EXPECT_NE(v[0]->title.find("fill step did not finish within 3000 ms"), std::string::npos) << v[0]->title;
  EXPECT_NE(evidence_text(*v[0]).find("(last step): hsa_amd_memory_fill"), std::string::npos);
  EXPECT_EQ(v[1]->severity, Severity::warning);
  EXPECT_NE(v[1]->title.find("budget was spent"), std::string::npos);
}

TEST(DeepRules, NothingAskedNothingSaid) {
  Facts f = apu(Version{6, 17, 0});
  f.deep = DeepFacts{};
  for (const auto& fd : diagnose(f, kb())) EXPECT_NE(finding_prefix(fd.id), "deep") << to_string(fd.id);
}

// A ROCm torch in /home/alice/venv that saw the 780M as cuda:0; its matmul as given.
Facts with_torch(const TorchMatmul& m) {
  Facts f = apu(Version{6, 17, 0});
  PythonEnv env;
  env.kind = "venv";
  env.prefix = "/home/alice/venv";
  env.interpreter = "/home/alice/venv/bin/python3";
  env.torch_path = "/home/alice/venv/lib/python3.12/site-packages/torch";
  env.torch_version = "2.5.1+rocm6.2";
  env.torch_build = TorchBuild::rocm;
  TorchRuntime t;
  t.ran = true;
  t.available = true;
  t.device_count = 1;
  t.device_names = {"AMD Radeon 780M"};
  t.device_archs = {"gfx1103"};
  t.arch_list = {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102"};
  t.timeout_ms = 18000;
  t.matmuls = {m};
  env.runtime = t;
  f.ml.probed = true;
  f.ml.python = {env};
  return f;
}

TEST(DeepRules, MatmulInvalidDeviceFunctionNamesTheGfxTheWheelLacks) {
  TorchMatmul m;
  m.error = "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported";
  Facts f = with_torch(m);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.3";
  auto out = diagnose(f, kb());
  auto v = findings_with_id(out, FindingId::deep_torch_no_gfx);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->severity, Severity::error);
  EXPECT_EQ(v[0]->title,
            "PyTorch in /home/alice/venv has no kernels for gfx1103: a matmul on GPU 0 (AMD Radeon 780M, gfx1103) "
            "raised \"RuntimeError: HIP error: invalid device function\"");
  EXPECT_NE(v[0]->detail.find("does not include it"), std::string::npos) << v[0]->detail;
  auto ev = evidence_text(*v[0]);
  EXPECT_NE(ev.find("HIP kernel errors might be asynchronously reported"), std::string::npos) << ev;
  EXPECT_NE(ev.find("torch.cuda.get_arch_list(): gfx900 gfx906"), std::string::npos) << ev;
  EXPECT_NE(ev.find("env HSA_OVERRIDE_GFX_VERSION: 11.0.3"), std::string::npos) << ev;
  EXPECT_EQ(v[0]->gpus, std::vector<int>{0});
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_torch_failed).empty());
}

TEST(DeepRules, MatmulInvalidDeviceFunctionWithTheGfxListedPointsAtTheLibrariesOrTheOverride) {
  TorchMatmul m;
  m.error = "RuntimeError: HIP error: invalid device function";
  Facts f = with_torch(m);
  f.ml.python[0].runtime->arch_list.push_back("gfx1103");
  auto out1 = diagnose(f, kb());
  auto v = findings_with_id(out1, FindingId::deep_torch_no_gfx);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0]->detail.find("torch's arch list names gfx1103"), std::string::npos) << v[0]->detail;
}

TEST(DeepRules, MatmulOutOfMemoryHangAndWrongResultAreFailures) {
  TorchMatmul oom;
  oom.error = "OutOfMemoryError: HIP out of memory. Tried to allocate 16.00 MiB.";
  auto out2 = diagnose(with_torch(oom), kb());
  auto v = findings_with_id(out2, FindingId::deep_torch_failed);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->title,
            "PyTorch in /home/alice/venv ran out of GPU memory on GPU 0 (AMD Radeon 780M, gfx1103) for a 2048x2048 "
            "matmul");
  EXPECT_NE(evidence_text(*v[0]).find("Tried to allocate 16.00 MiB"), std::string::npos);

  TorchMatmul hung;
  hung.timed_out = true;
  hung.error = "did not finish: the child was killed at its time limit";
  auto out3 = diagnose(with_torch(hung), kb());
  v = findings_with_id(out3, FindingId::deep_torch_failed);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->title, "a matmul in PyTorch (/home/alice/venv) on GPU 0 (AMD Radeon 780M, gfx1103) never finished");
  EXPECT_NE(v[0]->detail.find("killed at its limit (18 s)"), std::string::npos) << v[0]->detail;

  TorchMatmul wrong;
  wrong.ok = true;
  wrong.data_ok = false;
  auto out4 = diagnose(with_torch(wrong), kb());
  v = findings_with_id(out4, FindingId::deep_torch_failed);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0]->title.find("gave a wrong result"), std::string::npos);
  EXPECT_TRUE(findings_with_id(out4, FindingId::deep_torch_verified).empty());
}

TEST(DeepRules, MatmulThatRanIsAnInfoLineWithTheRate) {
  TorchMatmul m;
  m.ok = true;
  m.size = 2048;
  m.ms = 2.21;
  m.tflops = 7.77;
  m.data_ok = true;
  auto out = diagnose(with_torch(m), kb());
  auto v = findings_with_id(out, FindingId::deep_torch_verified);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->severity, Severity::info);
  EXPECT_EQ(v[0]->title,
            "PyTorch in /home/alice/venv multiplied 2048x2048 float32 matrices on GPU 0 (AMD Radeon 780M, gfx1103) at "
            "7.77 TFLOP/s");
  EXPECT_NE(evidence_text(*v[0]).find("2.210 ms per multiplication"), std::string::npos);
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_torch_failed).empty());
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_torch_no_gfx).empty());
}

TEST(DeepRules, ATorchDeviceOfAnUnknownGfxIsNamedByTorch) {
  TorchMatmul m;
  m.error = "RuntimeError: HIP error: invalid device function";
  Facts f = with_torch(m);
  f.ml.python[0].runtime->device_archs = {"gfx90a:sramecc+:xnack-"};
  auto out5 = diagnose(f, kb());
  auto v = findings_with_id(out5, FindingId::deep_torch_no_gfx);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0]->title.find("no kernels for gfx90a: a matmul on cuda:0 (AMD Radeon 780M, gfx90a:sramecc+:xnack-)"),
            std::string::npos)
      << v[0]->title;
  EXPECT_TRUE(v[0]->gpus.empty());
}

TEST(CheckExpect, ComputeNeedsEveryUsableGpuToPassEveryStep) {
  Report r;
  r.facts = apu(Version{6, 17, 0});
  Expectations e;
  e.require_compute = true;
  auto find = [](const CheckReport& c) -> const CheckCase* {
    for (const auto& k : c.cases)
      if (k.name == "require compute") return &k;
    return nullptr;
  };
  r.facts.deep = DeepFacts{};
  auto c = evaluate_checks(r, e);
  ASSERT_TRUE(find(c));
  EXPECT_EQ(find(c)->status, CheckStatus::failed);
  EXPECT_EQ(find(c)->message, "the deep steps did not run (--deep)");

  r.facts.deep.asked = true;
  r.facts.deep.reason = "the HSA runtime did not start (init-failed), so nothing ran on a GPU";
  c = evaluate_checks(r, e);
  EXPECT_EQ(find(c)->message, r.facts.deep.reason);

  DeepStep fill = step(DeepStepKind::fill, DeepOutcome::failed);
  fill.error = "HSA_STATUS_ERROR_INVALID_ISA";
  r.facts.deep.gpus = {one_gpu({good_memory(), good_copy(), fill})};
  c = evaluate_checks(r, e);
  EXPECT_EQ(find(c)->status, CheckStatus::failed);
  EXPECT_EQ(find(c)->message, "GPU 0 (AMD Radeon 780M) fill failed (HSA_STATUS_ERROR_INVALID_ISA)");

  r.facts.deep.gpus = {one_gpu({good_memory(), good_copy(), step(DeepStepKind::fill, DeepOutcome::ok)})};
  c = evaluate_checks(r, e);
  EXPECT_EQ(find(c)->status, CheckStatus::passed) << find(c)->message;
}

namespace {

// Literal knowledge: PCIe 3.0 and 4.0 as recipes/knowledge/pcie.toml gives them.
const Knowledge& pcie_kb() {
  static const Knowledge k = [] {
    Knowledge x;
    x.pcie.push_back(PcieGen{3, 8.0, "128b/130b", 0.9846, 0.8, "PCI Express Base 3.0"});
    x.pcie.push_back(PcieGen{4, 16.0, "128b/130b", 1.9692, 0.8, "PCI Express Base 4.0"});
    return x;
  }();
  return k;
}

// An RX 7900 XTX at 0000:23:00.0 whose copy ran at h2d/d2h over the given link.
Facts discrete(double h2d, double d2h, std::optional<DeepLink> link) {
  Facts f;
  Gpu g;
  g.gfx = GfxTarget{11, 0, 0};
  g.marketing_name = "Radeon RX 7900 XTX";
  g.apu = false;
  g.pci_slot = "0000:23:00.0";
  f.gpus = {g};
  f.deep.asked = true;
  DeepStep c = good_copy();
  c.bytes = Bytes{64ull << 20};
  c.h2d_gbps = h2d;
  c.d2h_gbps = d2h;
  DeepGpu dg = one_gpu({c, step(DeepStepKind::fill, DeepOutcome::ok)});
  dg.name = "gfx1100";
  dg.link = std::move(link);
  f.deep.gpus = {dg};
  return f;
}

DeepLink link(double gts, std::uint32_t width, double max_gts, std::uint32_t max_width, const char* at) {
  DeepLink l;
  l.slot = "0000:23:00.0";
  l.current = PcieLink{gts, width};
  l.max = PcieLink{max_gts, max_width};
  l.limited_at = at;
  l.links = 4;
  return l;
}

}  // namespace

TEST(DeepRules, CopyBandwidthIsHeldAgainstTheLinksExpectedFigure) {
  auto out = diagnose(discrete(24.1, 23.9, link(16.0, 16, 16.0, 16, "0000:23:00.0")), pcie_kb());
  auto v = findings_with_id(out, FindingId::deep_verified);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0]->title,
            "GPU 0 (Radeon RX 7900 XTX, gfx1100): copied host->device 24.1 GB/s, device->host 23.9 GB/s of ~25 GB/s "
            "expected for PCIe 4.0 x16, ran the runtime's fill kernel");
  std::string ev = evidence_text(*v[0]);
  EXPECT_NE(ev.find("16 GT/s x16 at 0000:23:00.0 (the slowest of 4 links up to the CPU)"), std::string::npos) << ev;
  EXPECT_NE(ev.find("~25 GB/s: 1.969 GB/s per lane each way x 16 lanes x 0.8"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("the card can do"), std::string::npos) << ev;
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_copy_slow).empty());
}

TEST(DeepRules, ACopyBelowHalfOfASlowLinksFigureIsCopySlowNamingTheLink) {
  // The card can do 16 GT/s x16; the slot link (its switch's upstream port) trained at
  // 8 GT/s x4: ~3.2 GB/s expected, and 1.4 GB/s to the GPU is below half of it.
  auto out = diagnose(discrete(1.4, 2.9, link(8.0, 4, 16.0, 16, "0000:21:00.0")), pcie_kb());
  auto slow = findings_with_id(out, FindingId::deep_copy_slow);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0]->severity, Severity::warning);
  EXPECT_EQ(slow[0]->title,
            "GPU 0 (Radeon RX 7900 XTX, gfx1100): copies to the GPU ran at 1.4 GB/s, less than half of the ~3.2 GB/s "
            "expected for PCIe 3.0 x4");
  EXPECT_EQ(slow[0]->gpus, std::vector<int>{0});
  std::string ev = evidence_text(*slow[0]);
  EXPECT_NE(ev.find("8 GT/s x4 at 0000:21:00.0"), std::string::npos) << ev;
  EXPECT_NE(ev.find("the link runs at 8 GT/s x4, the card can do 16 GT/s x16"), std::string::npos) << ev;
  EXPECT_NE(slow[0]->detail.find("lspci -vv -s 0000:23:00.0"), std::string::npos) << slow[0]->detail;
  EXPECT_NE(slow[0]->detail.find("lower it when idle"), std::string::npos) << slow[0]->detail;
  auto v = findings_with_id(out, FindingId::deep_verified);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0]->title.find("host->device 1.4 GB/s, device->host 2.9 GB/s of ~3.2 GB/s expected for PCIe 3.0 x4"),
            std::string::npos)
      << v[0]->title;
  // Both ways slow: both named.
  const auto both_out = diagnose(discrete(1.4, 1.2, link(8.0, 4, 16.0, 16, "0000:21:00.0")), pcie_kb());
  auto both = findings_with_id(both_out, FindingId::deep_copy_slow);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0]->title.find("copies ran at 1.4 GB/s to the GPU and 1.2 GB/s back, less than half"), std::string::npos) << both[0]->title;
}

TEST(DeepRules, NoComparisonForAnApuAnUnreadableLinkOrALinkThatIdledDown) {
  // An APU: its copies cross no PCIe link, and the evidence says so.
  Facts a = apu(Version{6, 17, 0});
  a.deep.gpus = {one_gpu({good_copy()})};
  auto out = diagnose(a, pcie_kb());
  auto v = findings_with_id(out, FindingId::deep_verified);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(evidence_text(*v[0]).find("an integrated GPU shares the system's memory"), std::string::npos);
  EXPECT_EQ(v[0]->title.find("expected"), std::string::npos) << v[0]->title;
  EXPECT_TRUE(findings_with_id(out, FindingId::deep_copy_slow).empty());

  // A discrete GPU without link files: no figure, said so.
  auto none = diagnose(discrete(1.0, 1.0, std::nullopt), pcie_kb());
  EXPECT_TRUE(findings_with_id(none, FindingId::deep_copy_slow).empty());
  EXPECT_NE(evidence_text(*findings_with_id(none, FindingId::deep_verified)[0]).find("not readable in sysfs"),
            std::string::npos);

  // The link read after the copy at 2.5 GT/s (not in this knowledge) or at a speed slower
  // than the copy itself ran: power saving after the copy, not the copy's link.
  auto idle = diagnose(discrete(24.0, 23.0, link(8.0, 16, 16.0, 16, "0000:23:00.0")), pcie_kb());
  EXPECT_TRUE(findings_with_id(idle, FindingId::deep_copy_slow).empty());
  EXPECT_NE(evidence_text(*findings_with_id(idle, FindingId::deep_verified)[0]).find("slowed down after the copy"),
            std::string::npos);
  auto unknown_gen = diagnose(discrete(0.1, 0.1, link(2.5, 16, 16.0, 16, "0000:23:00.0")), pcie_kb());
  EXPECT_TRUE(findings_with_id(unknown_gen, FindingId::deep_copy_slow).empty());
  EXPECT_NE(evidence_text(*findings_with_id(unknown_gen, FindingId::deep_verified)[0])
                .find("the knowledge has no PCIe generation at 2.5 GT/s"),
            std::string::npos);
}
