// formats/fix_params_json: typed fix parameters spelt exactly as the report's fix.params
// and the fix journal spelt the JSON they replaced (keys sorted, optional keys left out),
// and read back strictly.
#include <gtest/gtest.h>

#include "formats/fix_params_json.hpp"

using namespace amdml;

namespace {

std::string fix_params_text(const FixParams& p) { return formats::fix_params_json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

TEST(FixParamsJson, EachKindIsSpeltAsTheReportSpellsIt) {
  EXPECT_EQ(fix_params_text(GroupsParams{"alice", {"video", "render"}}), R"({"groups":["video","render"],"user":"alice"})");
  EXPECT_EQ(fix_params_text(TtmLimitParams{"ttm", Pages{6815744}, Pages{6815744}}),
            R"({"module":"ttm","page_pool_size":6815744,"pages_limit":6815744})");
  EXPECT_EQ(fix_params_text(TtmLimitParams{"amdttm", Pages{27262976}, std::nullopt}), R"({"module":"amdttm","pages_limit":27262976})");
  EXPECT_EQ(fix_params_text(HsaParams{"11.0.0", {}}), R"({"value":"11.0.0"})");
  EXPECT_EQ(fix_params_text(HsaParams{std::nullopt, {{"2", "10.3.0"}, {"10", "11.0.0"}}}),
            R"({"per_node":{"10":"11.0.0","2":"10.3.0"}})");
  EXPECT_EQ(fix_params_text(HsaParams{"10.3.0", {}, {"HSA_OVERRIDE_GFX_VERSION_1"}}),
            R"({"shell_unset":["HSA_OVERRIDE_GFX_VERSION_1"],"value":"10.3.0"})");
  EXPECT_EQ(fix_params_text(EnvParams{{{"OLLAMA_IGPU_ENABLE", "1"}, {"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}}, {}}),
            R"({"env":{"HSA_OVERRIDE_GFX_VERSION":"11.0.0","OLLAMA_IGPU_ENABLE":"1"}})");
  EXPECT_EQ(fix_params_text(EnvParams{{}, {"HSA_OVERRIDE_GFX_VERSION_1"}}), R"({"env":{},"unset":["HSA_OVERRIDE_GFX_VERSION_1"]})");
  // Bytes that are not UTF-8 (a user name from a broken /etc/passwd) do not throw.
  EXPECT_EQ(fix_params_text(GroupsParams{"al\xffice", {"render"}}), "{\"groups\":[\"render\"],\"user\":\"al\xef\xbf\xbdice\"}");
}

TEST(FixParamsJson, WhatIsWrittenReadsBackTheSame) {
  for (const FixParams& p : {FixParams(GroupsParams{"alice", {"render"}}),
                             FixParams(TtmLimitParams{"ttm", Pages{6815744}, std::nullopt}),
                             FixParams(HsaParams{std::nullopt, {{"1", "11.0.0"}}}),
                             FixParams(HsaParams{std::nullopt, {{"1", "11.0.0"}}, {"HSA_OVERRIDE_GFX_VERSION"}}),
                             FixParams(EnvParams{{{"A", "1"}}, {"B"}})}) {
    auto back = formats::parse_fix_params(formats::fix_params_json(p));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, p) << fix_params_text(p);
  }
}

TEST(FixParamsJson, ReadingIsStrict) {
  using nlohmann::json;
  for (const json& bad : {json::array(), json::object(), json{{"user", "alice"}, {"module", "ttm"}},
                          json{{"user", 5}}, json{{"groups", "render"}}, json{{"groups", {"render", 1}}},
                          json{{"pages_limit", -5}}, json{{"pages_limit", "6291456"}}, json{{"pages_limit", 1.5}},
                          json{{"value", 11}}, json{{"per_node", json::object()}}, json{{"per_node", {{"1", 11}}}},
                          json{{"env", {"A"}}}, json{{"unset", "A"}}, json{{"valu", "11.0.0"}},
                          json{{"value", "11.0.0"}, {"shell_unset", "A"}}, json{{"env", json::object()}, {"shell_unset", {"A"}}}}) {
    auto r = formats::parse_fix_params(bad);
    EXPECT_FALSE(r) << bad.dump();
    if (!r) {
      EXPECT_TRUE(r.error().message.starts_with("fix parameters: ")) << r.error().message;
    }
  }
  // Positive counts spelt as signed JSON integers (a literal in a test, a hand-written
  // report) read as pages.
  auto ttm = formats::parse_fix_params(json{{"module", "ttm"}, {"pages_limit", 65536}});
  ASSERT_TRUE(ttm);
  EXPECT_EQ(std::get<TtmLimitParams>(*ttm).pages_limit, Pages{65536});
}

TEST(FixParamsJson, RocmInstallParamsRoundTripAndStayApartFromGroups) {
  RocmInstallParams p{"7.2", "https://repo.radeon.com/rocm/apt/7.2.1", "https://repo.radeon.com/amdgpu/30.30.1/ubuntu",
                      "noble", "https://repo.radeon.com/rocm/rocm.gpg.key", "repo.radeon.com", {"rocm"},
                      {"libhsa-runtime64-1"}, "alice", {"render", "video"}};
  auto j = formats::fix_params_json(p);
  EXPECT_FALSE(j.contains("manager"));  // apt: the default, not written
  p.channel = "amd-core-10";
  p.manager = "dnf";
  p.fingerprint = "D0F004A0025A1145C7807FCD0701EAC4D5E02107";
  j = formats::fix_params_json(p);
  EXPECT_EQ(j["manager"], "dnf");
  EXPECT_EQ(j["login"], "alice");  // not "user": that key is the groups recipe's
  EXPECT_FALSE(j.contains("user"));
  auto back = formats::parse_fix_params(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, FixParams(p));
  EXPECT_FALSE(formats::parse_fix_params(nlohmann::json{{"release", "7.2"}, {"user", "alice"}}));
  EXPECT_FALSE(formats::parse_fix_params(nlohmann::json{{"install", "rocm"}}));
}

TEST(FixParamsJson, RocmInstallSetAsideReadsBack) {
  RocmInstallParams p{"7.2", "https://repo.radeon.com/rocm/apt/7.2.1", "https://repo.radeon.com/amdgpu/30.30.1/ubuntu",
                      "noble", "https://repo.radeon.com/rocm/rocm.gpg.key", "repo.radeon.com", {"rocm"}, {}, "", {},
                      {"/opt/rocm-6.2.4"}};
  auto j = formats::fix_params_json(p);
  EXPECT_EQ(j["set_aside"], nlohmann::json::array({"/opt/rocm-6.2.4"}));
  auto back = formats::parse_fix_params(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, FixParams(p));
  // A list of directories, and a rocm-install key only.
  EXPECT_FALSE(formats::parse_fix_params(nlohmann::json{{"release", "7.2"}, {"set_aside", "/opt/rocm-6.2.4"}}));
  EXPECT_FALSE(formats::parse_fix_params(nlohmann::json{{"set", {{"a.b", "1"}}}, {"set_aside", {"/opt/rocm-6.2.4"}}}));
}
