// Fuzz target: /etc/passwd (name:password:uid:gid:gecos:home:shell).
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto users = amdml::formats::parse::passwd_file(text);
  FUZZ_CHECK(users.size() <= amdml::text::split_lines(text).size());
  for (const auto& u : users) {
    FUZZ_CHECK(!u.name.empty());
    for (const auto* f : {&u.name, &u.home, &u.shell}) FUZZ_CHECK(f->find_first_of(":\n") == std::string::npos);
  }
  return 0;
}
