// Fuzz target: single sysfs values (decimal, signed, hex, sizes like "512M") and
// uevent KEY=value files under /sys/class/drm/cardN/device and /sys/bus/pci.
#include <cctype>

#include "amdml/parse.hpp"
#include "amdml/units.hpp"
#include "fuzz_check.hpp"

namespace parse = amdml::parse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto t = parse::trim(text);

  if (auto v = parse::u64(text)) {
    FUZZ_CHECK(!t.empty());
    for (char c : t) FUZZ_CHECK(c >= '0' && c <= '9');
    FUZZ_CHECK(parse::u64(std::to_string(*v)) == v);
  }
  if (auto v = parse::i64(text)) {
    FUZZ_CHECK(!t.empty());
    FUZZ_CHECK(parse::i64(std::to_string(*v)) == v);
  }
  if (auto v = parse::hex(text)) {
    FUZZ_CHECK(!t.empty());
    for (char c : t.substr(t.size() > 2 && (t[1] == 'x' || t[1] == 'X') ? 2 : 0))
      FUZZ_CHECK(std::isxdigit(static_cast<unsigned char>(c)));
  }
  amdml::Bytes b;
  if (amdml::parse_bytes(std::string(text), b)) FUZZ_CHECK(!t.empty());

  for (const auto& [k, v] : parse::uevent(text)) {
    FUZZ_CHECK(!k.empty());
    FUZZ_CHECK(k.find('=') == std::string::npos);
    FUZZ_CHECK(k.find('\n') == std::string::npos && v.find('\n') == std::string::npos);
  }
  auto words = parse::split_ws(text);
  for (const auto& w : words) FUZZ_CHECK(!w.empty() && w.find_first_of(" \t\r\n") == std::string::npos);
  return 0;
}
