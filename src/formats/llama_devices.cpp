// llama.cpp's --list-devices output; see llama_devices.hpp.
#include "formats/llama_devices.hpp"

#include <cctype>

#include "base/text.hpp"

namespace amdml::formats::llama {
namespace {

constexpr std::size_t kMaxDevices = 64;        // a listing longer than this is not llama.cpp's
constexpr std::size_t kMaxOutput = 2000;       // evidence: the tail of what it printed
constexpr std::size_t kMaxField = 200;         // a name or description longer than this is cut

// "24560 MiB" -> 24560.
std::optional<std::uint64_t> mib(std::string_view s, std::string_view suffix) {
  s = text::trim(s);
  if (!s.ends_with(suffix)) return std::nullopt;
  return text::u64(text::trim(s.substr(0, s.size() - suffix.size())));
}

std::string bounded(std::string_view s) {
  std::string out(s.substr(0, kMaxField));
  if (s.size() > kMaxField) out += "...";
  return out;
}

// "  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)"
std::optional<LlamaDevice> device(std::string_view line) {
  line = text::trim(line);
  auto colon = line.find(": ");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view name = line.substr(0, colon);
  for (char c : name)
    if (std::isspace(static_cast<unsigned char>(c)) || !std::isprint(static_cast<unsigned char>(c))) return std::nullopt;
  std::string_view rest = line.substr(colon + 2);
  if (!rest.ends_with(")")) return std::nullopt;
  auto open = rest.rfind('(');
  if (open == std::string_view::npos) return std::nullopt;
  auto sizes = rest.substr(open + 1, rest.size() - open - 2);
  auto comma = sizes.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  auto total = mib(sizes.substr(0, comma), "MiB");
  auto free = mib(sizes.substr(comma + 1), "MiB free");
  if (!total || !free) return std::nullopt;
  LlamaDevice d;
  d.name = bounded(name);
  std::size_t end = name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  d.backend = bounded(name.substr(0, end));
  d.description = bounded(text::trim(rest.substr(0, open)));
  d.total_mib = total;
  d.free_mib = free;
  return d;
}

// The last kMaxOutput bytes of a text, cut at a line start when it was cut at all.
std::string tail(std::string_view s) {
  s = text::trim(s);
  if (s.size() <= kMaxOutput) return std::string(s);
  s = s.substr(s.size() - kMaxOutput);
  if (auto nl = s.find('\n'); nl != std::string_view::npos) s = s.substr(nl + 1);
  return "..." + std::string(s);
}

}  // namespace

DeviceListing parse_list_devices(std::string_view out) {
  DeviceListing l;
  for (auto line : text::split_lines(out)) {
    auto t = text::trim(line);
    if (!l.header) {
      l.header = t == "Available devices:";
      continue;
    }
    if (t.empty() || t == "(none)") continue;
    if (auto d = device(t); d && l.devices.size() < kMaxDevices) l.devices.push_back(std::move(*d));
    else if (l.other.size() < kMaxDevices) l.other.push_back(bounded(t));
  }
  return l;
}

LlamaDeviceList device_list(const CommandResult& r) {
  LlamaDeviceList d;
  d.ran = true;
  d.exit_code = r.exit_code;
  d.timed_out = r.timed_out;
  auto l = parse_list_devices(r.out);
  d.listed = l.header && !r.timed_out;
  d.devices = std::move(l.devices);
  std::string all = std::string(text::trim(r.out));
  auto err = text::trim(r.err);
  if (!err.empty()) all += (all.empty() ? "" : "\n") + std::string(err);
  d.output = tail(all);
  if (r.timed_out) d.error = "did not finish: the child was killed at its time limit";
  else if (r.signal) d.error = "killed by signal " + std::to_string(r.signal);
  else if (!l.header && r.exit_code != 0) d.error = "exited with code " + std::to_string(r.exit_code) + " without a device list";
  else if (!l.header) d.error = "printed no \"Available devices:\" list";
  return d;
}

std::string device_line(const LlamaDevice& d) {
  std::string s = d.name + ": " + d.description;
  if (d.total_mib && d.free_mib)
    s += " (" + std::to_string(*d.total_mib) + " MiB, " + std::to_string(*d.free_mib) + " MiB free)";
  return s;
}

bool is_rocm_device(const LlamaDevice& d) { return d.backend == "ROCm" || d.backend == "HIP"; }

}  // namespace amdml::formats::llama
