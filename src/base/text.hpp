// Text helpers with no knowledge of amdml: trimming, splitting, whole-string numbers,
// shell quoting for commands printed to people, one-line error messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdml::text {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view s);
std::vector<std::string> split_ws(std::string_view s);
// The parts with sep between them ({} -> "").
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// s as one POSIX shell word: unchanged when it holds only safe characters, else in
// single quotes (a ' inside becomes '\''). For commands printed for people to paste.
std::string shell_word(std::string_view s);

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
