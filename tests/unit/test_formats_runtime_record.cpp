// The recorded form of the runtime probes (amdml-host.json "hsa"/"libdrm", and what the
// probe children print): round trips, and malformed input rejected with the key named.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "amdml/facts_runtime.hpp"
#include "formats/runtime_record.hpp"

using namespace amdml;
using nlohmann::json;

namespace {

json apu_record() {
  return json::parse(R"({
    "status": "ok", "library": "/opt/rocm/lib/libhsa-runtime64.so.1", "runtime_version": "1.14",
    "agents": [
      {"name": "AMD Ryzen 7 7840U w/ Radeon 780M Graphics", "vendor": "CPU", "device": "cpu", "node": 0,
       "pools": [{"segment": "global", "global_flags": 3, "size": 32212254720, "alloc_allowed": true}]},
      {"name": "gfx1103", "marketing_name": "AMD Radeon 780M", "vendor": "AMD", "device": "gpu", "node": 1,
       "bdfid": 50176, "domain": 0, "uuid": "GPU-XX", "chip_id": 5567, "compute_units": 12, "simds_per_cu": 2,
       "wavefront_size": 32, "apu": true, "isas": ["amdgcn-amd-amdhsa--gfx1103"],
       "pools": [{"segment": "global", "global_flags": 4, "size": 17179869184, "alloc_allowed": true,
                  "alloc_granule": 4096, "accessible_by_all": false},
                 {"segment": "group", "size": 65536, "alloc_allowed": false}]}]})");
}

}  // namespace

TEST(RuntimeRecord, ParsesAnApuAndRoundTrips) {
  auto h = formats::parse_hsa_record(apu_record());
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->outcome, HsaOutcome::ok);
  ASSERT_EQ(h->agents.size(), 2u);
  EXPECT_EQ(h->gpu_agents(), 1u);
  const HsaAgent& g = h->agents[1];
  EXPECT_EQ(g.name, "gfx1103");
  EXPECT_EQ(g.device, HsaDeviceType::gpu);
  EXPECT_EQ(g.pci_slot(), "0000:c4:00.0");  // BDFID 0xc400
  EXPECT_EQ(g.compute_units, 12u);
  EXPECT_EQ(g.apu, true);
  ASSERT_EQ(g.pools.size(), 2u);
  EXPECT_EQ(g.pools[0].flags_text(), "coarse-grained");
  EXPECT_EQ(g.pools[0].size->value, 17179869184ull);
  EXPECT_EQ(g.pools[1].segment, HsaSegment::group);
  EXPECT_EQ(h->agents[0].pools[0].flags_text(), "kernarg, fine-grained");

  auto again = formats::parse_hsa_record(formats::hsa_record_json(*h));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(formats::hsa_record_json(*again), formats::hsa_record_json(*h));
}

TEST(RuntimeRecord, InitFailureKeepsTheStatus) {
  auto h = formats::parse_hsa_record(json::parse(R"({"status": "init-failed", "call": "hsa_init", "code": 4104,
      "message": "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."})"));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->outcome, HsaOutcome::init_failed);
  EXPECT_EQ(h->status_code, 0x1008u);
  EXPECT_EQ(h->status_name, "HSA_STATUS_ERROR_OUT_OF_RESOURCES");  // filled in from the code
  EXPECT_TRUE(h->agents.empty());
}

