// libdrm's amdgpu.ids: the (PCI device, revision) -> marketing name table that Mesa,
// rocm-smi and libhsakmt name AMD GPUs by. Every system with libdrm-amdgpu has a copy
// (/usr/share/libdrm/amdgpu.ids), usually newer than amdml's built-in table, so the
// gpus probe reads it through the Host and prefers it.
//
// Format: '#' comments, one version line ("1.0.0"), then "DEVID,\tREVID,\tName" lines
// with hex ids. The parser is pure (a fuzz target): it skips and counts lines it does
// not understand instead of guessing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdml::formats {

struct AmdgpuIdEntry {
  std::uint16_t device = 0;
  std::uint8_t revision = 0;
  std::string name;
};

struct AmdgpuIds {
  std::string version;  // the file's version line, "" when it has none
  std::vector<AmdgpuIdEntry> entries;
  int malformed = 0;    // lines skipped

  // The name for exactly (device, revision), as libdrm looks it up; nullptr if absent.
  const std::string* find(std::uint16_t device, std::uint8_t revision) const;
  // The one name every entry of device carries (a device sold under one name), or
  // nullptr when it has none or several: an unknown revision must not pick a model.
  const std::string* only_name(std::uint16_t device) const;
};

AmdgpuIds parse_amdgpu_ids(std::string_view text);

// Where libdrm's distro builds keep it (ROCm's own libdrm uses /opt/amdgpu/share/libdrm).
inline constexpr const char* kAmdgpuIdsPaths[] = {"/usr/share/libdrm/amdgpu.ids", "/opt/amdgpu/share/libdrm/amdgpu.ids"};

}  // namespace amdml::formats