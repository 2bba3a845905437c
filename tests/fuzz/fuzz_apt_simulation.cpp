// Fuzz target: apt-get's simulation output, as rocm-install's plan reads it: every name
// read back is a Debian package name (never an option for apt-get's command line), each
// once, and the removals written as apt writes them read back the same.
#include <set>
#include <string>

#include "formats/apt_simulation.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  const auto names = amdml::formats::apt_simulated_removals(text);
  FUZZ_CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
  std::string again;
  for (const auto& n : names) {
    FUZZ_CHECK(amdml::formats::debian_package_name(n));
    FUZZ_CHECK(n.front() != '-' && n.find_first_of(" :\n") == std::string::npos);
    again += "Remv " + n + ":amd64 [1.0] [broken:amd64 ]\n";
  }
  FUZZ_CHECK(amdml::formats::apt_simulated_removals(again) == names);
  return 0;
}
