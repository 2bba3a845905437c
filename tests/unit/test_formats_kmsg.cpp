// The kernel log codec: /dev/kmsg records, journalctl lines, the tail bound, the
// snapshot filter, MAC masking, and what each kind of line is classified as (the lines
// are quoted from the public reports the evidence fixtures cite).
#include <gtest/gtest.h>

#include "formats/kmsg.hpp"
#include "formats/ollama_log.hpp"

using namespace amdml;

namespace {

std::vector<KernelEvent> events(const std::string& text) { return formats::kmsg::classify(formats::kmsg::parse(text).records); }

TEST(Kmsg, ParsesRecordsAndSkipsContinuations) {
  auto p = formats::kmsg::parse("3,1017,9292134,-;amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init\n"
                       " SUBSYSTEM=pci\n DEVICE=+pci:0000:83:00.0\n"
                       "garbage without a semicolon\n12,1018,9292551,c,extra;kfd kfd: hello\n");
  ASSERT_EQ(p.records.size(), 2u);
  EXPECT_EQ(p.records[0].level, 3);
  EXPECT_EQ(p.records[0].seq, 1017u);
  EXPECT_EQ(p.records[0].usec, 9292134u);
  EXPECT_EQ(p.records[1].facility, 1);
  EXPECT_EQ(p.records[1].level, 4);
  EXPECT_EQ(p.bad_lines, 1u);
  EXPECT_EQ(formats::kmsg::write(p.records),
            "3,1017,9292134,-;amdgpu 0000:83:00.0: amdgpu: Fatal error during GPU init\n12,1018,9292551,-;kfd kfd: hello\n");
}

TEST(Kmsg, ParsesJournalShortMonotonic) {
  auto p = formats::kmsg::parse_journal("-- Boot 4c3b --\n[    3.636913] box kernel: amdgpu: unknown parameter 'gtt_size' ignored\n"
                               "[bad] box kernel: x\n");
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].usec, 3636913u);
  EXPECT_EQ(p.records[0].text, "amdgpu: unknown parameter 'gtt_size' ignored");
  EXPECT_EQ(p.bad_lines, 1u);
}

TEST(Kmsg, TailKeepsWholeNewestLines) {
  EXPECT_EQ(formats::kmsg::tail("aaaa\nbbbb\ncccc\n", 100), "aaaa\nbbbb\ncccc\n");
  EXPECT_EQ(formats::kmsg::tail("aaaa\nbbbb\ncccc\n", 8), "cccc\n");
}

// gpu_relevant scans a record once: each word it looks for is found at the start, in the
// middle and as the last bytes of a record, and a record with only its first two bytes
// (or a case the kernel does not print) is not taken.
TEST(Kmsg, GpuRelevantFindsEachWordWhereverItStands) {
  for (std::string w : {"amd", "AMD", "kfd", "drm", "ttm", "irmware", "ockdown", "module", "DMAR", "iommu", "IOMMU", "ecure"}) {
    EXPECT_TRUE(formats::kmsg::gpu_relevant(w)) << w;
    EXPECT_TRUE(formats::kmsg::gpu_relevant(w + ": x")) << w;
    EXPECT_TRUE(formats::kmsg::gpu_relevant("eno1: " + w + " up")) << w;
    EXPECT_TRUE(formats::kmsg::gpu_relevant("eno1: link " + w)) << w;
    EXPECT_FALSE(formats::kmsg::gpu_relevant("eno1: link " + w.substr(0, 2))) << w;
    EXPECT_FALSE(formats::kmsg::gpu_relevant(w.substr(0, 2) + " " + w.substr(2))) << w;
  }
  EXPECT_FALSE(formats::kmsg::gpu_relevant(""));
  EXPECT_FALSE(formats::kmsg::gpu_relevant("a"));
  EXPECT_FALSE(formats::kmsg::gpu_relevant("Amd Kfd Drm Ttm Module Dmar"));
  EXPECT_FALSE(formats::kmsg::gpu_relevant("mlx5_core 0000:01:00.1: mlx5e_health_report: port 1 link up, speed 400G"));
}

// classify counts the GPU lines it looked at: the number a snapshot keeps and the probe reports.
TEST(Kmsg, ClassifyCountsTheGpuLines) {
  auto p = formats::kmsg::parse(
      "6,1,100,-;r8169 0000:04:00.0 eno1: Link is Up\n"
      "3,2,200,-;amdgpu 0000:03:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=7, emitted seq=9\n"
      "6,3,300,-;amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!\n"
      "6,4,400,-;usb 1-1: new high-speed USB device\n");
  std::size_t gpu_lines = 99;
  auto ev = formats::kmsg::classify(p.records, &gpu_lines);
  EXPECT_EQ(gpu_lines, 2u);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, KernelEventKind::ring_timeout);
  EXPECT_EQ(formats::kmsg::classify({}, &gpu_lines).size(), 0u);
  EXPECT_EQ(gpu_lines, 0u);
}

