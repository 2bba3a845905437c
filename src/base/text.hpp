// Text helpers with no knowledge of amdml: trimming, splitting, whole-string numbers,
// shell quoting for commands printed to people, one-line error messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdml::text {

// The string predicates are std::string_view's own (C++20): s.starts_with(x),
// s.ends_with(x); nothing here repeats them.
std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view s);
// The physical lines of s, each with its terminator apart ("\n", "\r\n", or "" for a
// last line without one): joining body + end of each gives s back, for line models that
// edit a person's file and keep every other byte.
struct LineWithEnd {
  std::string_view body;
  std::string_view end;
};
std::vector<LineWithEnd> lines_with_ends(std::string_view s);
// The parts between each sep, empty ones kept ("a,,b" -> {"a", "", "b"}; "" -> {""}).
std::vector<std::string_view> split(std::string_view s, char sep);
// ASCII case mapping (other bytes unchanged).
std::string to_lower(std::string_view s);
std::string to_upper(std::string_view s);
std::vector<std::string> split_ws(std::string_view s);
// The parts with sep between them ({} -> "").
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// s as one POSIX shell word that a shell turns back into exactly s's bytes, for commands
// printed to people to paste: unchanged when it holds only safe characters; in single
// quotes (a ' inside becomes '\'') when every byte shows as itself on a terminal; else
// "$(printf 'FORMAT')" with octal escapes for controls, newlines and bytes that are not
// UTF-8 (trailing newlines follow in single quotes). The result never holds a byte a
// terminal or a JSON writer would change, so the text a person copies is the command.
std::string shell_word(std::string_view s);
// Words quoted by shell_word, joined by single blanks: an argv as one command line.
std::string shell_words(const std::vector<std::string>& words);
// Whether every byte of s is part of well-formed UTF-8 that is not a control character.
bool shell_printable(std::string_view s);
// Linux's limit on one argument or environment string (MAX_ARG_STRLEN, 32 pages of 4 KiB,
// include/uapi/linux/binfmts.h): a command line longer than this is not offered for
// pasting.
inline constexpr std::size_t kMaxArgStrlen = 131072;

// s with every from replaced by to (from non-empty; a replacement is not searched again).
std::string replace_all(std::string s, std::string_view from, std::string_view to);
// A file mode as four octal digits, "0644" (the bits as given: mask them first if needed).
std::string octal_mode(std::uint32_t mode);

// Whole-string unsigned decimal ("123\n" ok; "", "-1", "12x", overflow -> nullopt).
std::optional<std::uint64_t> u64(std::string_view s);
// Whole-string signed decimal.
std::optional<std::int64_t> i64(std::string_view s);
// "0x1002" or "1002" (hex), whole string.
std::optional<std::uint64_t> hex(std::string_view s);

// An error message that quotes input (a key, a file's text) as one line: control
// characters, newlines included, become spaces.
std::string one_line(std::string message);

}  // namespace amdml::text
