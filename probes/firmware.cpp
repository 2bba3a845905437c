// The installed firmware package amdgpu's firmware comes from (linux-firmware; Arch's
// linux-firmware-amdgpu; Debian's firmware-amd-graphics), read from the package
// database without running a package manager: dpkg's status (in the rocm probe's one
// pass over it, through linux_firmware_package) and pacman's local database here.
// Fedora's rpm database is SQLite and is not read: a Fedora machine reports none.
#include "formats/ml_outputs.hpp"
#include "platform/host.hpp"
#include "probes/ml_probes.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

bool linux_firmware_package(std::string_view name) {
  return name == "linux-firmware" || name == "linux-firmware-amdgpu" || name == "firmware-amd-graphics";
}

void firmware_from_dpkg(const std::map<std::string, std::string>& installed, Facts& f) {
  for (const auto& [name, version] : installed)
    if (linux_firmware_package(name)) f.os.firmware_packages.push_back({name, version, "/var/lib/dpkg/status", "dpkg"});
}

// pacman keeps one directory per installed package, "<name>-<version>-<release>", with
// its desc file naming both.
void firmware(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto local = h.list_dir("/var/lib/pacman/local");
  if (!local) return;
  for (const auto& e : *local) {
    if (!e.name.starts_with("linux-firmware")) continue;
    const std::string desc = "/var/lib/pacman/local/" + e.name + "/desc";
    auto text = h.read_file(desc, 1 << 20);
    if (!text) continue;
    auto name = formats::mlparse::pacman_desc_field(*text, "NAME");
    auto version = formats::mlparse::pacman_desc_field(*text, "VERSION");
    if (!name || !version || !linux_firmware_package(*name)) continue;
    f.os.firmware_packages.push_back({*name, *version, desc, "pacman"});
  }
}

}  // namespace amdml::probes