TEST(Kmsg, SnapshotFilterAndMacMask) {
  EXPECT_TRUE(formats::kmsg::gpu_relevant("amdgpu 0000:c5:00.0: amdgpu: MODE2 reset"));
  EXPECT_TRUE(formats::kmsg::gpu_relevant("Loading of module with unavailable key is rejected"));
  EXPECT_FALSE(formats::kmsg::gpu_relevant("r8169 0000:04:00.0 eno1: Link is Up - 1Gbps/Full"));
  EXPECT_EQ(formats::kmsg::mask_macs("r8169 eno1: RTL8168h, 0c:9d:92:1a:2b:3c, XID 541"), "r8169 eno1: RTL8168h, xx:xx:xx:xx:xx:xx, XID 541");
  EXPECT_EQ(formats::kmsg::mask_macs("seq 12:34"), "seq 12:34");
}

TEST(Kmsg, ClassifiesEachKind) {
  auto e = events(
      "4,1,4825127,-;amdgpu 0000:01:00.0: Direct firmware load for amdgpu/polaris12_mc.bin failed with error -2\n"
      "4,2,9292551,-;amdgpu: probe of 0000:83:00.0 failed with error -12\n"
      "3,3,11423005,-;Loading of module with unavailable key is rejected\n"
      "3,4,127033279661,-;amdgpu 0000:c5:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=2662395, emitted seq=2662397\n"
      "3,5,127033279667,-;amdgpu 0000:c5:00.0: amdgpu:  Process code pid 1048641 thread code:cs0 pid 1048662\n"
      "4,6,127035492304,-;amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!\n"
      "3,7,127037563935,-;amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n"
      "3,8,327803487,-;amdgpu 0000:c6:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32770)\n"
      "3,9,327803532,-;amdgpu 0000:c6:00.0: amdgpu:  Process llama-cli pid 10890 thread llama-cli pid 10890\n"
      "6,10,7026427,-;kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics\n"
      "3,11,1,-;amdgpu 0000:03:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000f address=0x5bbb5000 flags=0x0020]\n"
      "4,12,3636913,-;amdgpu: unknown parameter 'gtt_size' ignored\n"
      "6,13,1,-;amdgpu 0000:c5:00.0: amdgpu: SMU is resumed successfully!\n");
  ASSERT_EQ(e.size(), 10u);
  EXPECT_EQ(e[0].kind, KernelEventKind::firmware_missing);
  EXPECT_EQ(e[0].subject, "amdgpu/polaris12_mc.bin");
  EXPECT_EQ(e[0].error_code, -2);
  EXPECT_EQ(e[1].kind, KernelEventKind::probe_failed);
  EXPECT_EQ(e[1].subject, "0000:83:00.0");
  EXPECT_EQ(e[1].error_code, -12);
  EXPECT_EQ(e[2].kind, KernelEventKind::module_rejected);
  EXPECT_EQ(e[3].kind, KernelEventKind::ring_timeout);
  EXPECT_EQ(e[3].subject, "gfx_0.0.0");
  EXPECT_EQ(e[3].process, "code");
  EXPECT_EQ(e[4].kind, KernelEventKind::gpu_reset);
  EXPECT_EQ(e[5].kind, KernelEventKind::mes_error);
  EXPECT_EQ(e[5].subject, "REMOVE_QUEUE");
  EXPECT_EQ(e[6].kind, KernelEventKind::page_fault);
  EXPECT_EQ(e[6].process, "llama-cli");
  EXPECT_EQ(e[7].kind, KernelEventKind::kfd_disabled);
  EXPECT_EQ(e[8].kind, KernelEventKind::iommu_fault);
  EXPECT_EQ(e[8].subject, "0000:03:00.0");
  EXPECT_EQ(e[9].kind, KernelEventKind::unknown_param);
  EXPECT_EQ(e[9].subject, "amdgpu.gtt_size");
}

TEST(Kmsg, OldStylePageFaultNamesTheProcessOnItsLine) {
  auto e = events("3,1,1,-;amdgpu 0000:c3:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:12 pasid:32773, for "
                  "process rocm-bandwidth- pid 8285 thread rocm-bandwidth- pid 8285)\n");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].process, "rocm-bandwidth-");
}

TEST(OllamaLog, LastStartOnly) {
  auto l = formats::ollama_log::last_start(
      "Nov 20 box ollama[1]: time=1 level=INFO source=gpu.go:377 msg=\"no compatible GPUs were discovered\"\n"
      "Nov 20 box ollama[2]: time=2 level=INFO source=routes.go:1238 msg=\"server config\" env=\"map[]\"\n"
      "Nov 20 box ollama[2]: time=3 level=WARN source=amd_linux.go:376 msg=\"amdgpu is not supported (supported "
      "types:[gfx1030])\" gpu_type=gfx1031 gpu=0 library=/usr/lib/ollama\n"
      "Nov 20 box ollama[2]: time=4 level=INFO source=gpu.go:377 msg=\"no compatible GPUs were discovered\"\n");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].reason, OllamaReason::gfx_unsupported);
  EXPECT_EQ(l[0].detail, "gfx1031");
  EXPECT_EQ(l[1].reason, OllamaReason::no_compatible_gpu);
  EXPECT_TRUE(l[0].line.starts_with("time=3"));
}

}  // namespace
