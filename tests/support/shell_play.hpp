// Plays a command line amdml printed for a person, in a shell where nothing real runs:
// `sh -n` and `bash -n` judge its syntax; then bash runs it with an empty PATH, `sudo`
// a function that runs its arguments, and every command that is not a shell builtin
// recorded instead of run (its argv and what it read on stdin). ~ is an empty
// directory. What the line would have done is then data: the argv each program got,
// the bytes `tee` or `install` would have written, the files written through a
// redirection, the environment it left (export, unset). A command substituted from a
// value (`$(id)`, backquotes, `; id`) shows up as a call of its own.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "support/tree.hpp"

namespace amdml::test {

struct PlayedCall {
  std::vector<std::string> argv;
  std::string stdin_bytes;
};

struct Played {
  int sh_syntax = -1;    // exit status of `sh -n` (dash on Debian)
  int bash_syntax = -1;  // of `bash -n`
  std::vector<PlayedCall> calls;
  std::map<std::string, std::string> home_files;  // written under ~, by name relative to it
  std::map<std::string, std::string> env;         // the environment at the end
  // Whether any call's argv, stdin, a file under ~ or an environment value holds `bytes`.
  bool delivered(const std::string& bytes) const {
    for (const auto& c : calls) {
      if (c.stdin_bytes.find(bytes) != std::string::npos) return true;
      for (const auto& a : c.argv)
        if (a.find(bytes) != std::string::npos) return true;
    }
    for (const auto& [k, v] : home_files)
      if (v.find(bytes) != std::string::npos) return true;
    for (const auto& [k, v] : env)
      if (v.find(bytes) != std::string::npos) return true;
    return false;
  }
  // Whether a program named `name` was called (a value that ran as code).
  bool called(const std::string& name) const {
    for (const auto& c : calls)
      if (!c.argv.empty() && c.argv[0] == name) return true;
    return false;
  }
};

inline std::vector<std::string> split_nul(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto j = s.find('\0', i);
    if (j == std::string::npos) j = s.size();
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

inline Played play_command(const std::string& command) {
  namespace fs = std::filesystem;
  Played p;
  TestTree box;  // an empty directory, removed afterwards
  const std::string d = box.str();
  write_file(box / "cmd.sh", command + "\n");
  fs::create_directories(box / "home");
  auto status = [](int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0); };
  p.sh_syntax = status(std::system(("sh -n '" + d + "/cmd.sh' </dev/null >/dev/null 2>&1").c_str()));
  p.bash_syntax = status(std::system(("bash -n '" + d + "/cmd.sh' </dev/null >/dev/null 2>&1").c_str()));
  const std::string run =
      "PATH=/amdml-no-such-directory\n"
      "HOME='" + d + "/home'\n"
      "cd \"$HOME\" || exit 99\n"
      "command_not_found_handle() {\n"
      // (A redirection is expanded in the child that runs the program: the pid first.)
      "  local me=$BASHPID\n"
      "  /bin/cat > '" + d + "/in.'$me\n"
      "  { printf '%s\\0' \"$me\" \"$#\"; printf '%s\\0' \"$@\"; } >> '" + d + "/calls'\n"
      "  return 0\n"
      "}\n"
      "sudo() { \"$@\"; }\n"
      // Prose such as "set X where FILE sets it": `set` is recorded, not run.
      "set() { command_not_found_handle set \"$@\"; }\n"
      ". '" + d + "/cmd.sh'\n"
      "wait\n"
      "/usr/bin/env -0 > '" + d + "/env'\n"
      // A line appended to ~/.profile is shell code itself: what PATH a login gets from it.
      "if [ -f \"$HOME/.profile\" ]; then . \"$HOME/.profile\"; printf '%s' \"$PATH\" > '" + d + "/profile-path'; wait; fi\n";
  write_file(box / "run.sh", run);
  (void)std::system(("bash '" + d + "/run.sh' </dev/null >/dev/null 2>&1").c_str());
  const auto words = split_nul(read_file(box / "calls"));
  for (std::size_t i = 0; i + 1 < words.size();) {
    PlayedCall c;
    const std::string pid = words[i];
    const std::size_t n = std::stoul(words[i + 1]);
    for (std::size_t k = 0; k < n && i + 2 + k < words.size(); ++k) c.argv.push_back(words[i + 2 + k]);
    c.stdin_bytes = read_file(box / ("in." + pid));
    p.calls.push_back(std::move(c));
    i += 2 + n;
  }
  for (auto it = fs::recursive_directory_iterator(box / "home"); it != fs::recursive_directory_iterator(); ++it)
    if (it->is_regular_file()) p.home_files[fs::relative(it->path(), box / "home").string()] = read_file(it->path());
  for (const auto& kv : split_nul(read_file(box / "env"))) {
    const auto eq = kv.find('=');
    if (eq != std::string::npos) p.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (fs::exists(box / "profile-path")) p.env["PATH after ~/.profile"] = read_file(box / "profile-path");
  return p;
}

// `sed ARGS` run for real on a copy of `before` in place of the file sed -i names last;
// what the file then holds.
inline std::string run_sed_on(const std::vector<std::string>& sed_argv, const std::string& before) {
  TestTree box;
  write_file(box / "file", before);
  std::vector<std::string> args = sed_argv;
  args[0] = "/bin/sed";
  args.back() = (box / "file").string();
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "sed failed";
  return read_file(box / "file");
}

}  // namespace amdml::test
