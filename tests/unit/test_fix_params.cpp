// fix/params.cpp checks names and values with hand-written matchers (no std::regex at
// start-up, issue 16). This test keeps the regular expressions they replaced as the
// oracle and compares the two on edge cases and on generated strings.
#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "amdml/facts.hpp"
#include "fix/params.hpp"
#include "support/knowledge.hpp"

using namespace amdml;
using namespace amdml::fix;
using amdml::test::params_json;

namespace {

const char kAlphabet[] = "azAZ09_.-$,:/+=@ \"'`;\n\t\x01";

std::vector<std::string> samples(std::size_t max_len) {
  std::vector<std::string> out = {"", "a", "_", "-", ".", "$", "a$", "a$$", "$a", "a-b.c_d", "1abc", "Abc",
                                  "HSA_OVERRIDE_GFX_VERSION", "11.0.0", "9.4.2", "63.255.255", "64.0.0",
                                  "10.3.00", "010.3.0", "1.1000.0", "1..0", "1.0.", ".1.0", "1.0.0.0",
                                  std::string(31, 'a'), std::string(32, 'a'), std::string(33, 'a'),
                                  std::string(32, 'a') + "$", std::string(33, 'a') + "$", std::string(127, 'A'),
                                  std::string(128, 'A'), std::string(129, 'A'), std::string(256, 'x'),
                                  std::string(257, 'x'), std::string("a\0b", 3)};
  std::mt19937 rng(16);
  for (int i = 0; i < 3000; ++i) {
    std::string s(rng() % max_len, ' ');
    for (auto& c : s) c = kAlphabet[rng() % (sizeof kAlphabet - 1)];
    out.push_back(s);
    std::string d = std::to_string(rng() % 120) + "." + std::to_string(rng() % 1200) + "." + std::to_string(rng() % 300);
    out.push_back(d);
  }
  return out;
}

Facts facts_with_user(const std::string& name) {
  Facts f;
  f.identity.passwd.push_back({name, 1000, 1000, "/home/x", "/bin/sh"});
  return f;
}

}  // namespace

// libhsakmt reads three decimal numbers: any number of digits, so leading zeros are
// harmless ("11.0.0000" is 11.0.0), which an earlier {1,3}-digit regex here rejected.
TEST(FixParamsMatch, GfxOverrideAgreesWithTheRegex) {
  const std::regex re("^([0-9]+)\\.([0-9]+)\\.([0-9]+)$");
  for (const auto& s : samples(12)) {
    std::smatch m;
    bool want = std::regex_match(s, m, re) && std::stoull(m[1]) <= 63 && std::stoull(m[2]) <= 255 && std::stoull(m[3]) <= 255;
    EXPECT_EQ(valid_gfx_override(s), want) << '"' << s << '"';
  }
  // The fix accepts what the rules and the knowledge loader accept (amdml/gfx.hpp).
  for (const char* v : {"11.0.0000", "010.3.0", "9.0.10", "63.255.255"})
    EXPECT_EQ(valid_gfx_override(v), parse_gfx_override(v).has_value()) << v;
  EXPECT_TRUE(valid_gfx_override("11.0.0000"));
}

TEST(FixParamsMatch, UserAndGroupNamesAgreeWithTheRegex) {
  const std::regex user("^[a-z_][a-z0-9_.-]{0,31}\\$?$");
  const std::regex group("^[a-z_][a-z0-9_.-]{0,31}$");
  for (const auto& s : samples(36)) {
    if (s == "root") continue;
    auto u = parse_groups_params(params_json({{"user", s}, {"groups", {"render"}}}), facts_with_user(s));
    EXPECT_EQ(u.ok(), std::regex_match(s, user)) << '"' << s << '"';
    auto g = parse_groups_params(params_json({{"user", "alice"}, {"groups", {s}}}), facts_with_user("alice"));
    EXPECT_EQ(g.ok(), std::regex_match(s, group)) << '"' << s << '"';
  }
}

TEST(FixParamsMatch, EnvNamesAndValuesAgreeWithTheRegex) {
  const std::regex name("^[A-Za-z_][A-Za-z0-9_]{0,127}$");
  const std::regex value("^[A-Za-z0-9._,:/+=@-]{1,256}$");
  for (const auto& s : samples(260)) {
    if (s == "HSA_OVERRIDE_GFX_VERSION") continue;
    auto n = parse_env_params("env", params_json({{"env", {{s, "1"}}}}));
    EXPECT_EQ(n.ok(), std::regex_match(s, name)) << '"' << s << '"';
    auto v = parse_env_params("env", params_json({{"env", {{"MY_VAR", s}}}}));
    EXPECT_EQ(v.ok(), std::regex_match(s, value)) << '"' << s << '"';
  }
}

