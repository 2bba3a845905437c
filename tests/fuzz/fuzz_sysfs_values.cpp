// Fuzz target: single sysfs values (decimal, signed, hex, sizes like "512M") and
// uevent KEY=value files under /sys/class/drm/cardN/device and /sys/bus/pci.
#include <cctype>

#include "formats/system_files.hpp"
#include "amdml/units.hpp"
#include "fuzz_check.hpp"

namespace parse = amdml::formats::parse;
namespace text = amdml::text;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto t = text::trim(text);

  if (auto v = text::u64(text)) {
    FUZZ_CHECK(!t.empty());
    for (char c : t) FUZZ_CHECK(c >= '0' && c <= '9');
    FUZZ_CHECK(text::u64(std::to_string(*v)) == v);
  }
  if (auto v = text::i64(text)) {
    FUZZ_CHECK(!t.empty());
    FUZZ_CHECK(text::i64(std::to_string(*v)) == v);
  }
  if (auto v = text::hex(text)) {
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
  auto words = text::split_ws(text);
  for (const auto& w : words) FUZZ_CHECK(!w.empty() && w.find_first_of(" \t\r\n") == std::string::npos);
  return 0;
}
