// The check gate with literal facts: version constraints, every expectation passing and
// failing, how doctor findings become cases, and the XML escaping JUnit output relies on.
#include <gtest/gtest.h>

#include "amdml/check.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"

using namespace amdml;

namespace {

Gpu make_gpu(int node, const char* gfx, std::uint64_t vram_gib, std::uint64_t gtt_gib, const char* render) {
  Gpu g;
  g.kfd_node = node;
  g.gfx = GfxTarget::parse_name(gfx);
  g.vram = Bytes{vram_gib * kGiB};
  g.gtt = Bytes{gtt_gib * kGiB};
  g.render_node = render;
  g.pci_slot = "0000:0" + std::to_string(node) + ":00.0";
  return g;
}

DeviceAccess node(const char* path, bool exists) {
  DeviceAccess d;
  d.path = path;
  d.exists = exists;
  return d;
}

// Two MI300X-like GPUs, both passed in, ROCm 6.4.1 from /opt/rocm.
Report two_gpus() {
  Report r;
  r.facts.gpus = {make_gpu(2, "gfx942", 192, 64, "/dev/dri/renderD128"), make_gpu(3, "gfx942", 192, 64, "/dev/dri/renderD129")};
  r.facts.identity.devices_known = true;
  r.facts.identity.devices = {node("/dev/kfd", true), node("/dev/dri/renderD128", true), node("/dev/dri/renderD129", true)};
  r.facts.rocm.source = RocmSource::opt_rocm;
  r.facts.rocm.path = "/opt/rocm";
  r.facts.rocm.version = Version{6, 4, 1};
  return r;
}

const CheckCase* find_case(const CheckReport& c, const std::string& name) {
  for (const auto& k : c.cases)
    if (k.name == name) return &k;
  return nullptr;
}

VersionConstraint one(const char* spec) {
  auto v = parse_version_spec(spec);
  EXPECT_TRUE(v.ok()) << spec;
  EXPECT_EQ(v->size(), 1u);
  return v->front();
}

}  // namespace

TEST(CheckVersionSpec, ParsesOperatorsAndPrecision) {
  EXPECT_EQ(one(">=6.4").str(), ">=6.4");
  EXPECT_EQ(one(" >= 6.4.1 ").str(), ">=6.4.1");
  EXPECT_EQ(one("<7").str(), "<7");
  EXPECT_EQ(one("==6.2").parts, 2);
  auto two = parse_version_spec(">=6.2, <7");
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1].str(), "<7");
}

TEST(CheckVersionSpec, RejectsWhatIsNotAConstraint) {
  for (const char* bad : {"", "6.4", "=6.4", "=>6.4", ">=", ">=6.x", ">=6.4.1.2", ">=-1", ">=6..4", ">=6.4,", "~6.4"})
    EXPECT_FALSE(parse_version_spec(bad).ok()) << bad;
  auto e = parse_version_spec("6.4");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find(">="), std::string::npos);
}

TEST(CheckVersionSpec, ComparesAtTheWrittenPrecision) {
  Version v641{6, 4, 1}, v640{6, 4, 0}, v700{7, 0, 0}, v624{6, 2, 4};
  EXPECT_TRUE(one(">=6.4").holds(v640));
  EXPECT_TRUE(one(">=6.4").holds(v641));
  EXPECT_FALSE(one(">=6.4").holds(v624));
  EXPECT_FALSE(one(">6.4").holds(v641));  // 6.4.x is not above 6.4
  EXPECT_TRUE(one(">6.4").holds(v700));
  EXPECT_TRUE(one("<=6.4").holds(v641));  // 6.4.x is at most 6.4
  EXPECT_TRUE(one("==6.4").holds(v641));
  EXPECT_FALSE(one("==6.4.0").holds(v641));
  EXPECT_TRUE(one("<7").holds(v641));
  EXPECT_FALSE(one("<7").holds(v700));
  EXPECT_TRUE(one("==6").holds(v624));
}

TEST(CheckExpect, GpuCountPassesAndFails) {
  Report r = two_gpus();
  Expectations e;
  e.gpus = 2;
  auto c = evaluate_checks(r, e);
  ASSERT_TRUE(find_case(c, "expect-gpus 2"));
  EXPECT_EQ(find_case(c, "expect-gpus 2")->status, CheckStatus::passed);
  EXPECT_TRUE(c.passed());

  e.gpus = 8;
  c = evaluate_checks(r, e);
  const auto* k = find_case(c, "expect-gpus 8");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->status, CheckStatus::failed);
  EXPECT_EQ(k->message, "expected 8 GPUs, ROCm can use 2");
  EXPECT_FALSE(c.passed());
}

