// The single writer of stdout, the colours of text output, and what a control
// character from the machine becomes on the way to a terminal.
#include <cstdio>
#include <iterator>

#include "render/render.hpp"
#include "base/utf8.hpp"

namespace amdml::render {

namespace {

// Every escape sequence amdml itself writes: paint()'s colours and the reset.
constexpr std::string_view kReset = "\033[0m";
constexpr std::string_view kColourCodes[] = {"\033[1;31m", "\033[1;33m", "\033[1;34m", "\033[1;32m",
                                             "\033[1m",    "\033[2m",    kReset};

std::string_view colour_code(Color c) {
  switch (c) {
    case Color::red: return kColourCodes[0];
    case Color::yellow: return kColourCodes[1];
    case Color::blue: return kColourCodes[2];
    case Color::green: return kColourCodes[3];
    case Color::bold: return kColourCodes[4];
    case Color::dim: return kColourCodes[5];
  }
  return {};
}

void append_escape(std::string& out, const char* format, unsigned value) {
  char buf[12];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

}  // namespace

void write_stdout(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::string paint(const TextStyle& s, Color c, std::string_view text) {
  if (!s.color) return std::string(text);
  return std::string(colour_code(c)) + std::string(text) + std::string(kReset);
}

namespace {

std::string escaped_text(std::string_view text, bool keep_colour, bool keep_lines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (keep_colour && text[i] == '\033') {
      bool own = false;
      for (auto code : kColourCodes)
        if (text.substr(i, code.size()) == code) {
          out += code;
          i += code.size();
          own = true;
          break;
        }
      if (own) continue;
    }
    char32_t cp = 0;
    std::size_t len = utf8::decode(text, i, cp);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not UTF-8
      ++i;
      continue;
    }
    if (keep_lines && (cp == '\n' || cp == '\t')) out += static_cast<char>(cp);
    else if (cp == '\n') out += "\\n";
    else if (cp == '\t') out += "\\t";
    else if (cp < 0x20 || cp == 0x7F) append_escape(out, "\\x%02x", static_cast<unsigned>(cp));
    else if (cp >= 0x80 && cp <= 0x9F) append_escape(out, "\\u%04x", static_cast<unsigned>(cp));
    else out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace

std::string terminal_text(std::string_view text, bool keep_colour) { return escaped_text(text, keep_colour, true); }

std::string line_text(std::string_view text) { return escaped_text(text, false, false); }

}  // namespace amdml::render