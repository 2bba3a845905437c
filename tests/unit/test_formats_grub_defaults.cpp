// GRUB's defaults read and edited the way the shell that sources them reads them (issue
// 29: S1, M1, M3, M4, L7, L8). Each edited file is checked by a real shell: `sh -n`
// accepts it, and sourcing it gives exactly the command line intended -- the words the
// original gave, with the request applied -- while every other variable keeps its value.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "formats/grub_defaults.hpp"
#include "formats/system_files.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::test;

namespace {

const char* kPages = "28835840";

KernelCmdlineParams strix_params() {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", kPages}, {"ttm.page_pool_size", kPages}};
  p.remove = {"amdgpu.gttsize", "amdttm.pages_limit", "amdttm.page_pool_size"};
  return p;
}

// stdout of a shell command, and its exit status.
std::pair<std::string, int> shell(const std::string& cmd) {
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return {"", -1};
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int rc = ::pclose(pipe);
  return {out, rc};
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// What sh makes of the files sourced in order: each variable's value, NUL-separated.
struct Sourced {
  bool ok = false;
  std::string linux_value, default_value, others;
};
Sourced source(const TestTree& t, const std::vector<std::string>& texts) {
  std::string dots;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const std::string path = t.str() + "/f" + std::to_string(i);
    write_file(path, texts[i]);
    if (shell("sh -n " + quoted(path) + " 2>/dev/null").second != 0) return {};
    dots += ". " + quoted(path) + "; ";
  }
  const std::string script = dots +
                             "printf '%s\\0' \"$GRUB_CMDLINE_LINUX\" \"$GRUB_CMDLINE_LINUX_DEFAULT\" "
                             "\"$GRUB_TIMEOUT\" \"$GRUB_X\" \"$GRUB_DISTRIBUTOR\" \"$GRUB_DEFAULT\"";
  auto [out, rc] = shell("sh -c " + quoted(script) + " 2>/dev/null");
  if (rc != 0) return {};
  Sourced s;
  s.ok = true;
  const auto a = out.find('\0'), b = out.find('\0', a + 1);
  s.linux_value = out.substr(0, a);
  s.default_value = out.substr(a + 1, b - a - 1);
  s.others = out.substr(b + 1);
  return s;
}

// The kernel's words (blanks separate, '"' groups), independent of the codec.
std::vector<std::string> kernel_words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  bool q = false;
  for (char c : s) {
    if (c == '"') q = !q;
    if (!q && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (!w.empty()) out.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

std::string norm(std::string name) {
  for (auto& c : name)
    if (c == '-') c = '_';
  return name;
}

// The request applied to a command line by hand: removed names dropped, set names
// given the value (once), new ones before "--".
std::vector<std::string> intended(const std::vector<std::string>& words, const KernelCmdlineParams& p) {
  std::vector<std::string> out;
  std::set<std::string> done;
  bool init = false;
  for (const auto& w : words) {
    if (w == "--") init = true;
    const std::string n = norm(w.substr(0, w.find('=')));
    if (!init && std::any_of(p.remove.begin(), p.remove.end(), [&](const std::string& r) { return norm(r) == n; }))
      continue;
    bool set = false;
    for (const auto& [k, v] : p.set)
      if (!init && norm(k) == n) {
        set = true;
        if (done.insert(k).second) out.push_back(w.substr(0, w.find('=')) + "=" + v);
      }
    if (!set) out.push_back(w);
  }
  auto at = std::find(out.begin(), out.end(), std::string("--"));
  std::vector<std::string> add;
  for (const auto& [k, v] : p.set)
    if (!done.count(k)) add.push_back(k + "=" + v);
  out.insert(at, add.begin(), add.end());
  return out;
}

std::vector<std::string> both(const Sourced& s) { return kernel_words(s.linux_value + " " + s.default_value); }

// The 40-odd forms the outside attack tried, and then some.
const std::vector<std::string> kVariants = {
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash amdgpu.gttsize=128000\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT='quiet splash'\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=quiet\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet acpi_osi=\\\"Windows 2015\\\" amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"acpi_osi=\\\"Windows 2015\\\"\"\nGRUB_TIMEOUT=5\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"a\\\\\\\\b quiet \\$HOME\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"'amdgpu.gttsize=1'\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet \"'amdgpu.gttsize=1'\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet \\\nsplash amdgpu.gttsize=1\"\nGRUB_TIMEOUT=5\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\nsplash amdgpu.gttsize=1\"\nGRUB_TIMEOUT=5\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=quiet\\\n\\ splash\nGRUB_TIMEOUT=5\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $(echo x) amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $(printf %s 'a b') amdgpu.gttsize=1 splash\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet `echo splash` amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"$(echo \"(a)\") amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=$(echo quiet)\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=quiet;GRUB_X=1\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"; GRUB_TIMEOUT=5\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\" # a comment with \"quotes\n",
    "#GRUB_CMDLINE_LINUX_DEFAULT=\"x\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=\"splash amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT splash\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT} amdttm.pages_limit=3\"\n",
    "export GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\"\n",
    "   GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"   \n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet -- single amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX=\"root=/dev/sda1 -- init\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"\"\n",
    "GRUB_TIMEOUT=5\n",
    "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\"",
    "GRUB_TIMEOUT=5 \\",
    "if [ -z \"$GRUB_X\" ]; then\n  GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\"\nfi\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $ x\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\tsplash\t amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT='quiet acpi_osi=\"Windows 2015\"'\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet it's\"\n",
    "GRUB_DEFAULT=0\nGRUB_DISTRIBUTOR=`( . /etc/os-release 2>/dev/null && echo ${NAME} )`\n"
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=128000 amdttm.pages_limit=3 amdttm.page_pool_size=3\"\n"
    "GRUB_CMDLINE_LINUX=\"\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $GRUB_UNSET\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdttm.pages-limit=1 ttm.pages-limit=2\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"ttm.pages_limit=1 ttm.pages_limit=2 quiet\"\n",
    "GRUB_TIMEOUT=5 GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX=\"amdgpu.gttsize=1 root=x\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet $((1 + 2)) amdgpu.gttsize=1\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\r\nGRUB_TIMEOUT=5\r\n",
    "echo GRUB_CMDLINE_LINUX_DEFAULT=x >/dev/null\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\" && GRUB_X=2 || GRUB_X=3\n",
    "case x in x) GRUB_CMDLINE_LINUX_DEFAULT=\"quiet amdgpu.gttsize=1\";; esac\n",
    "true 2>&1 >/dev/null </dev/null\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n",
};

TEST(GrubDefaults, EveryVariantEditsToWhatTheShellReadsAsIntended) {
  TestTree t;
  const auto p = strix_params();
  int checked = 0;
  for (const auto& text : kVariants) {
    SCOPED_TRACE(text);
    const Sourced before = source(t, {text});
    ASSERT_TRUE(before.ok);
    auto e = fix::edit_grub_files({{"/etc/default/grub", text}}, p);
    ASSERT_TRUE(e) << e.error().message;
    ASSERT_FALSE(e->edit.unbalanced);
    const std::string& out = e->texts[0];
    const Sourced after = source(t, {out});
    ASSERT_TRUE(after.ok) << out;  // sh -n and sourcing both pass
    EXPECT_EQ(both(after), intended(both(before), p)) << out;
    EXPECT_EQ(after.others, before.others) << out;
    // Applied again: nothing changes.
    auto again = fix::edit_grub_files({{"/etc/default/grub", out}}, p);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->texts[0], out);
    // What doctor reads is what the shell gives (where no expansion needs a shell).
    if (out.find_first_of("$`") == std::string::npos) {
      EXPECT_EQ(kernel_words(formats::parse::grub_cmdline(out)), both(after)) << out;
    }
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

TEST(GrubDefaults, EscapedQuotesStayInTheirWord) {
  auto e = fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet acpi_osi=\\\"Windows 2015\\\" amdgpu.gttsize=1\"\n",
                                   strix_params());
  EXPECT_EQ(e.text,
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet acpi_osi=\\\"Windows 2015\\\" ttm.page_pool_size=28835840 "
            "ttm.pages_limit=28835840\"\n");
  EXPECT_EQ(e.removed, std::vector<std::string>{"amdgpu.gttsize=1"});
}

TEST(GrubDefaults, TheLastAssignmentIsTheOneEdited) {
  const std::string text = "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"splash\"\n";
  auto e = fix::edit_grub_defaults(text, strix_params());
  EXPECT_EQ(e.text, "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"splash ttm.page_pool_size=28835840 "
                    "ttm.pages_limit=28835840\"\n");
  EXPECT_EQ(formats::parse::grub_cmdline(e.text), "splash ttm.page_pool_size=28835840 ttm.pages_limit=28835840");
}

TEST(GrubDefaults, AContinuedValueIsOneValue) {
  auto e = fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet \\\n  splash amdgpu.gttsize=1\"\nGRUB_CMDLINE_LINUX=\"\"\n",
                                   strix_params());
  EXPECT_EQ(e.text, "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash ttm.page_pool_size=28835840 ttm.pages_limit=28835840\"\n"
                    "GRUB_CMDLINE_LINUX=\"\"\n");
}

TEST(GrubDefaults, ACommandSubstitutionIsOneWord) {
  auto e = fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=\"$(cat /x | tr a b) amdgpu.gttsize=1 `echo y`\"\n",
                                   strix_params());
  EXPECT_EQ(e.text, "GRUB_CMDLINE_LINUX_DEFAULT=\"$(cat /x | tr a b) `echo y` ttm.page_pool_size=28835840 "
                    "ttm.pages_limit=28835840\"\n");
}

TEST(GrubDefaults, GluedPiecesAndSemicolons) {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "1"}};
  p.remove = {"amdgpu.gttsize"};
  // The shell glues "quiet" and 'amdgpu.gttsize=1' into one word: no such parameter.
  EXPECT_EQ(fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"'amdgpu.gttsize=1'\n", p).text,
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quietamdgpu.gttsize=1 ttm.pages_limit=1\"\n");
  EXPECT_EQ(fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=quiet;GRUB_X=1\n", p).text,
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet ttm.pages_limit=1\";GRUB_X=1\n");
  EXPECT_EQ(fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT='quiet splash'\n", p).text,
            "GRUB_CMDLINE_LINUX_DEFAULT='quiet splash ttm.pages_limit=1'\n");
}

