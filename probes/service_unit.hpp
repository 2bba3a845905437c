// Reading a systemd service as systemd would: the unit file from the first search
// directory that has it, its drop-ins (the unit's own and the type-wide ones, the first
// directory to provide a name owning it, masked ones skipped) and its EnvironmentFile=s,
// all through the Host and merged by the pure parser in src/formats/systemd_unit.hpp.
#pragma once

#include <optional>
#include <string>

#include "formats/systemd_unit.hpp"
#include "platform/host.hpp"

namespace amdml::probes {

struct LoadedService {
  std::optional<std::string> unit_path;  // nullopt: no unit file in any search dir
  bool masked = false;                   // the unit file is a symlink to /dev/null
  systemd::ServiceConfig config;
};

// Finds `unit` ("ollama.service") and its drop-ins through the host and merges them.
LoadedService load_service(const platform::Host& host, const std::string& unit);

}  // namespace amdml::probes