TEST(CheckExpect, GpuWithoutItsRenderNodeIsNotUsable) {
  // A container given only renderD128: KFD's sysfs still lists both GPUs.
  Report r = two_gpus();
  r.facts.identity.devices[2].exists = false;
  EXPECT_TRUE(gpu_usable(r.facts, 0));
  EXPECT_FALSE(gpu_usable(r.facts, 1));
  Expectations e;
  e.gpus = 2;
  auto c = evaluate_checks(r, e);
  const auto* k = find_case(c, "expect-gpus 2");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->status, CheckStatus::failed);
  EXPECT_EQ(k->message, "expected 2 GPUs, ROCm can use 1 of the 2 seen");
  EXPECT_NE(k->output.find("renderD129 is not present here"), std::string::npos);
}

TEST(CheckExpect, GfxTargetsPresentAndNothingElse) {
  Report r = two_gpus();
  Expectations e;
  e.gfx = {*GfxTarget::parse_name("gfx942")};
  auto c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "expect-gfx gfx942")->status, CheckStatus::passed);
  EXPECT_EQ(find_case(c, "expect-gfx: no other targets")->status, CheckStatus::passed);

  e.gfx = {*GfxTarget::parse_name("gfx90a")};
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "expect-gfx gfx90a")->status, CheckStatus::failed);
  EXPECT_EQ(find_case(c, "expect-gfx gfx90a")->message, "no usable GPU is gfx90a (found: gfx942 on GPU 0, gfx942 on GPU 1)");
  EXPECT_EQ(find_case(c, "expect-gfx: no other targets")->status, CheckStatus::failed);

  // An extra target on the box (an iGPU) fails the "nothing else" case only.
  r.facts.gpus.push_back(make_gpu(4, "gfx1036", 0, 16, "/dev/dri/renderD130"));
  r.facts.identity.devices.push_back(node("/dev/dri/renderD130", true));
  e.gfx = {*GfxTarget::parse_name("gfx942")};
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "expect-gfx gfx942")->status, CheckStatus::passed);
  const auto* k = find_case(c, "expect-gfx: no other targets");
  EXPECT_EQ(k->status, CheckStatus::failed);
  EXPECT_NE(k->message.find("is gfx1036, not one of gfx942"), std::string::npos);
}

TEST(CheckExpect, MinimumMemoryPerGpu) {
  Report r = two_gpus();
  Expectations e;
  e.min_vram = Bytes{64 * kGiB};
  e.min_gtt = Bytes{64 * kGiB};
  auto c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "min-vram 64 GiB")->status, CheckStatus::passed);
  EXPECT_EQ(find_case(c, "min-gtt 64 GiB")->status, CheckStatus::passed);

  r.facts.gpus[1].vram = Bytes{24 * kGiB};
  r.facts.gpus[0].gtt.reset();  // unknown is not enough
  c = evaluate_checks(r, e);
  const auto* v = find_case(c, "min-vram 64 GiB");
  EXPECT_EQ(v->status, CheckStatus::failed);
  EXPECT_NE(v->message.find("GPU 1"), std::string::npos);
  EXPECT_NE(v->message.find("24 GiB VRAM, less than 64 GiB"), std::string::npos);
  EXPECT_EQ(v->message.find("GPU 0"), std::string::npos);
  const auto* g = find_case(c, "min-gtt 64 GiB");
  EXPECT_EQ(g->status, CheckStatus::failed);
  EXPECT_NE(g->message.find("GPU 0 (gfx942, 0000:02:00.0) has unknown"), std::string::npos);

  r.facts.gpus.clear();
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "min-vram 64 GiB")->message, "no GPU ROCm can use to measure");
}

TEST(CheckExpect, RocmVersion) {
  Report r = two_gpus();
  Expectations e;
  e.rocm = *parse_version_spec(">=6.4");
  e.rocm_text = ">=6.4";
  auto c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "rocm >=6.4")->status, CheckStatus::passed);

  e.rocm = *parse_version_spec(">=6.2,<6.4");
  e.rocm_text = ">=6.2,<6.4";
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "rocm >=6.2,<6.4")->message, "ROCm 6.4.1 does not satisfy <6.4");

  r.facts.rocm = RocmFacts{};
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "rocm >=6.2,<6.4")->message, "no ROCm installation found");
}

