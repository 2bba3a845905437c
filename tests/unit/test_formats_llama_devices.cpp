// llama.cpp's --list-devices output (formats/llama_devices.hpp): the lines llama.cpp's
// common/arg.cpp prints, a description with parentheses of its own, no device, output
// that is not a list, and how the child ended.
#include <gtest/gtest.h>

#include "formats/llama_devices.hpp"

using namespace amdml;
namespace llama = amdml::formats::llama;

namespace {

CommandResult result(std::string out, std::string err = "", int code = 0) {
  CommandResult r;
  r.out = std::move(out);
  r.err = std::move(err);
  r.exit_code = code;
  return r;
}

}  // namespace

TEST(LlamaDevices, ReadsRocmAndVulkanLines) {
  auto l = llama::parse_list_devices(
      "Available devices:\n"
      "  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)\n"
      "  Vulkan0: AMD Radeon 890M Graphics (RADV STRIX1) (36127 MiB, 35117 MiB free)\n");
  EXPECT_TRUE(l.header);
  ASSERT_EQ(l.devices.size(), 2u);
  EXPECT_EQ(l.devices[0].name, "ROCm0");
  EXPECT_EQ(l.devices[0].backend, "ROCm");
  EXPECT_EQ(l.devices[0].description, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(l.devices[0].total_mib, 24560u);
  EXPECT_EQ(l.devices[0].free_mib, 24472u);
  EXPECT_TRUE(llama::is_rocm_device(l.devices[0]));
  EXPECT_EQ(l.devices[1].backend, "Vulkan");
  EXPECT_EQ(l.devices[1].description, "AMD Radeon 890M Graphics (RADV STRIX1)");
  EXPECT_EQ(l.devices[1].free_mib, 35117u);
  EXPECT_FALSE(llama::is_rocm_device(l.devices[1]));
  EXPECT_EQ(llama::device_line(l.devices[1]), "Vulkan0: AMD Radeon 890M Graphics (RADV STRIX1) (36127 MiB, 35117 MiB free)");
  EXPECT_TRUE(l.other.empty());
}

TEST(LlamaDevices, TheHeaderAloneOrNoneIsNoDevice) {
  auto l = llama::parse_list_devices("Available devices:\n");
  EXPECT_TRUE(l.header);
  EXPECT_TRUE(l.devices.empty());
  auto bench = llama::parse_list_devices("Available devices:\n  (none)\n");
  EXPECT_TRUE(bench.header);
  EXPECT_TRUE(bench.devices.empty());
  EXPECT_TRUE(bench.other.empty());
}

TEST(LlamaDevices, LinesBeforeTheHeaderAndMalformedLinesAreNotDevices) {
  auto l = llama::parse_list_devices(
      "ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)\n"  // before the header
      "Available devices:\n"
      "  ROCm1: AMD Radeon (lots MiB, 12 MiB free)\n"
      "  Vulkan0 AMD Radeon (1 MiB, 1 MiB free)\n"
      "  : nameless (1 MiB, 1 MiB free)\n"
      "  HIP0: AMD Instinct MI300X (196592 MiB, 196000 MiB free)\n");
  ASSERT_EQ(l.devices.size(), 1u);
  EXPECT_EQ(l.devices[0].name, "HIP0");
  EXPECT_TRUE(llama::is_rocm_device(l.devices[0]));
  EXPECT_EQ(l.other.size(), 3u);
}

TEST(LlamaDevices, NoHeaderIsNoListWithTheReason) {
  auto usage = llama::device_list(result("", "error: invalid argument: --list-devices\n", 1));
  EXPECT_TRUE(usage.ran);
  EXPECT_FALSE(usage.listed);
  EXPECT_EQ(usage.exit_code, 1);
  EXPECT_EQ(usage.error, "exited with code 1 without a device list");
  EXPECT_EQ(usage.output, "error: invalid argument: --list-devices");
  auto garbage = llama::device_list(result("\x1b[31m\x01 segments\nAvailable: ROCm0 maybe\n"));
  EXPECT_FALSE(garbage.listed);
  EXPECT_EQ(garbage.error, "printed no \"Available devices:\" list");
}

TEST(LlamaDevices, AKilledChildIsNotAListEvenAfterTheHeader) {
  CommandResult r = result("Available devices:\n", "", -1);
  r.timed_out = true;
  r.signal = 9;
  auto d = llama::device_list(r);
  EXPECT_FALSE(d.listed);
  EXPECT_TRUE(d.timed_out);
  EXPECT_EQ(d.error, "did not finish: the child was killed at its time limit");
  r.timed_out = false;
  r.signal = 11;
  r.out = "";
  EXPECT_EQ(llama::device_list(r).error, "killed by signal 11");
}

TEST(LlamaDevices, OutputIsStdoutThenStderrAndBounded) {
  auto d = llama::device_list(result("Available devices:\n", "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"));
  EXPECT_TRUE(d.listed);
  EXPECT_FALSE(d.error);
  EXPECT_EQ(d.output, "Available devices:\nggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected");
  auto big = llama::device_list(result(std::string(10000, 'x') + "\nlast line\n"));
  EXPECT_LE(big.output.size(), 2003u);
  EXPECT_TRUE(big.output.ends_with("last line"));
}
