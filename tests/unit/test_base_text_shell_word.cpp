// base/text's shell_word, the one quoting of every word amdml prints in a command: a
// POSIX sh (dash, and bash) turns the printed word back into exactly the bytes it
// stands for -- every byte value, newlines, bytes that are not UTF-8 -- and the word
// itself holds only characters a terminal and a JSON writer pass unchanged (issue 29
// S2, S3, L2).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "base/text.hpp"

using namespace amdml;

namespace {

// What `SHELL SCRIPT` writes to stdout, byte for byte (the script from a file, so its
// bytes reach the shell unchanged); exit status in *code.
std::string run_script(const std::string& shell, const std::string& script, int* code = nullptr) {
  char path[] = "/tmp/amdml-shell-word-XXXXXX";
  const int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path, std::ios::binary) << script;
  std::string out;
  if (FILE* p = ::popen((shell + " " + path + " </dev/null 2>/dev/null").c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int st = ::pclose(p);
    if (code) *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  ::unlink(path);
  return out;
}

// Every value printed through `printf '%s|'` and read back, in one shell run per shell.
void expect_round_trip(const std::vector<std::string>& values) {
  std::string script;
  std::string want;
  for (const auto& v : values) {
    const std::string w = text::shell_word(v);
    script += "printf '%s|' " + w + "\n";
    want += v + "|";
    // What a person copies is what amdml printed: nothing a terminal would escape or a
    // JSON writer replace (a newline only at the end, inside single quotes).
    std::string body = w;
    while (!body.empty() && (body.back() == '\'' || body.back() == '\n')) body.pop_back();
    EXPECT_TRUE(text::shell_printable(body)) << w;
  }
  for (const char* shell : {"sh", "bash --posix", "bash"}) {
    int code = -1;
    const std::string got = run_script(shell, script, &code);
    EXPECT_EQ(code, 0) << shell;
    EXPECT_EQ(got, want) << shell;
  }
}

}  // namespace

TEST(ShellWord, EveryByteValueComesBackExactly) {
  std::vector<std::string> values;
  for (int b = 1; b < 256; ++b) {
    values.push_back(std::string(1, static_cast<char>(b)));
    values.push_back("a" + std::string(1, static_cast<char>(b)) + "z");
  }
  expect_round_trip(values);
}

TEST(ShellWord, HostileValuesStayOneWordAndRunNothing) {
  const std::string hostile = "x' \"$(touch PWNED)`touch PWNED`;touch PWNED|touch PWNED&touch PWNED\nnext\xff\xfe-%s\\n";
  expect_round_trip({hostile, "-n", "-", "--", "%d%s%%", "\\0101\\n", "'", "''", "\"", "a\nb", "\n", "tail\n\n",
                     "\xff\n", "caf\xc3\xa9", "\xc3", "\xc2\x85", "\x1b[31m", "\t", " lead", "~", "~root", "*", "?",
                     "[a]", "{a,b}", "#c", "a=b", "!", "$HOME", "${x}", "\xe2\x80\xae", hostile + "\n"});
  // PWNED would be a file in the shell's working directory: the test's.
  EXPECT_NE(::access("PWNED", F_OK), 0);
}

TEST(ShellWord, SafeWordsStayPlainAndPrintableOnesUseSingleQuotes) {
  EXPECT_EQ(text::shell_word("/opt/rocm-6.2.4"), "/opt/rocm-6.2.4");
  EXPECT_EQ(text::shell_word("/opt/rocm-6.2.4 (copy)"), "'/opt/rocm-6.2.4 (copy)'");
  EXPECT_EQ(text::shell_word("caf\xc3\xa9"), "'caf\xc3\xa9'");
  // Not UTF-8, or a control: octal escapes in printf's format, no $'...' (not POSIX).
  EXPECT_EQ(text::shell_word("a\xff"), "\"$(printf 'a\\377')\"");
  EXPECT_EQ(text::shell_word("-\n"), "'-\n'");  // a trailing newline: literal, inside single quotes
  EXPECT_EQ(text::shell_word("a\nb"), "\"$(printf 'a\\012b')\"");
  EXPECT_EQ(text::shell_words({"mv", "-T", "--", "/opt/rocm-6.1.0;id", "/opt/x y"}), "mv -T -- '/opt/rocm-6.1.0;id' '/opt/x y'");
}
