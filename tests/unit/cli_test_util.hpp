// Running the amdml binary from a test through /bin/sh: quoting, a captured stdout and
// stderr, the exit code or the signal that ended it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace amdml::test {

inline std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ShellRun {
  int code = -1;    // exit status; 128+N when a signal N ended the command
  std::string out;  // stdout, unless the command line redirected it
  std::string err;
};

// Runs `cmd` (a shell command line) with stdin from /dev/null.
inline ShellRun shell_run(const std::string& cmd) {
  static int n = 0;
  std::string base = "/tmp/amdml-cli-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
  int st = std::system(("{ " + cmd + " ; } >" + base + ".out 2>" + base + ".err </dev/null").c_str());
  ShellRun r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
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

inline std::string fixture(const std::string& machine) { return std::string(AMDML_FIXTURES_DIR) + "/" + machine; }

}  // namespace amdml::test
