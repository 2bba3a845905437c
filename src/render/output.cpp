// The single writer of stdout.
#include <cstdio>

#include "amdml/render.hpp"

namespace amdml {

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::string paint(const TextStyle& s, Color c, std::string_view text) {
  if (!s.color) return std::string(text);
  const char* code = "";
  switch (c) {
    case Color::red: code = "\033[1;31m"; break;
    case Color::yellow: code = "\033[1;33m"; break;
    case Color::blue: code = "\033[1;34m"; break;
    case Color::green: code = "\033[1;32m"; break;
    case Color::bold: code = "\033[1m"; break;
    case Color::dim: code = "\033[2m"; break;
  }
  return std::string(code) + std::string(text) + "\033[0m";
}

}  // namespace amdml
