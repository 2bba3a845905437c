// Plain-text helpers; see text.hpp.
#include "base/text.hpp"
#include "base/utf8.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace amdml::text {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0;;) {
    const std::size_t j = s.find(sep, i);
    out.push_back(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) return out;
    i = j + 1;
  }
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto j = s.find('\n', i);
    if (j == std::string_view::npos) j = s.size();
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<LineWithEnd> lines_with_ends(std::string_view s) {
  std::vector<LineWithEnd> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t nl = s.find('\n', i);
    if (nl == std::string_view::npos) {
      out.push_back({s.substr(i), {}});
      break;
    }
    const bool crlf = nl > i && s[nl - 1] == '\r';
    const std::size_t body_end = crlf ? nl - 1 : nl;
    out.push_back({s.substr(i, body_end - i), s.substr(body_end, nl + 1 - body_end)});
    i = nl + 1;
  }
  return out;
}

namespace {

// The length of the UTF-8 sequence at s[i] when it is well formed (RFC 3629) and a
// character a terminal shows as itself (not a C0 or C1 control, not DEL), else 0.
std::size_t printable_at(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return c >= 0x20 && c != 0x7f ? 1 : 0;
  char32_t cp = 0;
  const std::size_t n = utf8::decode(s, i, cp);
  if (n == 0 || cp < 0xA0) return 0;
  return n;
}

}  // namespace

bool shell_printable(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = printable_at(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string shell_word(std::string_view s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-=:,@%") ==
                        std::string_view::npos)
    return std::string(s);
  // Trailing newlines: a command substitution would drop them, so they follow it
  // literally inside single quotes.
  std::size_t body = s.size();
  while (body > 0 && s[body - 1] == '\n') --body;
  const std::string_view head = s.substr(0, body);
  std::string out;
  if (shell_printable(head)) {
    out = "'";
    for (char ch : head) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  } else {
    // Bytes a terminal would not show as themselves (controls, newlines, bytes that are
    // not UTF-8) come from printf's format as three-digit octal escapes, which every
    // POSIX sh runs ($'...' is not POSIX). '%', '\' and ''' are escaped too, and a
    // leading '-' so that printf does not take the format for an option.
    out = "\"$(printf '";
    for (std::size_t i = 0; i < head.size();) {
      const std::size_t n = printable_at(head, i);
      const char ch = head[i];
      if (n == 1 && ch != '%' && ch != '\\' && ch != '\'' && !(i == 0 && ch == '-')) {
        out += ch;
      } else if (n > 1) {
        out.append(head.substr(i, n));
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned>(static_cast<unsigned char>(ch)));
        out += buf;
      }
      i += std::max<std::size_t>(n, 1);
    }
    out += "')\"";
    if (body == s.size()) return out;
    out += "'";
  }
  out.append(s.size() - body, '\n');
  return out + "'";
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_word(w);
  return out;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<std::uint64_t> u64(std::string_view s) {
  s = trim(s);
  if (s.empty() || s[0] == '-' || s[0] == '+') return std::nullopt;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> i64(std::string_view s) {
  s = trim(s);
  if (s.empty() || s[0] == '+') return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> hex(std::string_view s) {
  s = trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string one_line(std::string message) {
  for (auto& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return message;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::string octal_mode(std::uint32_t mode) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04o", mode);
  return buf;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace amdml::text
