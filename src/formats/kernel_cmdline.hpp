// A kernel command line as the kernel reads it (lib/cmdline.c next_arg): words separated
// by blanks, a '"' stretch belonging to its word, and "--" ending the kernel's own
// parameters (what follows goes to init). The words can carry shell source that only a
// shell knows the value of (`$(...)`, `$VAR` in a GRUB value): such a piece stays one
// opaque part of its word. Also the codec of /etc/kernel/cmdline (kernel-install), whose
// whole file is one command line.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace amdml::formats {

// A stretch of a value: literal bytes, or (code) the shell source of an expansion.
struct CmdlinePiece {
  std::string text;
  bool code = false;
  bool operator==(const CmdlinePiece&) const = default;
};
using CmdlineValue = std::vector<CmdlinePiece>;

struct CmdlineWord {
  std::vector<CmdlinePiece> pieces;
  static CmdlineWord literal(std::string s);
  // The word's bytes (an expansion as its source).
  std::string text() const;
  // The part before the first '=' when it is literal bytes without '"' (a parameter's
  // name as written); nullopt when an expansion or a quote comes first.
  std::optional<std::string> name() const;
  bool operator==(const CmdlineWord&) const = default;
};

// The value's words; nullopt when its literal '"' do not pair (a word added after it
// would land inside the quote).
std::optional<std::vector<CmdlineWord>> split_cmdline(const CmdlineValue& value);
std::optional<std::vector<CmdlineWord>> split_cmdline(std::string_view text);
// The words joined by one blank each, adjacent literal pieces merged.
CmdlineValue join_cmdline(const std::vector<CmdlineWord>& words);
std::string join_cmdline_text(const std::vector<CmdlineWord>& words);
// Where a new kernel parameter goes: before the first "--" word, else at the end.
std::size_t cmdline_insert_at(const std::vector<CmdlineWord>& words);

// /etc/kernel/cmdline: the words, and the blanks and newlines after them.
struct KernelCmdlineFile {
  std::string text;                // the file as read
  std::vector<CmdlineWord> words;  // as read
  std::string trail;               // the trailing blanks and newlines
};
// An error for a command line whose '"' do not pair.
Result<KernelCmdlineFile> read_kernel_cmdline(std::string_view text);
// The file with these words; the bytes read when they are the words read.
std::string write_kernel_cmdline(const KernelCmdlineFile& file, const std::vector<CmdlineWord>& words);

}  // namespace amdml::formats
