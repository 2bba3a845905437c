// GRUB's defaults: /etc/default/grub and /etc/default/grub.d/*.cfg, shell scripts that
// grub-mkconfig sources in that order (the grub.d files sorted by name). The codec reads
// them the way that shell does -- single and double quotes, backslash escapes,
// backslash-newline continuations and newlines inside quotes, pieces glued together
// ("a"'b'), `$(...)`, `${...}` and backticks as one piece of shell source, ';' and
// newlines ending a command, comments -- and finds every assignment to
// GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT with its value's bytes in the file.
// A write replaces one assignment's value bytes and nothing else. Here-documents and
// quotes left open are errors: such a file is not guessed at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "formats/kernel_cmdline.hpp"

namespace amdml::formats {

inline constexpr const char* kGrubLinux = "GRUB_CMDLINE_LINUX";
inline constexpr const char* kGrubDefault = "GRUB_CMDLINE_LINUX_DEFAULT";

struct GrubAssignment {
  std::string name;               // kGrubLinux or kGrubDefault
  int line = 0;                   // 1-based line of the name
  std::size_t value_begin = 0;    // the value's source bytes: [value_begin, value_end)
  std::size_t value_end = 0;
  CmdlineValue value;             // what the shell assigns (an expansion as its source)
  char quote = 0;                 // '\'' or '"' when the source is one quoted string, 0 otherwise
};

struct GrubDefaults {
  std::string text;
  std::vector<GrubAssignment> assignments;  // in the order the shell runs them
};

// An error "line N: ..." for a file a shell would not run to the end (an open quote or
// `$(`) or one the codec does not follow (a here-document).
Result<GrubDefaults> read_grub_defaults(std::string_view text);

// The file with assignment `index`'s value replaced by `value`, in the quoting the
// assignment had where it can hold it, else in double quotes; every other byte as read.
std::string write_grub_value(const GrubDefaults& file, std::size_t index, const CmdlineValue& value);
// The file with `KEY="value"` added on a line of its own at the end.
std::string append_grub_assignment(const std::string& text, const std::string& name, const CmdlineValue& value);

// Shell source that assigns exactly `value` (literal bytes escaped, expansions as they were).
std::string grub_value_source(const CmdlineValue& value, char quote);

// The files grub-mkconfig sources, in its order, each read.
struct GrubFile {
  std::string path;
  GrubDefaults defaults;
};
// A reference into a list of GrubFiles.
struct GrubRef {
  std::size_t file = 0;
  std::size_t index = 0;  // into that file's assignments
};
// The assignments that make `name`'s value once every file has run: the last one, and
// before it each earlier one it expands ("$GRUB_CMDLINE_LINUX_DEFAULT more"), earliest
// first; empty when nothing assigns it.
std::vector<GrubRef> grub_chain(const std::vector<GrubFile>& files, const std::string& name);
// The value `name` has once every file has run: the chain with each "$NAME" of the
// variable itself expanded.
CmdlineValue grub_value(const std::vector<GrubFile>& files, const std::string& name);

// What the kernel gets from these files: GRUB_CMDLINE_LINUX then _DEFAULT, and the path
// of the file whose assignment decides it (the last _DEFAULT one, else the last
// GRUB_CMDLINE_LINUX one, else the first file).
struct GrubCmdline {
  std::string words;
  std::string file;
};
GrubCmdline grub_cmdline(const std::vector<GrubFile>& files);

}  // namespace amdml::formats