TEST(GrubDefaults, NewParametersGoBeforeTheDoubleDash) {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "1"}};
  EXPECT_EQ(fix::edit_grub_defaults("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet -- single\"\n", p).text,
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet ttm.pages_limit=1 -- single\"\n");
  // GRUB_CMDLINE_LINUX comes first on the line: a "--" there takes _DEFAULT to init.
  EXPECT_EQ(fix::edit_grub_defaults("GRUB_CMDLINE_LINUX=\"ro -- x\"\nGRUB_CMDLINE_LINUX_DEFAULT=quiet\n", p).text,
            "GRUB_CMDLINE_LINUX=\"ro ttm.pages_limit=1 -- x\"\nGRUB_CMDLINE_LINUX_DEFAULT=quiet\n");
  // A parameter after "--" is init's: not removed, not set.
  KernelCmdlineParams r;
  r.set = {{"ttm.pages_limit", "1"}};
  r.remove = {"amdgpu.gttsize"};
  EXPECT_EQ(fix::edit_cmdline_words("quiet -- amdgpu.gttsize=1 ttm.pages_limit=5", r).text,
            "quiet ttm.pages_limit=1 -- amdgpu.gttsize=1 ttm.pages_limit=5");
}

TEST(GrubDefaults, WhatTheShellWouldNotRunIsNotEdited) {
  for (const std::string bad : {"GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\n", "GRUB_CMDLINE_LINUX_DEFAULT='quiet\n",
                                "GRUB_CMDLINE_LINUX_DEFAULT=\"$(echo quiet\"\n", "GRUB_X=`echo\n",
                                "cat <<EOF\nGRUB_CMDLINE_LINUX_DEFAULT=x\nEOF\n", "alice:x:1000>\n"}) {
    SCOPED_TRACE(bad);
    auto e = fix::edit_grub_files({{"/etc/default/grub", bad}}, strix_params());
    ASSERT_FALSE(e);
    EXPECT_TRUE(e.error().message.starts_with("/etc/default/grub: line ")) << e.error().message;
    EXPECT_EQ(fix::edit_grub_defaults(bad, strix_params()).text, bad);
  }
}

