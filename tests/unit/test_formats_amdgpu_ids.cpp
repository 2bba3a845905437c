// libdrm's amdgpu.ids: the pure parser, and the gpus probe naming GPUs by it before the
// built-in table (exact revision first; an unknown revision never picks one model).
#include <gtest/gtest.h>

#include "formats/amdgpu_ids.hpp"

using namespace amdml;

TEST(AmdgpuIds, ParsesLibdrmFormat) {
  auto ids = formats::parse_amdgpu_ids(
      "# List of AMDGPU IDs\n#\n# Syntax:\n# device_id,\trevision_id,\tproduct_name\n\n1.0.0\n"
      "6818,\t00,\tAMD Radeon HD 7800 Series\n"
      "150E,\tC1,\tAMD Radeon 890M Graphics\n"
      "150E,\tC4,\tAMD Radeon 880M Graphics\n"
      "67B1,\t00,\tAMD Radeon R9 200 Series\r\n");
  EXPECT_EQ(ids.version, "1.0.0");
  EXPECT_EQ(ids.malformed, 0);
  ASSERT_EQ(ids.entries.size(), 4u);
  ASSERT_NE(ids.find(0x150e, 0xc4), nullptr);
  EXPECT_EQ(*ids.find(0x150e, 0xc4), "AMD Radeon 880M Graphics");
  EXPECT_EQ(*ids.find(0x67b1, 0x00), "AMD Radeon R9 200 Series");  // CR stripped
  EXPECT_EQ(ids.find(0x150e, 0xc5), nullptr);
  // A device sold under several names has no one name for an unknown revision.
  EXPECT_EQ(ids.only_name(0x150e), nullptr);
  ASSERT_NE(ids.only_name(0x6818), nullptr);
  EXPECT_EQ(*ids.only_name(0x6818), "AMD Radeon HD 7800 Series");
}

TEST(AmdgpuIds, SkipsAndCountsWhatItDoesNotUnderstand) {
  auto ids = formats::parse_amdgpu_ids(
      "1.0.0\n"
      "zz,\t00,\tnot hex\n"
      "12345,\t00,\tdevice too wide\n"
      "6818,\t100,\trevision too wide\n"
      "6818,\t0x00,\tprefixed\n"
      "6818,\t00,\t\n"
      "6818\n"
      "2.0.0\n"
      "6818, 00, AMD Radeon HD 7800 Series\n");
  EXPECT_EQ(ids.entries.size(), 1u);
  EXPECT_EQ(ids.malformed, 7);
  EXPECT_TRUE(formats::parse_amdgpu_ids("").entries.empty());
  EXPECT_TRUE(formats::parse_amdgpu_ids(std::string("\0\0\0", 3)).entries.empty());
}
