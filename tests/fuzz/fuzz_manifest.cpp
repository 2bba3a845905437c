// Fuzz target: amdml-host.json, the manifest a --root tree carries for what is not a
// file. Reads it with its one codec (formats/host_manifest.hpp): a manifest that reads
// writes back to one that reads to the same document, as `amdml snapshot` writes what
// --root reads. Then makes the rooted host from it and asks everything probes ask of a
// manifest (identity, env, devices, container, recorded values, and every recorded
// command), because a manifest that parses must never make a probe throw.
#include <nlohmann/json.hpp>

#include "formats/host_manifest.hpp"
#include "platform/host.hpp"
#include "fuzz_check.hpp"
#include "platform/hosts.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(amdml::fuzz::as_text(data, size));
  auto manifest = amdml::formats::parse_host_manifest(text);
  if (manifest) {
    const nlohmann::json once = amdml::formats::host_manifest_json(*manifest);
    FUZZ_CHECK(once.is_object() && once["format"] == 1);
    auto again = amdml::formats::parse_host_manifest(once.dump());
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(amdml::formats::host_manifest_json(*again) == once);
  }
  // A root that does not exist: file reads end in ENOENT, nothing on disk is touched.
  auto host = amdml::platform::make_rooted_host_from_manifest("/nonexistent/amdml-fuzz-root", text);
  FUZZ_CHECK(host.ok() == manifest.ok());
  if (!host) {
    FUZZ_CHECK(host.error().message == manifest.error().message);
    FUZZ_CHECK(!host.error().message.empty());
    FUZZ_CHECK(host.error().message.find('\n') == std::string::npos);
    return 0;
  }
  const amdml::platform::Host& h = **host;
  FUZZ_CHECK(!h.live());
  auto id = h.identity();
  auto env = h.environment();
  for (const auto& [k, v] : env) FUZZ_CHECK(h.env(k) == v);
  (void)h.uname();
  if (auto devs = h.devices())
    for (const auto& d : *devs) {
      if (d.mode) FUZZ_CHECK(*d.mode <= 07777);
      FUZZ_CHECK(d.open != amdml::OpenCheck::failed || d.open_errno > 0);
    }
  (void)h.container();
  for (const char* key : {"hsa", "commands", "ollama", "format", "devices"}) (void)h.recorded(key);
  FUZZ_CHECK(!h.read_file("/etc/os-release").ok());

  // Every recorded command, as a probe would run it: a program that ran, or one that
  // could not start.
  for (const auto& [key, value] : manifest->commands) {
    std::vector<std::string> argv;
    std::size_t i = 0;
    while (i <= key.size()) {
      auto j = key.find(' ', i);
      if (j == std::string::npos) j = key.size();
      argv.push_back(key.substr(i, j - i));
      i = j + 1;
    }
    auto r = h.run(argv, std::chrono::milliseconds(1000));
    FUZZ_CHECK(r.ok() == value.result.has_value());
  }
  return 0;
}