TEST(GrubDefaults, ReadThenWriteGivesTheSameBytes) {
  for (const auto& text : kVariants) {
    auto d = formats::read_grub_defaults(text);
    ASSERT_TRUE(d) << text;
    EXPECT_EQ(d->text, text);
    for (std::size_t i = 0; i < d->assignments.size(); ++i)
      EXPECT_EQ(formats::write_grub_value(*d, i, d->assignments[i].value), text);
  }
  auto d = formats::read_grub_defaults("X=1\nGRUB_CMDLINE_LINUX=\"a b\" # c\n");
  ASSERT_TRUE(d);
  ASSERT_EQ(d->assignments.size(), 1u);
  EXPECT_EQ(d->assignments[0].line, 2);
  EXPECT_EQ(d->assignments[0].quote, '"');
  EXPECT_EQ(formats::write_grub_value(*d, 0, {{"a", false}}), "X=1\nGRUB_CMDLINE_LINUX=\"a\" # c\n");
}

// grub-mkconfig sources /etc/default/grub, then grub.d/*.cfg (M2): the value is the last
// one, and the edit goes to the file that holds it.
TEST(GrubDefaults, GrubDotDOverridesAndIsEdited) {
  TestTree t;
  const std::string grub = "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\nGRUB_CMDLINE_LINUX=\"\"\n";
  const std::string cloud = "# Set the default commandline\nGRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0 amdgpu.gttsize=1\"\n";
  const std::string later = "GRUB_TIMEOUT=0\n";
  auto e = fix::edit_grub_files({{"/etc/default/grub", grub}, {"/etc/default/grub.d/50-cloudimg-settings.cfg", cloud},
                                 {"/etc/default/grub.d/60-x.cfg", later}},
                                strix_params());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->texts[0], grub);
  EXPECT_EQ(e->texts[2], later);
  EXPECT_EQ(e->texts[1], "# Set the default commandline\nGRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0 "
                         "ttm.page_pool_size=28835840 ttm.pages_limit=28835840\"\n");
  const Sourced after = source(t, e->texts);
  ASSERT_TRUE(after.ok);
  EXPECT_EQ(after.default_value, "console=tty1 console=ttyS0 ttm.page_pool_size=28835840 ttm.pages_limit=28835840");
  std::vector<formats::GrubFile> files;
  for (std::size_t i = 0; i < e->texts.size(); ++i)
    files.push_back({"f" + std::to_string(i), *formats::read_grub_defaults(e->texts[i])});
  const auto read = formats::grub_cmdline(files);
  EXPECT_EQ(read.words, after.default_value);
  EXPECT_EQ(read.file, "f1");
}

}  // namespace
