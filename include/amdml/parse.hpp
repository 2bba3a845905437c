// Parsers for the text formats amdml reads: sysfs values, KFD property files,
// os-release, /proc/meminfo, /etc/group and /etc/passwd, /proc/cmdline and
// modprobe.d files. Pure functions over strings -- each is a fuzz target -- that
// reject what they do not understand instead of guessing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts.hpp"

namespace amdml::parse {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view s);
std::vector<std::string> split_ws(std::string_view s);
// s as one POSIX shell word: unchanged when it holds only safe characters, else in
// single quotes (a ' inside becomes '\''). For commands printed for people to paste.
std::string shell_word(std::string_view s);

// An absolute path's components ("/a//b/" -> {"a", "b"}) and back ({} -> "/"). No
// "." or ".." handling: the callers walk components themselves.
std::vector<std::string> split_path(const std::string& p);
std::string join_path(const std::vector<std::string>& parts);

// What one absolute path is, for resolve_path.
struct PathNode {
  enum class Kind { missing, directory, other, symlink } kind = Kind::missing;
  std::string target;  // a symlink's text
};
// Resolves PATH component by component as the kernel does: "." skipped, ".." clamped at
// "/", symlinks followed (relative to their directory; absolute from "/") at most
// max_hops times; with follow_last false a final symlink is the answer. lookup(p, more)
// says what the prefix p is (more: components follow it). nullopt when a component is
// missing, something other than a directory has more components, or the hops run out.
std::optional<std::string> resolve_path(const std::string& path, bool follow_last, int max_hops,
                                        const std::function<PathNode(const std::string& p, bool more)>& lookup);

// Whole-string unsigned decimal ("123\n" ok; "", "-1", "12x", overflow -> nullopt).
std::optional<std::uint64_t> u64(std::string_view s);
// Whole-string signed decimal.
std::optional<std::int64_t> i64(std::string_view s);
// "0x1002" or "1002" (hex), whole string.
std::optional<std::uint64_t> hex(std::string_view s);

// KFD "key value" lines; malformed lines are skipped and counted.
struct KeyValues {
  std::map<std::string, std::uint64_t, std::less<>> values;
  int malformed = 0;
  std::optional<std::uint64_t> get(std::string_view key) const;
};
KeyValues kfd_properties(std::string_view text);

// os-release KEY=value with shell quoting.
std::map<std::string, std::string> os_release(std::string_view text);

// An error message that quotes input (a key, a file's text) as one line: control
// characters, newlines included, become spaces.
std::string one_line(std::string message);

// Variables set for new login sessions: /etc/environment, environment.d(5) files and
// /etc/profile.d/*.sh -- "NAME=value" or "export NAME=value" lines with shell quoting.
// Lines that do anything else (conditionals, PATH=$PATH:..., commands) are skipped: the
// result is what such a file plainly sets, with the line it is on.
struct Assignment {
  int line = 0;
  std::string name;
  std::string value;
};
std::vector<Assignment> login_env(std::string_view text);
// The variables amdml follows through those files: GPU selection and overrides
// (HSA_*, ROCR_*, HIP_*, ROCM_*, GPU_DEVICE_ORDINAL, OLLAMA_*, GGML_*).
bool login_env_followed(std::string_view name);
// Is PATH one of those files (/etc/environment, /etc/environment.d/*.conf, /etc/profile.d/*.sh)?
bool is_login_env_file(std::string_view path);

// /proc/meminfo: "MemTotal:  32768000 kB" -> bytes.
std::map<std::string, std::uint64_t> meminfo(std::string_view text);

// /etc/group and /etc/passwd (malformed lines skipped).
std::vector<GroupEntry> group_file(std::string_view text);
std::vector<PasswdEntry> passwd_file(std::string_view text);

// Kernel command line: words, "key=value" split at the first '='; quotes respected.
std::vector<std::pair<std::string, std::string>> cmdline(std::string_view text);

// modprobe.d: "options MODULE key=value ..." lines (with '\' continuations and '#'
// comments). Other directives are accepted and ignored; garbage goes to bad_lines.
struct ModprobeLine {
  int line = 0;
  std::string module;
  std::string key;
  std::string value;
};
struct ModprobeFile {
  std::vector<ModprobeLine> options;
  std::vector<std::pair<int, std::string>> bad_lines;
};
// modprobe.d: module and option names come back in modprobe's own spelling
// (modprobe_name), so `pages-limit` is `pages_limit` wherever it is compared.
ModprobeFile modprobe_conf(std::string_view text);
// A module or option name as modprobe and the kernel read it: '-' and '_' alike.
std::string modprobe_name(std::string_view name);

// /sys/bus/pci/devices/X/uevent "KEY=value" lines.
std::map<std::string, std::string> uevent(std::string_view text);

}  // namespace amdml::parse
