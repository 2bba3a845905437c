// Parsers for the text formats amdml reads: sysfs values, KFD property files,
// os-release, /proc/meminfo, /etc/group and /etc/passwd, /proc/cmdline and
// modprobe.d files. Pure functions over strings -- each is a fuzz target -- that
// reject what they do not understand instead of guessing.
#pragma once

#include <cstdint>
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

// An absolute path's components ("/a//b/" -> {"a", "b"}) and back ({} -> "/"). No
// "." or ".." handling: the callers walk components themselves.
std::vector<std::string> split_path(const std::string& p);
std::string join_path(const std::vector<std::string>& parts);

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
ModprobeFile modprobe_conf(std::string_view text);

// /sys/bus/pci/devices/X/uevent "KEY=value" lines.
std::map<std::string, std::string> uevent(std::string_view text);

}  // namespace amdml::parse
