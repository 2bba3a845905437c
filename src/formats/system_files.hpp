// Parsers for the text formats amdml reads: sysfs values, KFD property files,
// os-release, /proc/meminfo, /etc/group and /etc/passwd, /proc/cmdline and modprobe.d
// files (their line model is formats/modprobe_conf.hpp). Pure functions over strings --
// each is a fuzz target -- that reject what they do not understand instead of guessing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts.hpp"
#include "base/paths.hpp"
#include "base/text.hpp"
#include "formats/modprobe_conf.hpp"

namespace amdml::formats::parse {


// KFD "key value" lines; malformed lines are skipped and counted.
struct KeyValues {
  std::map<std::string, std::uint64_t, std::less<>> values;
  int malformed = 0;
  std::optional<std::uint64_t> get(std::string_view key) const;
};
KeyValues kfd_properties(std::string_view text);

// os-release KEY=value with shell quoting.
std::map<std::string, std::string> os_release(std::string_view text);

// The stanzas of a Debian control file (/var/lib/dpkg/status), split at blank lines;
// each keeps its last line's newline.
std::vector<std::string_view> dpkg_stanzas(std::string_view text);
// The value of a stanza's "KEY: value" line, wherever it stands in the stanza; nullopt
// without one.
std::optional<std::string_view> dpkg_field(std::string_view stanza, std::string_view key);

// dpkg's state of a package: the third word of its Status field ("install ok
// half-configured"; dpkg-query(1), "Package states"); unknown for a word dpkg does not write.
enum class DpkgState {
  unknown,
  not_installed,
  config_files,
  half_installed,
  unpacked,
  half_configured,
  triggers_awaited,
  triggers_pending,
  installed,
};
// A package in dpkg's status: its name, Version and state. The want and error words of
// Status ("hold", "deinstall", "reinstreq") say what is to happen to it, not what is on
// disk: a held package is installed.
struct DpkgPackage {
  std::string name;
  std::string version;
  DpkgState state = DpkgState::unknown;
  // Unpacked and configured: what a probe reports as present.
  bool installed() const { return state == DpkgState::installed; }
  // Some of its files are on disk (unpacked, configured or anywhere between): what an
  // install that fails half-way leaves, and what a purge removes. Not config-files, whose
  // package is gone but for its configuration.
  bool on_disk() const { return state >= DpkgState::half_installed; }
};
// The DpkgState a Status field's state word names; unknown for any other word.
DpkgState dpkg_state(std::string_view status_field);
// The packages of dpkg's status whose name `want` accepts, in the file's order. Only a
// stanza's Package line is read before want decides; the other stanzas are skipped
// unparsed (a desktop's status holds thousands, amdml asks for a few dozen), so another
// reader (ROCm, firmware, ...) passes its own predicate.
std::vector<DpkgPackage> dpkg_packages(std::string_view status, const std::function<bool(std::string_view)>& want);

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
// Is PATH one of those files (/etc/environment, /etc/environment.d/*.conf, /etc/profile.d/*.sh,
// a user's ~/.config/environment.d/*.conf)?
bool is_login_env_file(std::string_view path);
// Is PATH a process's environment, /proc/PID/environ (NUL-separated NAME=VALUE)?
bool is_process_environ(std::string_view path);

// /proc/meminfo: "MemTotal:  32768000 kB" -> bytes.
std::map<std::string, std::uint64_t> meminfo(std::string_view text);

// /etc/group and /etc/passwd (malformed lines skipped).
std::vector<GroupEntry> group_file(std::string_view text);
std::vector<PasswdEntry> passwd_file(std::string_view text);

// Kernel command line: words, "key=value" split at the first '='; quotes respected; the
// words after "--" (init's) left out.
std::vector<std::pair<std::string, std::string>> cmdline(std::string_view text);

// /etc/default/grub alone: the value of GRUB_CMDLINE_LINUX then _DEFAULT once the shell
// has run it (formats/grub_defaults.hpp; with grub.d: formats::grub_cmdline); "" for a
// file the shell would not run.
std::string grub_cmdline(std::string_view text);
// /etc/kernelstub/configuration (JSON, formats/kernelstub.hpp): user.kernel_options
// joined; nullopt when it is not that.
std::optional<std::string> kernelstub_cmdline(std::string_view text);

// modprobe.d (parse::modprobe_conf, modprobe_name): formats/modprobe_conf.hpp.

// /sys/bus/pci/devices/X/uevent "KEY=value" lines.
std::map<std::string, std::string> uevent(std::string_view text);

}  // namespace amdml::formats::parse