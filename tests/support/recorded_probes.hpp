// The probes run on this machine without the built binary: environment variables set
// for the run and restored afterwards (ScopedEnv), and one run of collect_facts +
// diagnose through the recording host `amdml snapshot` uses, its whole recording kept
// for --root replays (run_recorded_probes). Used by the deep app steps' tests
// (test_probes_deep_llamacpp, test_probes_deep_ollama) and by live_probes.hpp.
#pragma once

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/host.hpp"
#include "platform/host_recording.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "support/knowledge.hpp"

namespace amdml::test {

// Sets (or, for nullopt, unsets) environment variables; restores them when it ends.
class ScopedEnv {
 public:
  explicit ScopedEnv(std::map<std::string, std::optional<std::string>> vars) {
    for (const auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
      if (v) ::setenv(k.c_str(), v->c_str(), 1);
      else ::unsetenv(k.c_str());
    }
  }
  ~ScopedEnv() {
    for (const auto& [k, v] : saved_) {
      if (v) ::setenv(k.c_str(), v->c_str(), 1);
      else ::unsetenv(k.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// collect_facts on "/" through the recording host `amdml snapshot` uses (its whole
// recording kept for --root replays), then diagnose: the deep app steps' tests.
struct RecordedRun {
  Facts facts;
  std::vector<Finding> findings;
  formats::Recording recording;
  std::chrono::milliseconds took{0};
};

inline RecordedRun run_recorded_probes(const probes::ProbeOptions& o) {
  auto live = platform::make_host("/");
  platform::RecordingHost host(**live);
  RecordedRun r;
  auto start = std::chrono::steady_clock::now();
  r.facts = collect_facts(host, shipped_knowledge(), o);
  r.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  r.findings = diagnose(r.facts, shipped_knowledge());
  r.recording = host.recording();
  return r;
}

}  // namespace amdml::test
