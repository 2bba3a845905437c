// `amdml explain` end to end through the built binary: each kind of subject, JSON, and
// the one-line error with exit 2 for an unknown subject.
#include <array>
#include <set>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include <sys/wait.h>

using namespace amdml::test;

TEST(Explain, GfxTargetText) {
  auto r = run_amdml("explain gfx1032");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Navi 23"), std::string::npos);
  EXPECT_NE(r.out.find("HSA_OVERRIDE_GFX_VERSION=10.3.0"), std::string::npos);
  EXPECT_NE(r.out.find("1002:73ff rev c1 AMD Radeon RX 6600 XT"), std::string::npos);
  EXPECT_NE(r.out.find("download.pytorch.org/whl/rocm"), std::string::npos);
}

TEST(Explain, GfxJsonHasSupportPerRelease) {
  auto r = run_amdml("explain 11.0.3 --format json");
  ASSERT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "amdml.explain/1");
  EXPECT_EQ(j["kind"], "gfx");
  EXPECT_EQ(j["gfx"]["gfx_target"], "gfx1103");
  EXPECT_EQ(j["gfx"]["override"], "11.0.0");
  std::string first, last;
  for (const auto& rel : j["gfx"]["rocm"]) {
    if (rel["rocm"] == "5.7") first = rel["status"];
    if (rel["rocm"] == "7.2") last = rel["status"];
  }
  EXPECT_EQ(first, "override");
  EXPECT_EQ(last, "kernels");
}

TEST(Explain, PciIdInEverySpelling) {
  for (const char* s : {"1002:15bf", "15bf", "0x15BF"}) {
    auto r = run_amdml(std::string("explain ") + s + " --format json");
    ASSERT_EQ(r.code, 0) << s;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["kind"], "pci");
    EXPECT_EQ(j["pci_id"], "1002:15bf");
    EXPECT_EQ(j["gfx"][0]["gfx_target"], "gfx1103");
  }
  // A device whose revisions map to two targets shows both.
  auto j = nlohmann::json::parse(run_amdml("explain 73ff --format json").out);
  EXPECT_EQ(j["gfx"].size(), 2u);
}

TEST(Explain, FindingPage) {
  auto r = run_amdml("explain memory.gtt-limit");
  EXPECT_EQ(r.code, 0);
  EXPECT_TRUE(r.out.starts_with("# memory.gtt-limit"));
  auto j = nlohmann::json::parse(run_amdml("explain gfx.override-needed --format json").out);
  EXPECT_EQ(j["kind"], "finding");
  EXPECT_EQ(j["severity"], "error");
  EXPECT_NE(j["page"].get<std::string>().find("HSA_OVERRIDE_GFX_VERSION"), std::string::npos);
}

TEST(Explain, UnknownSubjectIsAUsageError) {
  for (const char* s : {"gfx9999", "abcd", "no.such-id", "1002:zzzz"}) {
    auto r = run_amdml(std::string("explain ") + s);
    EXPECT_EQ(r.code, 2) << s;
    EXPECT_TRUE(r.out.empty()) << s;
  }
  auto r = run_amdml("explain gfx9999 --format json");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(nlohmann::json::parse(r.out).contains("error"));
}

// Issue 26: the release table runs through the 10.x releases with their dates, and the
// install channels for the target are listed (text and JSON).
TEST(Explain, ReleaseTableThrough10xAndChannelsPerTarget) {
  auto t = run_amdml("explain gfx1151");
  ASSERT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("7.14    2026-07-15  official support"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("10.1    2026-10-05  official support"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Install ROCm 10.1"), std::string::npos);
  EXPECT_NE(t.out.find("amdrocm10.1-gfx1151"), std::string::npos);
  EXPECT_NE(t.out.find("rocm-sdk-device-gfx1151"), std::string::npos);
  auto r = run_amdml("explain gfx1151 --format json");
  ASSERT_EQ(r.code, 0);
  auto j = nlohmann::json::parse(r.out)["gfx"];
  bool ten = false;
  for (const auto& rel : j["rocm"])
    if (rel["rocm"] == "10.1") ten = rel["status"] == "official" && rel["date"] == "2026-10-05";
  EXPECT_TRUE(ten);
  std::set<std::string> kinds;
  for (const auto& in : j["install"]) {
    EXPECT_EQ(in["rocm"], "10.1");
    kinds.insert(in["kind"].get<std::string>());
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"apt", "dnf", "pip", "tarball"}));
}
