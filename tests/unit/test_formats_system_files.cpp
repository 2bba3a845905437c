// Parsers with literal inputs: the values real machines print, and the garbage broken
// ones do.
#include <gtest/gtest.h>

#include "amdml/gfx.hpp"
#include "formats/json.hpp"
#include "formats/system_files.hpp"
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
  EXPECT_FALSE(Version::parse("garbage"));
  EXPECT_FALSE(Version::parse("7"));
  EXPECT_LT(*Version::parse("6.10.0"), *Version::parse("6.15.0"));
}

TEST(Parse, Numbers) {
  EXPECT_EQ(text::u64("3052026\n"), 3052026u);
  EXPECT_FALSE(text::u64("-1"));
  EXPECT_FALSE(text::u64("12x"));
  EXPECT_FALSE(text::u64(""));
  EXPECT_FALSE(text::u64("99999999999999999999999"));
  EXPECT_EQ(text::hex("0x1002\n"), 0x1002u);
  EXPECT_EQ(text::hex("0x030000"), 0x030000u);
  EXPECT_FALSE(text::hex("0x"));
  EXPECT_EQ(text::i64("-1"), -1);
}

TEST(Parse, KfdProperties) {
  auto kv = parse::kfd_properties("cpu_cores_count 0\nsimd_count 24\ngfx_target_version 110003\nbroken\nx y\n");
  EXPECT_EQ(kv.get("simd_count"), 24u);
  EXPECT_EQ(kv.get("gfx_target_version"), 110003u);
  EXPECT_EQ(kv.malformed, 2);
  EXPECT_FALSE(kv.get("missing"));
}