TEST(RuntimeRecord, RejectsWrongKindsNamingTheKey) {
  auto bad_status = formats::parse_hsa_record(json::parse(R"({"status": "fine"})"));
  ASSERT_FALSE(bad_status.ok());
  EXPECT_NE(bad_status.error().message.find("hsa.status"), std::string::npos);

  auto no_status = formats::parse_hsa_record(json::parse(R"({"agents": []})"));
  EXPECT_FALSE(no_status.ok());

  auto bad_cu = formats::parse_hsa_record(json::parse(R"({"status": "ok", "agents": [{"name": "gfx1100", "compute_units": "96"}]})"));
  ASSERT_FALSE(bad_cu.ok());
  EXPECT_EQ(bad_cu.error().message, "hsa.agents[0].compute_units must be a non-negative integer");

  auto bad_pool = formats::parse_hsa_record(json::parse(R"({"status": "ok", "agents": [{"name": "x", "pools": [{"segment": "vram"}]}]})"));
  ASSERT_FALSE(bad_pool.ok());
  EXPECT_NE(bad_pool.error().message.find("hsa.agents[0].pools[0].segment"), std::string::npos);

  auto negative = formats::parse_hsa_record(json::parse(R"({"status": "crashed", "signal": -11})"));
  EXPECT_FALSE(negative.ok());

  EXPECT_FALSE(formats::parse_hsa_record(json::array()).ok());
}

TEST(RuntimeRecord, LibdrmRoundTripAndErrors) {
  auto d = formats::parse_libdrm_record(json::parse(R"({"status": "ok", "library": "libdrm_amdgpu.so.1", "devices": [
      {"render_node": "/dev/dri/renderD128", "opened": true, "drm_major": 3, "drm_minor": 57,
       "marketing_name": "AMD Radeon 780M", "vram_total": 536870912, "gtt_total": 16777216000},
      {"render_node": "/dev/dri/renderD129", "opened": false, "error": "open: Permission denied"}]})"));
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->devices.size(), 2u);
  EXPECT_EQ(d->devices[0].vram_total->value, 536870912u);
  EXPECT_FALSE(d->devices[1].opened);
  EXPECT_EQ(d->devices[1].error, "open: Permission denied");
  auto again = formats::parse_libdrm_record(formats::libdrm_record_json(*d));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(formats::libdrm_record_json(*again), formats::libdrm_record_json(*d));

  auto no_node = formats::parse_libdrm_record(json::parse(R"({"status": "ok", "devices": [{"opened": true}]})"));
  ASSERT_FALSE(no_node.ok());
  EXPECT_EQ(no_node.error().message, "libdrm.devices[0].render_node is missing");
}

// What the writer spells for a pool or agent the runtime did not name ("unknown") reads
// back: the probe children write through hsa_record_json, so a pool whose segment query
// failed must not turn their answer into bad output.
TEST(RuntimeRecord, UnknownSegmentAndDeviceRoundTrip) {
  HsaFacts h;
  h.outcome = HsaOutcome::ok;
  HsaAgent a;
  a.name = "gfx1103";
  HsaPool p;
  p.size = Bytes{4096};
  a.pools.push_back(p);
  h.agents.push_back(a);
  const json written = formats::hsa_record_json(h);
  EXPECT_EQ(written["agents"][0]["pools"][0]["segment"], "unknown");
  EXPECT_EQ(written["agents"][0]["device"], "unknown");
  auto back = formats::parse_hsa_record(written);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->agents.size(), 1u);
  ASSERT_EQ(back->agents[0].pools.size(), 1u);
  EXPECT_EQ(back->agents[0].pools[0].segment, HsaSegment::unknown);
  EXPECT_EQ(back->agents[0].device, HsaDeviceType::unknown);
  EXPECT_EQ(formats::hsa_record_json(*back), written);
}

// exit_code and signal are ints: a number beyond one is refused when read, instead of
// coming back negative and failing the next read of what was written.
TEST(RuntimeRecord, ExitCodeAndSignalMustFitAnInt) {
  auto big = formats::parse_hsa_record(json{{"status", "crashed"}, {"exit_code", 3000000000u}});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message, "hsa.exit_code must be in range");
  auto sig = formats::parse_hsa_record(json{{"status", "crashed"}, {"signal", 4294967295u}});
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().message, "hsa.signal must be in range");
  auto ok = formats::parse_hsa_record(json{{"status", "crashed"}, {"exit_code", 139}, {"signal", 11}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->exit_code, 139);
  EXPECT_EQ(ok->signal, 11);
}
