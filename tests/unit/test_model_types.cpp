// The nouns' own parsers and formats (include/amdml, src/model/types.cpp): gfx targets,
// versions, byte and page units.
#include <gtest/gtest.h>

#include "amdml/gfx.hpp"
#include "amdml/units.hpp"
#include "amdml/version.hpp"

using namespace amdml;

TEST(GfxTarget, DecodesKfdVersions) {
  EXPECT_EQ(GfxTarget::from_kfd_version(90010)->name(), "gfx90a");
  EXPECT_EQ(GfxTarget::from_kfd_version(90012)->name(), "gfx90c");
  EXPECT_EQ(GfxTarget::from_kfd_version(110003)->name(), "gfx1103");
  EXPECT_EQ(GfxTarget::from_kfd_version(110501)->name(), "gfx1151");
  EXPECT_EQ(GfxTarget::from_kfd_version(80003)->name(), "gfx803");
  EXPECT_EQ(GfxTarget::from_kfd_version(120001)->name(), "gfx1201");
  EXPECT_FALSE(GfxTarget::from_kfd_version(0));
  EXPECT_FALSE(GfxTarget::from_kfd_version(91600));  // minor 16 does not fit a hex digit
}

TEST(GfxTarget, ParsesNames) {
  EXPECT_EQ(GfxTarget::parse_name("gfx90a")->kfd_version(), 90010u);
  EXPECT_EQ(GfxTarget::parse_name("gfx1103")->version_string(), "11.0.3");
  EXPECT_EQ(GfxTarget::parse_name("gfx942:sramecc+:xnack-")->name(), "gfx942");
  EXPECT_EQ(GfxTarget::parse_name("amdgcn-amd-amdhsa--gfx1100")->name(), "gfx1100");
  EXPECT_FALSE(GfxTarget::parse_name("gfx"));
  EXPECT_FALSE(GfxTarget::parse_name("11.0.0"));
  EXPECT_FALSE(GfxTarget::parse_name("gfxzz1"));
}

TEST(Version, ParsesLeadingTriple) {
  EXPECT_EQ(Version::parse("7.2.0-39")->str(), "7.2.0");
  EXPECT_EQ(Version::parse("6.8.0-45-generic")->str(), "6.8.0");
  EXPECT_EQ(Version::parse("v0.12.3")->str(), "0.12.3");
  EXPECT_EQ(Version::parse("6.2")->str(), "6.2.0");
  EXPECT_EQ(Version::parse("5.2.3-3")->str(), "5.2.3");
  // Python's post and dev releases, AMD's MMmmpp build part: versions.
  EXPECT_EQ(Version::parse("7.14.0.post1")->str(), "7.14.0");
  EXPECT_EQ(Version::parse("7.15.0.dev0+abc")->str(), "7.15.0");
  EXPECT_EQ(Version::parse("5.1.0.50100-36")->str(), "5.1.0");
  // A file name that starts with a version is none (issue 29 M9).
  EXPECT_FALSE(Version::parse("6.2.4.tar.gz"));
  EXPECT_FALSE(Version::parse("7.14.1.run"));
  EXPECT_FALSE(Version::parse("6.2.zip"));
  EXPECT_FALSE(Version::parse("6.2.4."));
  EXPECT_FALSE(Version::parse("garbage"));
  EXPECT_FALSE(Version::parse("7"));
  EXPECT_LT(*Version::parse("6.10.0"), *Version::parse("6.15.0"));
}

TEST(Units, FormatAndParse) {
  EXPECT_EQ(format_bytes(Bytes{512ULL << 20}), "512 MiB");
  EXPECT_EQ(format_bytes(Bytes{16ULL << 30}), "16 GiB");
  EXPECT_EQ(format_bytes(Bytes{12501098496ULL}), "11.6 GiB");
  Bytes b;
  EXPECT_TRUE(parse_bytes("64GiB", b));
  EXPECT_EQ(b.value, 64ULL << 30);
  EXPECT_TRUE(parse_bytes("512M", b));
  EXPECT_EQ(b.value, 512ULL << 20);
  EXPECT_FALSE(parse_bytes("lots", b));
  EXPECT_FALSE(parse_bytes("12 parsecs", b));
  EXPECT_EQ(Pages{3052026}.bytes().value, 12501098496ULL);
}