TEST(Parse, OsRelease) {
  auto kv = parse::os_release("NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\n# c\nbad line\nPRETTY_NAME='Ubuntu 24.04.1 LTS'\n");
  EXPECT_EQ(kv["ID"], "ubuntu");
  EXPECT_EQ(kv["VERSION_ID"], "24.04");
  EXPECT_EQ(kv["PRETTY_NAME"], "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(kv.count("bad line"), 0u);
}

TEST(Parse, LoginEnvTakesPlainAssignmentsOnly) {
  auto a = parse::login_env(
      "# comment\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\nROCR_VISIBLE_DEVICES=\"0,1\"\n"
      "  export\tHIP_VISIBLE_DEVICES='1'\nPATH=$PATH:/opt/rocm/bin\nif [ -x /x ]; then\n"
      "X=`id -u`\nY=a b\n1BAD=x\nexported=1\nGGML_X=\"a b\"\n");
  ASSERT_EQ(a.size(), 5u);
  EXPECT_EQ(a[0].name, "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(a[0].value, "11.0.0");
  EXPECT_EQ(a[0].line, 2);
  EXPECT_EQ(a[1].value, "0,1");
  EXPECT_EQ(a[2].name, "HIP_VISIBLE_DEVICES");
  EXPECT_EQ(a[2].value, "1");
  EXPECT_EQ(a[3].name, "exported");
  EXPECT_EQ(a[4].value, "a b");
}

TEST(Parse, ResolvePathWalksLinksLikeTheKernel) {
  // /a dir, /a/f file, /a/rel -> f, /a/abs -> /a/f, /loop -> /loop, /a/up -> ../a
  auto lookup = [](const std::string& p, bool) {
    using K = paths::PathNode::Kind;
    if (p == "/a") return paths::PathNode{K::directory, ""};
    if (p == "/a/f") return paths::PathNode{K::other, ""};
    if (p == "/a/rel") return paths::PathNode{K::symlink, "f"};
    if (p == "/a/abs") return paths::PathNode{K::symlink, "/a/f"};
    if (p == "/a/up") return paths::PathNode{K::symlink, "../a"};
    if (p == "/loop") return paths::PathNode{K::symlink, "/loop"};
    return paths::PathNode{};
  };
  EXPECT_EQ(paths::resolve_path("/a/rel", true, 40, lookup), "/a/f");
  EXPECT_EQ(paths::resolve_path("/a/abs", true, 40, lookup), "/a/f");
  EXPECT_EQ(paths::resolve_path("/a/rel", false, 40, lookup), "/a/rel");
  EXPECT_EQ(paths::resolve_path("/../a/./up/up/f", true, 40, lookup), "/a/f");
  EXPECT_FALSE(paths::resolve_path("/a/f/x", true, 40, lookup));  // a file has no children
  EXPECT_FALSE(paths::resolve_path("/a/missing", true, 40, lookup));
  EXPECT_FALSE(paths::resolve_path("/loop", true, 40, lookup));
  EXPECT_EQ(paths::resolve_path("/loop", false, 40, lookup), "/loop");
}

TEST(Parse, Meminfo) {
  auto kv = parse::meminfo("MemTotal:       32614876 kB\nMemAvailable:   20000000 kB\nHugePages_Total:       0\nJunk\n");
  EXPECT_EQ(kv["MemTotal"], 32614876ULL * 1024);
  EXPECT_EQ(kv["HugePages_Total"], 0u);
}

TEST(Parse, GroupAndPasswd) {
  auto g = parse::group_file("root:x:0:\nvideo:x:44:alice,bob\nrender:x:992:\nbroken\nneg:x:-1:\n");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[1].members.size(), 2u);
  EXPECT_EQ(g[2].gid, 992u);
  auto p = parse::passwd_file("alice:x:1000:1000:Alice:/home/alice:/bin/bash\nbad:x\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].home, "/home/alice");
}

TEST(Parse, Cmdline) {
  auto c = parse::cmdline("BOOT_IMAGE=/vmlinuz quiet amdgpu.gttsize=128000 amdttm.pages_limit=32768000 foo=\"a b\"\n");
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[2].first, "amdgpu.gttsize");
  EXPECT_EQ(c[2].second, "128000");
  EXPECT_EQ(c[4].second, "a b");
}

TEST(Parse, ModprobeConf) {
  auto m = parse::modprobe_conf(
      "# tuned for the APU\noptions ttm pages_limit=12582912 page_pool_size=12582912\n"
      "options amd-ttm pages_limit=1 \\\n  page_pool_size=2\nblacklist radeon\nthis is garbage\n");
  ASSERT_EQ(m.options.size(), 4u);
  EXPECT_EQ(m.options[0].module, "ttm");
  EXPECT_EQ(m.options[0].line, 2);
  EXPECT_EQ(m.options[1].key, "page_pool_size");
  EXPECT_EQ(m.options[2].module, "amd_ttm");
  EXPECT_EQ(m.options[3].value, "2");
  ASSERT_EQ(m.bad_lines.size(), 1u);
  EXPECT_EQ(m.bad_lines[0].first, 6);  // "this is garbage" is line 6
}

TEST(Parse, ModprobeConfNamesOptionsAsModprobeReadsThem) {
  // modprobe reads '-' and '_' alike in option names too: the probe, the rules and the
  // TTM recipe all see pages_limit however the person spelled it.
  auto m = parse::modprobe_conf("options amdttm pages-limit=25165824 page-pool-size=1\n");
  ASSERT_EQ(m.options.size(), 2u);
  EXPECT_EQ(m.options[0].key, "pages_limit");
  EXPECT_EQ(m.options[0].value, "25165824");
  EXPECT_EQ(m.options[1].key, "page_pool_size");
  EXPECT_EQ(parse::modprobe_name("amd-ttm"), "amd_ttm");
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

TEST(ParseJson, DepthIsBoundedOutsideStrings) {
  auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(parse_json(nested(kMaxJsonDepth)).ok());
  auto deep = parse_json(nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message, "nested deeper than 64 levels");
  EXPECT_FALSE(parse_json(nested(300000)).ok());
  // Brackets and escaped quotes inside strings do not count.
  auto s = parse_json("{\"a\": \"" + std::string(100, '[') + "\\\"[[\", \"b\": [{}]}");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)["b"].size(), 1u);
  EXPECT_EQ(parse_json("{\"a\": ").error().message, "not valid JSON");
}
