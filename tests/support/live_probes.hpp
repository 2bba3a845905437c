// Running the probes on this machine with the runtime children pointed at the fakes:
// environment variables set for the children and restored afterwards (ScopedEnv), a live
// host that keeps what the probes record the way `amdml snapshot` does (RecordingHost),
// and one run of collect_facts + diagnose with its wall time (run_live_probes). Used by
// the runtime probe's and the deep steps' tests (test_probes_runtime, test_probes_deep).
#pragma once

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/host.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "support/forwarding_host.hpp"
#include "support/knowledge.hpp"
#include "support/recorded_probes.hpp"

namespace amdml::test {

// A live host that keeps what the probes record, like `amdml snapshot` does.
class RecordingHost : public ForwardingHost {
 public:
  explicit RecordingHost(std::unique_ptr<Host> live) : ForwardingHost(*live), live_(std::move(live)) {}
  bool live() const override { return true; }
  void record_fact(const std::string& key, const nlohmann::json& value) const override { facts[key] = value; }
  mutable std::map<std::string, nlohmann::json> facts;

 private:
  std::unique_ptr<Host> live_;
};

// The environment that points the runtime children at the fake HSA runtime's variant
// (tests/fake_hsa/variants/VARIANT.json).
inline std::map<std::string, std::optional<std::string>> fake_hsa(const std::string& variant) {
  return {{"AMDML_HSA_LIBRARY", std::string(AMDML_FAKE_HSA_LIBRARY)},
          {"AMDML_FAKE_HSA", std::string(AMDML_FAKE_HSA_VARIANTS) + "/" + variant + ".json"}};
}

struct LiveRun {
  Facts facts;
  std::vector<Finding> findings;
  std::map<std::string, nlohmann::json> recorded;  // what the probes handed to record_fact
  std::chrono::milliseconds took{0};
};

// collect_facts on "/" with the children run by the built amdml, then diagnose.
inline LiveRun run_live_probes(probes::ProbeOptions o) {
  auto live = platform::make_host("/");
  RecordingHost host(std::move(*live));
  o.runtime_helper = AMDML_BINARY;
  LiveRun r;
  auto start = std::chrono::steady_clock::now();
  r.facts = collect_facts(host, shipped_knowledge(), o);
  r.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  r.findings = diagnose(r.facts, shipped_knowledge());
  r.recorded = host.facts;
  return r;
}

}  // namespace amdml::test