TEST(CheckExpect, RuntimeMustEnumerateEveryExpectedGpu) {
  Report r = two_gpus();
  Expectations e;
  e.require_runtime = true;
  auto c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "require runtime")->status, CheckStatus::failed);  // not asked

  r.facts.runtime.probed = true;
  r.facts.runtime.hsa.outcome = HsaOutcome::init_failed;
  r.facts.runtime.hsa.status_name = "HSA_STATUS_ERROR_OUT_OF_RESOURCES";
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "require runtime")->message,
            "the HSA runtime did not enumerate GPUs: init-failed (HSA_STATUS_ERROR_OUT_OF_RESOURCES)");

  r.facts.runtime.hsa.outcome = HsaOutcome::ok;
  HsaAgent cpu, gpu0, gpu1;
  cpu.device = HsaDeviceType::cpu;
  gpu0.device = gpu1.device = HsaDeviceType::gpu;
  gpu0.name = gpu1.name = "gfx942";
  gpu0.gpu = 0;
  gpu1.gpu = 1;
  r.facts.runtime.hsa.agents = {cpu, gpu0};
  c = evaluate_checks(r, e);
  const auto* k = find_case(c, "require runtime");
  EXPECT_EQ(k->status, CheckStatus::failed);
  EXPECT_EQ(k->message, "HSA enumerates 1 GPU agent, expected 2; no agent for GPU 1 (gfx942, 0000:03:00.0)");

  r.facts.runtime.hsa.agents = {cpu, gpu0, gpu1};
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "require runtime")->status, CheckStatus::passed);
  e.gpus = 3;  // the count expected wins over what sysfs shows
  c = evaluate_checks(r, e);
  EXPECT_EQ(find_case(c, "require runtime")->status, CheckStatus::failed);
}

TEST(CheckDoctor, OneCasePerCatalogIdInCatalogOrder) {
  Report r = two_gpus();
  auto c = evaluate_checks(r, Expectations{});
  ASSERT_EQ(c.cases.size(), finding_catalog().size());
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    EXPECT_EQ(c.cases[i].name, finding_catalog()[i].name);
    EXPECT_EQ(c.cases[i].suite, "doctor");
  }
  EXPECT_TRUE(c.passed());
}

TEST(CheckDoctor, ErrorsFailWarningsOnlyWhenStrictInfosNever) {
  Report r = two_gpus();
  Finding err;
  err.id = FindingId::container_gid;
  err.severity = Severity::error;
  err.title = "not in the group";
  Finding warn;
  warn.id = FindingId::rocm_missing;
  warn.severity = Severity::warning;
  warn.title = "no ROCm";
  Finding info;
  info.id = FindingId::container_host_docker;
  info.severity = Severity::info;
  info.title = "Docker is installed";
  r.findings = {err, err, warn, info};
  auto c = evaluate_checks(r, Expectations{});
  EXPECT_EQ(find_case(c, "container.gid")->status, CheckStatus::failed);
  EXPECT_EQ(find_case(c, "container.gid")->message, "not in the group (and 1 more)");
  EXPECT_EQ(find_case(c, "rocm.missing")->status, CheckStatus::passed);
  EXPECT_NE(find_case(c, "rocm.missing")->output.find("warning: no ROCm"), std::string::npos);
  EXPECT_EQ(find_case(c, "container.host-docker")->status, CheckStatus::passed);
  EXPECT_EQ(c.count(CheckStatus::failed), 1);

  Expectations strict;
  strict.strict = true;
  c = evaluate_checks(r, strict);
  EXPECT_EQ(find_case(c, "rocm.missing")->status, CheckStatus::failed);
  EXPECT_EQ(find_case(c, "container.host-docker")->status, CheckStatus::passed);
}

TEST(CheckRender, XmlEscapeKeepsDocumentsWellFormed) {
  EXPECT_EQ(render::xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(render::xml_escape("Radeon™ 780M"), "Radeon™ 780M");
  EXPECT_EQ(render::xml_escape(std::string("x\x01y", 3)), "x\xEF\xBF\xBDy");
  EXPECT_EQ(render::xml_escape(std::string("nul\0!", 5)), "nul\xEF\xBF\xBD!");
  EXPECT_EQ(render::xml_escape("bad \xC3( utf8"), "bad \xEF\xBF\xBD( utf8");
  EXPECT_EQ(render::xml_escape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(render::xml_escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(render::xml_escape("tab\tnl\n"), "tab\tnl\n");
  EXPECT_EQ(render::xml_escape("cr\r"), "cr&#13;");
  EXPECT_EQ(render::xml_escape("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // truncated sequence
}

TEST(CheckRender, TextListsEachFailureOnOneLine) {
  Report r = two_gpus();
  Expectations e;
  e.gpus = 3;
  e.min_vram = Bytes{256 * kGiB};
  auto c = evaluate_checks(r, e);
  render::TextStyle plain;
  plain.unicode = false;
  std::string t = render::render_check_text(c, plain);
  EXPECT_NE(t.find("  x expect-gpus 3: expected 3 GPUs, ROCm can use 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  x min-vram 256 GiB: "), std::string::npos) << t;
  EXPECT_NE(t.find("check: FAILED (2 failed, "), std::string::npos) << t;
  auto j = render::check_json(c);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["counts"]["failed"], 2);
}
