// The CLI runner: the built amdml binary run from a test through /bin/sh, with stdin
// from /dev/null, stdout and stderr captured, the exit code or the signal that ended it.
// Only the amdml_cli_tests binary is given AMDML_BINARY: a test file that includes this
// header is a `cli` test (tests/CMakeLists.txt sorts the files by it).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/tree.hpp"

namespace amdml::test {

inline std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct CliRun {
  int code = -1;    // exit status; 128+N when a signal N ended the command
  int signal = 0;   // N when a signal ended it, else 0
  std::string out;  // stdout, unless the command line redirected it
  std::string err;
};

// "--root TREE --color never": the global flags of a test that runs amdml on a tree.
inline std::string root_args(const TestTree& t) { return "--root " + t.str() + " --color never"; }

// Runs `cmd`, a shell command line.
inline CliRun shell_run(const std::string& cmd) {
  static int n = 0;
  std::string base = (fs::temp_directory_path() / ("amdml-cli-" + std::to_string(::getpid()) + "-" +
                                                   std::to_string(n++))).string();
  int st = std::system(("{ " + cmd + " ; } >" + base + ".out 2>" + base + ".err </dev/null").c_str());
  CliRun r;
  if (WIFEXITED(st)) r.code = WEXITSTATUS(st);
  else if (WIFSIGNALED(st)) r.code = 128 + WTERMSIG(st);
  // sh reports a child killed by signal N as 128+N.
  if (r.code > 128) r.signal = r.code - 128;
  r.out = read_file(base + ".out");
  r.err = read_file(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

// `amdml ARGS...` with each argument quoted; `tail` is appended unquoted (redirections).
inline std::string amdml_command(const std::vector<std::string>& args, const std::string& tail = "") {
  std::string cmd = sh_quote(AMDML_BINARY);
  for (const auto& a : args) cmd += " " + sh_quote(a);
  return tail.empty() ? cmd : cmd + " " + tail;
}

// `amdml ARGS...`, each argument a word of its own.
inline CliRun amdml_run(const std::vector<std::string>& args) { return shell_run(amdml_command(args)); }

// `PREFIX amdml ARGS`: args a shell word list (simple words), prefix a command the
// binary runs under ("timeout 20", "AMDML_X=1").
inline CliRun run_amdml(const std::string& args, const std::string& prefix = "") {
  return shell_run(prefix + " " + sh_quote(AMDML_BINARY) + " " + args);
}

}  // namespace amdml::test
