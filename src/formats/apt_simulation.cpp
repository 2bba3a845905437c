// apt-get's simulation output; see apt_simulation.hpp.
#include "formats/apt_simulation.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace amdml::formats {

bool debian_package_name(std::string_view name) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return name.size() >= 2 && alnum(name[0]) &&
         std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '+' || c == '-' || c == '.'; });
}

namespace {

// dpkg's architecture names: "amd64", "i386", "arm64", "musl-linux-amd64".
bool architecture_name(std::string_view arch) {
  return !arch.empty() && std::all_of(arch.begin(), arch.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace

std::vector<std::string> apt_simulated_removals(std::string_view out) {
  std::vector<std::string> names;
  for (auto line : text::split_lines(out)) {
    if (!line.starts_with("Remv ") && !line.starts_with("Purg ")) continue;
    line.remove_prefix(5);
    std::string_view package = line.substr(0, line.find(' '));
    if (auto colon = package.find(':'); colon != std::string_view::npos) {
      if (!architecture_name(package.substr(colon + 1))) continue;
      package = package.substr(0, colon);
    }
    if (!debian_package_name(package)) continue;
    if (std::find(names.begin(), names.end(), package) == names.end()) names.emplace_back(package);
  }
  return names;
}

}  // namespace amdml::formats
