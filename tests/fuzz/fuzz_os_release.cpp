// Fuzz target: the shell-assignment files -- os-release (KEY=value with shell quoting)
// and the login environment files (/etc/environment, environment.d, profile.d).
#include <algorithm>
#include <cctype>

#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto kv = amdml::formats::parse::os_release(text);
  for (const auto& [k, v] : kv) {
    FUZZ_CHECK(!k.empty());
    for (char c : k) FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    FUZZ_CHECK(v.find('\n') == std::string::npos);
    FUZZ_CHECK(v.size() <= size);
  }
  const int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  int last = 0;
  for (const auto& a : amdml::formats::parse::login_env(text)) {
    FUZZ_CHECK(!a.name.empty() && !std::isdigit(static_cast<unsigned char>(a.name[0])));
    for (char c : a.name) FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    FUZZ_CHECK(a.line > last && a.line <= lines);  // one per line, in order
    last = a.line;
    FUZZ_CHECK(a.value.find('\n') == std::string::npos);
    FUZZ_CHECK(a.value.find('$') == std::string::npos && a.value.find('`') == std::string::npos);
    FUZZ_CHECK(a.value.size() <= size);
  }
  return 0;
}
