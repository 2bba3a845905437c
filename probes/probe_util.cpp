#include "probes/probe_util.hpp"
#include "platform/host.hpp"

#include <cerrno>

namespace amdml::probes {

std::optional<std::string> read_value(const platform::Host& host, Facts& facts, const char* probe, const std::string& path) {
  auto r = host.read_file(path, 1 << 16);
  if (!r) {
    if (r.error().code != ENOENT && r.error().code != ENOTDIR) facts.error(probe, path, r.error().message);
    return std::nullopt;
  }
  // Some sysfs dumps (copied with a fixed block size) pad values with NUL bytes; the
  // value ends at the first one.
  std::string_view v = *r;
  if (auto nul = v.find('\0'); nul != std::string_view::npos) {
    if (v.find_first_not_of('\0', nul) != std::string_view::npos) {
      facts.error(probe, path, "NUL bytes inside the value");
      return std::nullopt;
    }
    v = v.substr(0, nul);
  }
  return std::string(text::trim(v));
}

std::optional<std::uint64_t> read_u64(const platform::Host& host, Facts& facts, const char* probe, const std::string& path) {
  auto s = read_value(host, facts, probe, path);
  if (!s) return std::nullopt;
  auto v = text::u64(*s);
  if (!v) facts.error(probe, path, "not a decimal number: \"" + s->substr(0, 40) + "\"");
  return v;
}

std::optional<std::uint64_t> read_hex(const platform::Host& host, Facts& facts, const char* probe, const std::string& path) {
  auto s = read_value(host, facts, probe, path);
  if (!s) return std::nullopt;
  auto v = text::hex(*s);
  if (!v) facts.error(probe, path, "not a hex number: \"" + s->substr(0, 40) + "\"");
  return v;
}

std::string_view complete_lines(std::string_view text, Facts& facts, const char* probe, const std::string& path) {
  if (text.empty() || text.back() == '\n') return text;
  auto nl = text.rfind('\n');
  std::string_view partial = nl == std::string_view::npos ? text : text.substr(nl + 1);
  facts.error(probe, path, "truncated (no final newline); ignored the partial line \"" +
                               std::string(partial.substr(0, 40)) + "\"");
  return nl == std::string_view::npos ? std::string_view() : text.substr(0, nl + 1);
}

}  // namespace amdml::probes
