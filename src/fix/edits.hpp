// The text edits recipes make, as pure functions over file contents: add a user to
// group lines, set module options on modprobe lines, render amdml's own environment
// files. Each keeps every byte it does not own -- comments, unknown lines, spacing,
// a missing final newline -- so a person's file survives an edit unchanged elsewhere.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fix/fix.hpp"

namespace amdml::fix {

// The first line of every file amdml writes whole; a file at an own path without it
// was put there by a person and is not overwritten.
inline constexpr const char* kOwnMarker = "# Written by amdml fix";

struct GroupEdit {
  std::string text;
  std::vector<std::string> added;    // groups the user was added to
  std::vector<std::string> already;  // groups the user was in
  std::vector<std::string> missing;  // groups with no line in the file
};
// /etc/group and /etc/gshadow both keep members in the fourth ':' field.
GroupEdit add_group_members(const std::string& text, const std::string& user, const std::vector<std::string>& groups);

struct ModprobeEdit {
  std::string text;
  std::vector<std::string> found;  // keys that some options line for module set (and now has the new value)
  int last_line = 0;               // 1-based physical line of the last options line that set one of them
};
// Sets key=value on every "options MODULE ..." line that already sets key (module and
// option names compare with '-' and '_' alike, as modprobe does; the line keeps its
// spelling of the name); lines for other modules, comments and garbage are untouched.
ModprobeEdit set_modprobe_options(const std::string& text, const std::string& module,
                                  const std::vector<std::pair<std::string, std::string>>& options);
// Appends " key=value ..." to the options line that holds physical line `line` (1-based)
// of a modprobe.d text, before its comment (formats::modprobe::append_words).
std::string append_modprobe_options(const std::string& text, int line, const std::string& words);

// Environment settings for an env_file step.
struct EnvSettings {
  std::vector<std::pair<std::string, std::string>> set;  // in order
  std::vector<std::string> unset;
  // Names whose other settings in a person's login files get in the way (a
  // login_env_clear step turns those lines off): any value not in `set` for them.
  std::vector<std::string> clear;
};
std::string render_env_file(EnvFormat format, const std::string& recipe_id, const EnvSettings& env);

// A login-env-clear step's file entry "DIR/*.SUFFIX": {DIR, SUFFIX}; nullopt for a plain path.
std::optional<std::pair<std::string, std::string>> dir_pattern(const std::string& entry);

// text with each of lines (1-based) turned into a comment ("#" before it, `why` after
// it); every other byte as it was.
std::string comment_out_lines(const std::string& text, const std::vector<int>& lines, const std::string& why);
// Kernel command lines (kernel-cmdline step). Words compare by name (before '='), with
// '-' and '_' alike as the kernel compares them; every other word keeps its bytes.
struct CmdlineEdit {
  std::string text;
  std::vector<std::string> found;    // names of params.set that were already there (now replaced)
  std::vector<std::string> removed;  // words removed ("amdgpu.gttsize=128000")
  bool unbalanced = false;           // a command line with an odd number of '"': left as it is
};
// The words of one command line with params.set replaced where they are and params.remove
// dropped; the names of params.set not found are inserted before "--" (the words after
// it are init's, never edited), else at the end. Words are read by the codecs in
// src/formats/ (kernel_cmdline, grub_defaults, kernelstub); a word holding a shell
// expansion is kept as it is.
CmdlineEdit edit_cmdline_words(const std::string& words, const KernelCmdlineParams& params);
// GRUB's defaults: /etc/default/grub then grub.d/*.cfg by name, as grub-mkconfig sources
// them ({path, text} in that order). The assignments that make the value of
// GRUB_CMDLINE_LINUX and _DEFAULT once all have run are edited (the last one, and the
// earlier ones it expands as "$GRUB_CMDLINE_LINUX_DEFAULT"); new parameters go to the
// effective _DEFAULT (added to the first file when nothing assigns it). Only the bytes of
// those values change. An error names a file the shell would not read to its end.
struct GrubEdit {
  CmdlineEdit edit;                // text unused
  std::vector<std::string> texts;  // every file's text after the edit, in the order given
  std::string unbalanced_file;     // the file of edit.unbalanced
};
Result<GrubEdit> edit_grub_files(const std::vector<std::pair<std::string, std::string>>& files,
                                 const KernelCmdlineParams& params);
// /etc/default/grub alone (unbalanced also for a file the shell would not read).
CmdlineEdit edit_grub_defaults(const std::string& text, const KernelCmdlineParams& params);
// /etc/kernel/cmdline (kernel-install): the whole file is one command line.
CmdlineEdit edit_kernel_cmdline_file(const std::string& text, const KernelCmdlineParams& params);
// /etc/kernelstub/configuration (JSON): user.kernel_options; an error for a file that is
// not kernelstub's JSON. Only the list's bytes change.
Result<CmdlineEdit> edit_kernelstub_config(const std::string& text, const KernelCmdlineParams& params);

}  // namespace amdml::fix
