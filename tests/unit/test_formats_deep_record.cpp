// The deep record codec: what a deep child prints reads back to the same step, the
// whole record round-trips, and a value of the wrong kind is an error naming the key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "formats/deep_record.hpp"

using namespace amdml;
using nlohmann::json;

TEST(DeepRecord, StepRoundTrips) {
  const json j = json::parse(R"({"step":"memory","status":"failed","elapsed_ms":812,"timeout_ms":9000,
    "allocations":[{"pool":"vram","target":16379707392,"allocated":536870912,"chunk":1073741824,"stop":"error",
                    "error":"HSA_STATUS_ERROR_OUT_OF_RESOURCES","mem_available":28173100032,"bound":24897155072}]})");
  auto s = formats::parse_deep_step(j);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->kind, DeepStepKind::memory);
  EXPECT_EQ(s->outcome, DeepOutcome::failed);
  ASSERT_EQ(s->allocs.size(), 1u);
  EXPECT_EQ(s->allocs[0].stop, DeepAllocStop::error);
  EXPECT_EQ(s->allocs[0].allocated.value, 536870912u);
  EXPECT_EQ(s->allocs[0].bound->value, 24897155072u);
  EXPECT_EQ(formats::deep_step_json(*s), j);
}

TEST(DeepRecord, RecordRoundTripsAndKeepsTheBudget) {
  DeepFacts d;
  d.budget_ms = 20000;
  d.elapsed_ms = 4100;
  d.budget_spent = true;
  DeepGpu g;
  g.agent = 1;
  g.name = "gfx1100";
  DeepStep c;
  c.kind = DeepStepKind::copy;
  c.outcome = DeepOutcome::ok;
  c.bytes = Bytes{64ull << 20};
  c.h2d_gbps = 24.5;
  c.d2h_gbps = 23.75;
  c.data_ok = true;
  DeepStep f;
  f.kind = DeepStepKind::fill;
  f.outcome = DeepOutcome::timed_out;
  f.last_step = "hsa_amd_memory_fill";
  g.steps = {c, f};
  d.gpus = {g};
  auto back = formats::parse_deep_record(formats::deep_record_json(d));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->asked);
  EXPECT_TRUE(back->budget_spent);
  ASSERT_EQ(back->gpus.size(), 1u);
  EXPECT_EQ(back->gpus[0].agent, 1);
  EXPECT_EQ(back->gpus[0].steps[0].h2d_gbps, 24.5);
  EXPECT_EQ(back->gpus[0].steps[1].outcome, DeepOutcome::timed_out);
  EXPECT_EQ(back->gpus[0].steps[1].last_step, "hsa_amd_memory_fill");
  EXPECT_EQ(formats::deep_record_json(*back), formats::deep_record_json(d));
}

TEST(DeepRecord, TheLinkRoundTripsForReplaysAndSnapshots) {
  DeepFacts d;
  DeepGpu g;
  g.name = "gfx1100";
  DeepLink l;
  l.slot = "0000:23:00.0";
  l.current = PcieLink{8.0, 4};
  l.max = PcieLink{16.0, 16};
  l.limited_at = "0000:21:00.0";
  l.links = 4;
  g.link = l;
  DeepGpu apu;  // no link: none is written, none read back
  apu.agent = 1;
  apu.name = "gfx1103";
  d.gpus = {g, apu};
  const json j = formats::deep_record_json(d);
  EXPECT_EQ(j["gpus"][0]["link"],
            json::parse(R"({"slot":"0000:23:00.0","speed_gts":8.0,"width":4,"max_speed_gts":16.0,"max_width":16,
                            "limited_at":"0000:21:00.0","links":4})"));
  EXPECT_FALSE(j["gpus"][1].contains("link"));
  auto back = formats::parse_deep_record(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->gpus[0].link.has_value());
  EXPECT_EQ(*back->gpus[0].link, l);
  EXPECT_FALSE(back->gpus[1].link.has_value());
  // Unknown values stay unknown.
  auto unknown = formats::parse_deep_record(json::parse(
      R"({"gpus":[{"agent":0,"name":"gfx1100","steps":[],"link":{"slot":"0000:03:00.0","speed_gts":null,"width":null}}]})"));
  ASSERT_TRUE(unknown.ok()) << unknown.error().message;
  EXPECT_FALSE(unknown->gpus[0].link->current.gts.has_value());
  EXPECT_FALSE(unknown->gpus[0].link->current.width.has_value());
}

TEST(DeepRecord, WrongKindsAreErrorsNamingTheKey) {
  auto bad = [](const char* text) {
    auto r = formats::parse_deep_record(json::parse(text));
    EXPECT_FALSE(r.ok()) << text;
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(bad(R"({"gpus":[{"agent":0,"steps":[{"step":"copy","status":"ok","bytes":-1}]}]})"),
            "deep.gpus[0].steps[0].bytes must be a non-negative integer");
  EXPECT_EQ(bad(R"({"gpus":[{"steps":[{"step":"dance","status":"ok"}]}]})"),
            "deep.gpus[0].steps[0].step \"dance\" is not one of memory, copy, fill");
  EXPECT_EQ(bad(R"({"gpus":[{"steps":[{"step":"copy","status":"ok","h2d_gbps":"fast"}]}]})"),
            "deep.gpus[0].steps[0].h2d_gbps must be a non-negative number");
  EXPECT_EQ(bad(R"({"gpus":[{"steps":[{"step":"memory","status":"ok","allocations":[{"pool":"gtt"}]}]}]})"),
            "deep.gpus[0].steps[0].allocations[0].pool must be \"vram\" or \"system\"");
  EXPECT_EQ(bad(R"({"budget_ms":true})"), "deep.budget_ms must be a non-negative integer");
  EXPECT_EQ(bad("[]"), "deep must be an object");
  EXPECT_EQ(bad(R"({"gpus":[{"steps":[],"link":{"width":"x16"}}]})"),
            "deep.gpus[0].link.width must be a non-negative integer");
  EXPECT_EQ(bad(R"({"gpus":[{"steps":[],"link":{"width":64}}]})"), "deep.gpus[0].link.width must be 1 to 32 lanes");
  EXPECT_EQ(bad(R"({"gpus":[{"steps":[],"link":[]}]})"), "deep.gpus[0].link must be an object");
}
