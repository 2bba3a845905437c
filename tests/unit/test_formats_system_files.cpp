// The system-file codecs with literal inputs (formats/system_files): the values real
// machines hold, and the garbage broken ones do.
#include <gtest/gtest.h>

#include "formats/group_lines.hpp"
#include "formats/system_files.hpp"

using namespace amdml;

TEST(Parse, KfdProperties) {
  auto kv = formats::parse::kfd_properties("cpu_cores_count 0\nsimd_count 24\ngfx_target_version 110003\nbroken\nx y\n");
  EXPECT_EQ(kv.get("simd_count"), 24u);
  EXPECT_EQ(kv.get("gfx_target_version"), 110003u);
  EXPECT_EQ(kv.malformed, 2);
  EXPECT_FALSE(kv.get("missing"));
}

TEST(Parse, OsRelease) {
  auto kv = formats::parse::os_release("NAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\nID=ubuntu\n# c\nbad line\nPRETTY_NAME='Ubuntu 24.04.1 LTS'\n");
  EXPECT_EQ(kv["ID"], "ubuntu");
  EXPECT_EQ(kv["VERSION_ID"], "24.04");
  EXPECT_EQ(kv["PRETTY_NAME"], "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(kv.count("bad line"), 0u);
}

TEST(Parse, LoginEnvTakesPlainAssignmentsOnly) {
  auto a = formats::parse::login_env(
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

TEST(Parse, Meminfo) {
  auto kv = formats::parse::meminfo("MemTotal:       32614876 kB\nMemAvailable:   20000000 kB\nHugePages_Total:       0\nJunk\n");
  EXPECT_EQ(kv["MemTotal"], 32614876ULL * 1024);
  EXPECT_EQ(kv["HugePages_Total"], 0u);
}

TEST(Parse, GroupAndPasswd) {
  auto g = formats::parse::group_file("root:x:0:\nvideo:x:44:alice,bob\nrender:x:992:\nbroken\nneg:x:-1:\n");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[1].members.size(), 2u);
  EXPECT_EQ(g[2].gid, 992u);
  auto p = formats::parse::passwd_file("alice:x:1000:1000:Alice:/home/alice:/bin/bash\nbad:x\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].home, "/home/alice");
}

TEST(Parse, Cmdline) {
  auto c = formats::parse::cmdline("BOOT_IMAGE=/vmlinuz quiet amdgpu.gttsize=128000 amdttm.pages_limit=32768000 foo=\"a b\"\n");
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[2].first, "amdgpu.gttsize");
  EXPECT_EQ(c[2].second, "128000");
  EXPECT_EQ(c[4].second, "a b");
}

TEST(Parse, ModprobeConf) {
  auto m = formats::parse::modprobe_conf(
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
  auto m = formats::parse::modprobe_conf("options amdttm pages-limit=25165824 page-pool-size=1\n");
  ASSERT_EQ(m.options.size(), 2u);
  EXPECT_EQ(m.options[0].key, "pages_limit");
  EXPECT_EQ(m.options[0].value, "25165824");
  EXPECT_EQ(m.options[1].key, "page_pool_size");
  EXPECT_EQ(formats::parse::modprobe_name("amd-ttm"), "amd_ttm");
}

TEST(Parse, DpkgStanzasSplitAtBlankLines) {
  auto s = formats::parse::dpkg_stanzas("Package: a\nStatus: x\n\nPackage: b\n\nPackage: c");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], "Package: a\nStatus: x\n");
  EXPECT_EQ(s[1], "Package: b\n");
  EXPECT_EQ(s[2], "Package: c");
  EXPECT_TRUE(formats::parse::dpkg_stanzas("").empty());
}

// dpkg's status by package-name predicate: only the stanzas want accepts are parsed,
// fields wherever they stand in the stanza, installed when Status's state word is "installed".
TEST(DpkgPackages, OnlyWantedStanzasWithTheirVersionAndState) {
  const std::string status =
      "Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\n\n"
      "Package: rocminfo\nStatus: install ok installed\nPriority: optional\nVersion: 6.2.4-1\n\n"
      "Status: deinstall ok config-files\nPackage: rocm-core\nVersion: 6.1.0\n\n"
      "Package: linux-firmware\nStatus: install ok installed\nVersion: 20240318\nDescription: x\n Package: rocm-fake\n\n"
      "Package: rocm-hip\nStatus: install ok half-configured\n";
  std::vector<std::string> asked;
  auto rocm = formats::parse::dpkg_packages(status, [&](std::string_view n) {
    asked.emplace_back(n);
    return n.starts_with("roc");
  });
  EXPECT_EQ(asked, (std::vector<std::string>{"libc6", "rocminfo", "rocm-core", "linux-firmware", "rocm-hip"}));
  ASSERT_EQ(rocm.size(), 3u);
  EXPECT_EQ(rocm[0].name, "rocminfo");
  EXPECT_EQ(rocm[0].version, "6.2.4-1");
  EXPECT_TRUE(rocm[0].installed());
  EXPECT_EQ(rocm[1].name, "rocm-core");
  EXPECT_FALSE(rocm[1].installed());
  EXPECT_EQ(rocm[1].state, formats::parse::DpkgState::config_files);
  EXPECT_EQ(rocm[2].name, "rocm-hip");
  EXPECT_EQ(rocm[2].version, "");
  EXPECT_FALSE(rocm[2].installed());
  EXPECT_EQ(rocm[2].state, formats::parse::DpkgState::half_configured);
  // Another reader, its own predicate: the firmware package.
  auto fw = formats::parse::dpkg_packages(status, [](std::string_view n) { return n == "linux-firmware"; });
  ASSERT_EQ(fw.size(), 1u);
  EXPECT_EQ(fw[0].version, "20240318");
  EXPECT_TRUE(formats::parse::dpkg_packages("", [](std::string_view) { return true; }).empty());
}

// The state is Status's third word alone: a held or deinstall-selected package is still
// installed; what an interrupted dpkg leaves is on disk but not installed; config-files is
// neither; a Status dpkg would not write is unknown.
TEST(DpkgPackages, TheStateIsStatusThirdWord) {
  using formats::parse::DpkgState;
  const std::string status =
      "Package: rocm-core\nStatus: hold ok installed\n\n"
      "Package: rocm-smi-lib\nStatus: deinstall ok installed\n\n"
      "Package: rocminfo\nStatus: install ok triggers-pending\n\n"
      "Package: amdgpu-dkms\nStatus: install ok half-configured\n\n"
      "Package: rocm-hip\nStatus: install reinstreq half-installed\n\n"
      "Package: rocm\nStatus: install ok unpacked\n\n"
      "Package: rocm-llvm\nStatus: deinstall ok config-files\n\n"
      "Package: rocm-dev\nStatus: purge ok not-installed\n\n"
      "Package: rocm-bad\nStatus: install ok\n\n"
      "Package: rocm-odd\nStatus: install ok installed-ish\n\n"
      "Package: rocm-none\nVersion: 1\n";
  auto all = formats::parse::dpkg_packages(status, [](std::string_view) { return true; });
  std::vector<DpkgState> states;
  std::vector<std::string> installed, on_disk;
  for (const auto& p : all) {
    states.push_back(p.state);
    if (p.installed()) installed.push_back(p.name);
    if (p.on_disk()) on_disk.push_back(p.name);
  }
  EXPECT_EQ(states, (std::vector<DpkgState>{DpkgState::installed, DpkgState::installed, DpkgState::triggers_pending,
                                            DpkgState::half_configured, DpkgState::half_installed, DpkgState::unpacked,
                                            DpkgState::config_files, DpkgState::not_installed, DpkgState::unknown,
                                            DpkgState::unknown, DpkgState::unknown}));
  EXPECT_EQ(installed, (std::vector<std::string>{"rocm-core", "rocm-smi-lib"}));
  EXPECT_EQ(on_disk, (std::vector<std::string>{"rocm-core", "rocm-smi-lib", "rocminfo", "amdgpu-dkms", "rocm-hip", "rocm"}));
}

// /etc/group's line model: joining the lines gives the bytes back (CRLF, no final
// newline, comments, NIS entries, blanks), and reading (group_file) and editing
// (add_member) see the same fields, blanks around them included.
TEST(GroupLines, RoundTripAndOneReadingOfTheFields) {
  namespace group = formats::group;
  const std::string text = "# local\r\n  render:x:992: bob ,\t,carol \r\n+nis\n-other:x:5:\nbad:x:1\nvideo:x:44:";
  auto ls = group::lines(text);
  EXPECT_EQ(group::join(ls), text);
  ASSERT_EQ(ls.size(), 6u);
  EXPECT_TRUE(ls[0].fields.empty());
  EXPECT_EQ(ls[1].end, "\r\n");
  EXPECT_EQ(ls[1].fields, (std::vector<std::string>{"render", "x", "992", " bob ,\t,carol"}));
  EXPECT_TRUE(ls[2].fields.empty());  // NIS compat entries are not groups
  EXPECT_TRUE(ls[3].fields.empty());
  EXPECT_TRUE(ls[4].fields.empty());  // three fields
  EXPECT_EQ(ls[5].end, "");
  EXPECT_EQ(group::members(ls[1].fields[3]), (std::vector<std::string>{"bob", "carol"}));
  auto parsed = formats::parse::group_file(text);
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].members, (std::vector<std::string>{"bob", "carol"}));
  group::add_member(ls[1], "alice");
  group::add_member(ls[5], "alice");
  EXPECT_EQ(group::join(ls), "# local\r\n  render:x:992: bob ,\t,carol,alice \r\n+nis\n-other:x:5:\nbad:x:1\nvideo:x:44:alice");
  EXPECT_EQ(formats::parse::group_file(group::join(ls))[0].members, (std::vector<std::string>{"bob", "carol", "alice"}));
}