TEST(FixParamsRocm, NonsenseIsRefusedBeforeItBecomesASourceLine) {
  Facts facts;
  RocmInstallParams good{"7.2", "https://repo.radeon.com/rocm/apt/7.2.1", "https://repo.radeon.com/amdgpu/30.30.1/ubuntu",
                         "noble", "https://repo.radeon.com/rocm/rocm.gpg.key", "repo.radeon.com", {"rocm"}, {}, "", {}};
  good.fingerprint = "CA8BB4727A47B4D09B4EE8969386B48A1A693C5C";
  EXPECT_TRUE(parse_rocm_params(good, facts));
  auto refused = [&](auto change) {
    RocmInstallParams p = good;
    change(p);
    return !parse_rocm_params(p, facts);
  };
  EXPECT_TRUE(refused([](auto& p) { p.rocm_repo = "https://repo.radeon.com/rocm/apt/7.2.1 noble main\ndeb http://evil"; }));
  EXPECT_TRUE(refused([](auto& p) { p.rocm_repo = "ftp://repo.radeon.com/rocm"; }));
  EXPECT_TRUE(refused([](auto& p) { p.key_url = "http://repo.radeon.com/rocm/rocm.gpg.key"; }));  // a key over plain http
  EXPECT_TRUE(refused([](auto& p) { p.codename = "noble main"; }));
  EXPECT_TRUE(refused([](auto& p) { p.install = {}; }));
  EXPECT_TRUE(refused([](auto& p) { p.install = {"rocm; rm -rf /"}; }));
  EXPECT_TRUE(refused([](auto& p) { p.remove = {"-y"}; }));
  EXPECT_TRUE(refused([](auto& p) { p.user = "nobody-in-passwd"; p.groups = {"render"}; }));
  // The key's fingerprint is pinned: 40 upper-case hex digits, nothing else.
  EXPECT_TRUE(refused([](auto& p) { p.fingerprint = ""; }));
  EXPECT_TRUE(refused([](auto& p) { p.fingerprint = "ca8bb4727a47b4d09b4ee8969386b48a1a693c5c"; }));
  EXPECT_TRUE(refused([](auto& p) { p.fingerprint = "CA8BB4727A47B4D0"; }));
  EXPECT_TRUE(refused([](auto& p) { p.manager = "zypper"; }));
  EXPECT_TRUE(refused([](auto& p) { p.channel = "amd core"; }));
  // TheRock's repositories: suite "stable", no driver repository, no pin.
  EXPECT_FALSE(refused([](auto& p) {
    p.rocm_repo = "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/";
    p.graphics_repo = "";
    p.codename = "stable";
    p.origin = "";
  }));
  // The distribution's own packages: no repository and no key; never apt.
  EXPECT_FALSE(refused([](auto& p) {
    p.manager = "dnf";
    p.rocm_repo = p.graphics_repo = p.key_url = p.fingerprint = p.codename = p.origin = "";
  }));
  EXPECT_TRUE(refused([](auto& p) { p.rocm_repo = p.key_url = ""; }));
  // set_aside: release directories directly under /opt, nothing else is ever renamed.
  EXPECT_FALSE(refused([](auto& p) { p.set_aside = {"/opt/rocm-6.2.4", "/opt/rocm-7.0.2"}; }));
  for (const char* dir : {"/etc", "/opt/rocm", "/opt/rocm-current", "/opt/rocm-6.2.4/lib", "/opt/rocm-6.2.4/..",
                          "/opt/../etc/rocm-6", "opt/rocm-6.2.4", "/usr/rocm-6.2.4"}) {
    SCOPED_TRACE(dir);
    EXPECT_TRUE(refused([&](auto& p) { p.set_aside = {dir}; }));
  }
  // Any other name of a release directory is moved aside (issue 29 L3): amdml renames
  // through no shell and the printed `run:` line quotes it, so a copy with a blank, or a
  // name full of shell syntax, refuses nothing.
  for (const char* dir : {"/opt/rocm-6.2.4 (copy)", "/opt/rocm-6.1.0;touch${IFS}X", "/opt/rocm-6.1.0$(id)`id`|&'\"",
                          "/opt/rocm-6.1.0\nx\xff"}) {
    SCOPED_TRACE(dir);
    EXPECT_FALSE(refused([&](auto& p) { p.set_aside = {dir}; }));
  }
}
