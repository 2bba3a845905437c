// Where the committed test data lives: the fixture machines (tests/fixtures/<machine>),
// the snapshot fixtures, and the source tree. Tests read these and never write into
// them (test.fixture-guard checks it); a test that changes a machine works on a copy
// (TestTree in support/tree.hpp).
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace amdml::test {

// tests/fixtures/<machine>, or the folder itself for an empty name.
inline std::string fixture(const std::string& machine = "") {
  return machine.empty() ? std::string(AMDML_FIXTURES_DIR) : std::string(AMDML_FIXTURES_DIR) + "/" + machine;
}

// A path inside the source tree (recipes/, docs/, tests/schema/, ...).
inline std::string source_path(const std::string& rel) { return std::string(AMDML_SOURCE_DIR) + "/" + rel; }

// Every fixture machine (a folder with an amdml-host.json) in tests/fixtures and
// tests/e2e-snapshot/fixtures, sorted.
inline std::vector<std::filesystem::path> fixture_machines() {
  namespace fs = std::filesystem;
  std::vector<fs::path> out;
  for (const fs::path& base : {fs::path(fixture()), fs::path(source_path("tests/e2e-snapshot/fixtures"))}) {
    std::error_code ec;
    if (!fs::is_directory(base, ec)) continue;
    for (const auto& e : fs::directory_iterator(base))
      if (e.is_directory() && fs::exists(e.path() / "amdml-host.json")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace amdml::test
