// The fleet renderers on literal reports: escaping in the Prometheus exposition format,
// label-value folding for Node Feature Discovery, and what each writes for a GPU.
#include <gtest/gtest.h>

#include "render/fleet.hpp"

namespace amdml {
namespace {

Report one_gpu_report() {
  Report r;
  r.facts.amdml_version = "0.1.0";
  Gpu g;
  g.kfd_node = 1;
  g.gfx = GfxTarget{11, 0, 0};
  g.pci_slot = "0000:03:00.0";
  g.marketing_name = "Radeon \"Pro\" C:\\x\nline";
  g.apu = false;
  g.vram = Bytes{25769803776ULL};
  r.facts.gpus.push_back(g);
  r.facts.rocm.source = RocmSource::opt_rocm;
  r.facts.rocm.path = "/opt/rocm";
  r.facts.rocm.version = Version{6, 2, 4};
  Finding f;
  f.id = FindingId::memory_gtt_limit;
  f.severity = Severity::warning;
  r.findings = {f, f};
  Finding e;
  e.id = FindingId::access_kfd;
  e.severity = Severity::error;
  r.findings.push_back(e);
  r.summary = summarize(r.findings);
  return r;
}

TEST(Prometheus, LabelValuesAreEscaped) {
  EXPECT_EQ(render::prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(render::prometheus_label_value("plain 780M"), "plain 780M");
  // invalid UTF-8 from a broken file becomes U+FFFD; valid multibyte text stays
  EXPECT_EQ(render::prometheus_label_value(std::string("x\xff") + "y"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(render::prometheus_label_value("Radeon™"), "Radeon™");
}

TEST(Prometheus, SeriesForGpuFindingsAndRun) {
  std::string t = render::prometheus_text(one_gpu_report(), 1700000000);
  EXPECT_NE(t.find("amdml_gpu_info{gpu=\"0\",gfx=\"gfx1100\",name=\"Radeon \\\"Pro\\\" C:\\\\x\\nline\","
                   "pci_id=\"\",pci_slot=\"0000:03:00.0\",kfd_node=\"1\",apu=\"false\",render_node=\"\"} 1\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("amdml_gpu_vram_bytes{gpu=\"0\",pci_slot=\"0000:03:00.0\"} 25769803776\n"), std::string::npos);
  // unknown sizes are absent, not 0
  EXPECT_EQ(t.find("amdml_gpu_gtt_bytes"), std::string::npos);
  // a finding reported twice is one series with value 2
  EXPECT_NE(t.find("amdml_finding{id=\"memory.gtt-limit\",severity=\"warning\"} 2\n"), std::string::npos);
  EXPECT_NE(t.find("amdml_finding{id=\"access.kfd\",severity=\"error\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("amdml_findings{severity=\"error\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("amdml_last_run_timestamp_seconds 1700000000\n"), std::string::npos);
  EXPECT_NE(t.find("amdml_rocm_info{version=\"6.2.4\",path=\"/opt/rocm\",source=\"/opt/rocm\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("amdml_runtime_probe_info{outcome=\"not-run\",recorded=\"false\"} 1\n"), std::string::npos);
  // every family is typed before its samples
  EXPECT_LT(t.find("# TYPE amdml_gpu_info gauge"), t.find("amdml_gpu_info{"));
}

TEST(Prometheus, StartFailureSaysWhy) {
  std::string t = render::prometheus_error_text("--root /x: \"no\" such", 5);
  EXPECT_NE(t.find("amdml_run_success 0\n"), std::string::npos);
  EXPECT_NE(t.find("amdml_run_error_info{message=\"--root /x: \\\"no\\\" such\"} 1\n"), std::string::npos);
}

TEST(Nfd, LabelValuesFoldIntoTheSyntax) {
  EXPECT_EQ(render::nfd_label_value("6.2.4"), "6.2.4");
  EXPECT_EQ(render::nfd_label_value("-a b+c."), "a-b-c");
  EXPECT_EQ(render::nfd_label_value(std::string(80, 'x')), std::string(63, 'x'));
  EXPECT_EQ(render::nfd_label_value(std::string(62, 'x') + "._y"), std::string(62, 'x'));
  EXPECT_EQ(render::nfd_label_value("..."), "");
}

TEST(Nfd, LabelsForOneGpu) {
  Knowledge kb;
  GfxInfo info;
  info.target = GfxTarget{11, 0, 0};
  info.isa = IsaFamily::rdna3;
  kb.gfx.push_back(info);
  std::string t = render::nfd_text(one_gpu_report(), kb);
  for (const char* line : {"amd.com/gpu.count=1\n", "amd.com/gpu.gfx1100.count=1\n", "amd.com/gpu.family=rdna3\n",
                           "amd.com/gpu.family.rdna3.count=1\n", "amd.com/gpu.vram-mib=24576\n",
                           "amd.com/rocm.version=6.2.4\n", "amd.com/gpu.usable=false\n",
                           "amd.com/gpu.finding.access.kfd=error\n", "amd.com/gpu.finding.memory.gtt-limit=warning\n"})
    EXPECT_NE(t.find(line), std::string::npos) << line << " in\n" << t;
  EXPECT_EQ(t.find("gpu.memory-mib"), std::string::npos);  // unknown: no label
}

}  // namespace
}  // namespace amdml
