// Parsing libdrm's amdgpu.ids; see amdgpu_ids.hpp.
#include "formats/amdgpu_ids.hpp"

#include "formats/system_files.hpp"

namespace amdml::formats {

namespace {

// A hex field of at most `digits` digits, nothing else.
std::optional<std::uint32_t> hex_field(std::string_view s, std::size_t digits) {
  s = text::trim(s);
  if (s.empty() || s.size() > digits) return std::nullopt;
  auto v = text::hex(s);
  if (!v || s.find_first_of("xX") != std::string_view::npos) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

}  // namespace

AmdgpuIds parse_amdgpu_ids(std::string_view text) {
  AmdgpuIds out;
  for (auto raw : text::split_lines(text)) {
    auto line = text::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    auto c1 = line.find(',');
    if (c1 == std::string_view::npos) {
      // The version line ("1.0.0") comes before the first entry.
      if (out.version.empty() && out.entries.empty() && line.find_first_not_of("0123456789.") == std::string_view::npos)
        out.version = std::string(line);
      else
        ++out.malformed;
      continue;
    }
    auto c2 = line.find(',', c1 + 1);
    if (c2 == std::string_view::npos) {
      ++out.malformed;
      continue;
    }
    auto dev = hex_field(line.substr(0, c1), 4);
    auto rev = hex_field(line.substr(c1 + 1, c2 - c1 - 1), 2);
    auto name = text::trim(line.substr(c2 + 1));
    if (!dev || !rev || name.empty() || name.size() > 128) {
      ++out.malformed;
      continue;
    }
    out.entries.push_back({static_cast<std::uint16_t>(*dev), static_cast<std::uint8_t>(*rev), text::one_line(std::string(name))});
  }
  return out;
}

const std::string* AmdgpuIds::find(std::uint16_t device, std::uint8_t revision) const {
  for (const auto& e : entries)
    if (e.device == device && e.revision == revision) return &e.name;
  return nullptr;
}

const std::string* AmdgpuIds::only_name(std::uint16_t device) const {
  const std::string* name = nullptr;
  for (const auto& e : entries) {
    if (e.device != device) continue;
    if (name && *name != e.name) return nullptr;
    name = &e.name;
  }
  return name;
}

}  // namespace amdml::formats