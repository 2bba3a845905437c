// The systemd unit parser and merge, with literal inputs: sections, comments,
// continuations, Environment= quoting and escapes, resets, env files, typo'd keys.
#include <gtest/gtest.h>

#include "formats/systemd_unit.hpp"

using namespace amdml;
using namespace amdml::systemd;

namespace {

ServiceConfig merged(std::initializer_list<const char*> texts) {
  std::vector<ParsedUnit> files;
  int n = 0;
  for (const char* t : texts) files.push_back(formats::systemd_unit::parse_unit_text(t, "file" + std::to_string(n++)));
  return formats::systemd_unit::merge_service(files);
}

std::string env(const ServiceConfig& c, const std::string& k) {
  auto it = c.environment.find(k);
  return it == c.environment.end() ? "<unset>" : it->second.value;
}

}  // namespace

TEST(SystemdParse, SectionsCommentsAndContinuations) {
  auto p = formats::systemd_unit::parse_unit_text(
      "# comment\n"
      "[Unit]\n"
      "Description=Ollama Service\n"
      "; another comment\n"
      "[Service]\n"
      "Environment=A=1 \\\n"
      "# a comment inside the continuation is skipped\n"
      "  B=2\n"
      "  User = ollama  \n"
      "garbage line\n",
      "u");
  ASSERT_EQ(p.assignments.size(), 3u);
  EXPECT_EQ(p.assignments[0].section, "Unit");
  EXPECT_EQ(p.assignments[1].key, "Environment");
  EXPECT_EQ(p.assignments[1].value, "A=1    B=2");
  EXPECT_EQ(p.assignments[1].line, 6);
  EXPECT_EQ(p.assignments[2].key, "User");
  EXPECT_EQ(p.assignments[2].value, "ollama");
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].line, 10);
}

TEST(SystemdParse, AssignmentBeforeSectionIsAnIssue) {
  auto p = formats::systemd_unit::parse_unit_text("Environment=A=1\n[Service]\n", "u");
  EXPECT_TRUE(p.assignments.empty());
  ASSERT_EQ(p.issues.size(), 1u);
  EXPECT_EQ(p.issues[0].kind, UnitIssue::Kind::syntax);
}

TEST(SystemdEnvironment, QuotesAndSeveralAssignments) {
  auto w = formats::systemd_unit::split_environment(R"("A=x y" B=2 C="quoted mid" 'D=single \"kept\"')");
  ASSERT_FALSE(w.error);
  ASSERT_EQ(w.words.size(), 4u);
  EXPECT_EQ(w.words[0], "A=x y");
  EXPECT_EQ(w.words[1], "B=2");
  EXPECT_EQ(w.words[2], "C=quoted mid");
  EXPECT_EQ(w.words[3], "D=single \"kept\"");
}

TEST(SystemdEnvironment, EscapedQuotesBecomeLiteralQuotes) {
  auto w = formats::systemd_unit::split_environment(R"("HSA_OVERRIDE_GFX_VERSION=\"11.0.3\"")");
  ASSERT_EQ(w.words.size(), 1u);
  EXPECT_EQ(w.words[0], "HSA_OVERRIDE_GFX_VERSION=\"11.0.3\"");
}

TEST(SystemdEnvironment, CEscapes) {
  auto w = formats::systemd_unit::split_environment(R"(A=a\tb B=\x41\101\u00e9 C=x\sy)");
  ASSERT_FALSE(w.error);
  ASSERT_EQ(w.words.size(), 3u);
  EXPECT_EQ(w.words[0], "A=a\tb");
  EXPECT_EQ(w.words[1], "B=AA\xc3\xa9");
  EXPECT_EQ(w.words[2], "C=x y");
}

TEST(SystemdEnvironment, UnterminatedQuoteKeepsEarlierWords) {
  auto w = formats::systemd_unit::split_environment(R"(A=1 "B=2)");
  ASSERT_TRUE(w.error);
  ASSERT_EQ(w.words.size(), 1u);
  EXPECT_EQ(w.words[0], "A=1");
  auto bad = formats::systemd_unit::split_environment(R"(A=\q)");
  EXPECT_TRUE(bad.error);
}

TEST(SystemdMerge, LaterWinsAndEmptyResets) {
  auto c = merged({"[Service]\nEnvironment=A=1 B=1\nUser=ollama\n",
                   "[Service]\nEnvironment=\nEnvironment=A=2\n",
                   "[Service]\nEnvironment=\"C=three words\"\nUser=\n"});
  EXPECT_EQ(env(c, "A"), "2");
  EXPECT_EQ(env(c, "B"), "<unset>");
  EXPECT_EQ(env(c, "C"), "three words");
  EXPECT_FALSE(c.user);
  EXPECT_EQ(c.environment.at("A").file, "file1");
  EXPECT_EQ(c.environment.at("A").line, 3);
}

TEST(SystemdMerge, InvalidWordsAreIgnoredWithAnIssue) {
  auto c = merged({"[Service]\nEnvironment=NOEQUALS 1BAD=x GOOD=y\n"});
  EXPECT_EQ(env(c, "GOOD"), "y");
  EXPECT_EQ(c.environment.size(), 1u);
  int bad = 0;
  for (const auto& i : c.issues) bad += i.kind == UnitIssue::Kind::bad_environment;
  EXPECT_EQ(bad, 2);
}

TEST(SystemdMerge, TypoedKeyIsReportedNotApplied) {
  auto c = merged({"[Service]\nEnviroment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\"\nenvironment=X=1\nExecStartPre=/bin/true\n"});
  EXPECT_TRUE(c.environment.empty());
  ASSERT_EQ(c.unknown_keys.size(), 2u);
  EXPECT_EQ(c.unknown_keys[0].key, "Enviroment");
  EXPECT_EQ(c.unknown_keys[1].key, "environment");
}

TEST(SystemdMerge, GroupsAndEnvFilesAndUnset) {
  auto c = merged({"[Service]\nSupplementaryGroups=render video\nSupplementaryGroups=render\nGroup=ollama\n"
                   "EnvironmentFile=-/etc/default/ollama\nEnvironmentFile=relative\nEnvironment=A=1 B=2\n"
                   "UnsetEnvironment=B\n"});
  EXPECT_EQ(c.supplementary_groups, (std::vector<std::string>{"render", "video"}));
  EXPECT_EQ(c.group, "ollama");
  ASSERT_EQ(c.env_files.size(), 1u);
  EXPECT_TRUE(c.env_files[0].optional);
  EXPECT_EQ(c.env_files[0].path, "/etc/default/ollama");
  EXPECT_EQ(env(c, "B"), "<unset>");
  int rel = 0;
  for (const auto& i : c.issues) rel += i.kind == UnitIssue::Kind::env_file_relative;
  EXPECT_EQ(rel, 1);
}

TEST(SystemdEnvFile, ShellLikeQuoting) {
  auto e = formats::systemd_unit::parse_env_file(
      "# comment\n"
      "; also comment\n"
      "A=plain value   \n"
      "B='single $x \\n'\n"
      "C=\"double \\\"q\\\" \\$HOME \\n\"\n"
      "D=one\\\ntwo\n"
      "  E = spaced\n"
      "bad-name=1\n"
      "noequals\n",
      "/etc/default/ollama");
  std::map<std::string, std::string> m(e.vars.begin(), e.vars.end());
  EXPECT_EQ(m["A"], "plain value");
  EXPECT_EQ(m["B"], "single $x \\n");
  EXPECT_EQ(m["C"], "double \"q\" $HOME \\n");
  EXPECT_EQ(m["D"], "onetwo");
  EXPECT_EQ(m["E"], "spaced");
  EXPECT_EQ(e.vars.size(), 5u);
  EXPECT_EQ(e.issues.size(), 2u);
}

TEST(SystemdEnvFile, FilesOverrideEnvironmentLines) {
  auto c = merged({"[Service]\nEnvironment=A=unit B=unit\nEnvironmentFile=/e1\nEnvironmentFile=-/missing\n"
                   "EnvironmentFile=/missing2\n"});
  formats::systemd_unit::apply_env_files(c, nullptr, [](const void*, const std::string& p) -> Result<std::string> {
    if (p == "/e1") return std::string("A=file\n");
    return make_error(p + ": No such file or directory", ENOENT);
  });
  EXPECT_EQ(env(c, "A"), "file");
  EXPECT_TRUE(c.environment.at("A").from_env_file);
  EXPECT_EQ(env(c, "B"), "unit");
  int missing = 0;
  for (const auto& i : c.issues) missing += i.kind == UnitIssue::Kind::env_file_missing;
  EXPECT_EQ(missing, 1);  // the '-' one is optional
}

// Arbitrary bytes never crash the parsers, and whatever the merge keeps is a valid
// variable name with a value free of control characters other than tab and newline.
TEST(SystemdFuzzSmoke, RandomInputKeepsInvariants) {
  std::uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  const std::string alphabet = "[]=\\\"' \t\n#;ABCxyz_019%-/\x01\xc3";
  for (int round = 0; round < 2000; ++round) {
    std::string text = "[Service]\nEnvironment=";
    int len = static_cast<int>(next() % 80);
    for (int i = 0; i < len; ++i) text += alphabet[next() % alphabet.size()];
    auto cfg = formats::systemd_unit::merge_service({formats::systemd_unit::parse_unit_text(text, "fuzz")});
    formats::systemd_unit::apply_env_files(cfg, nullptr, [](const void*, const std::string&) -> Result<std::string> { return std::string("A=\"x\\\n"); });
    for (const auto& [k, v] : cfg.environment) {
      EXPECT_TRUE(formats::systemd_unit::env_name_valid(k)) << text;
      for (unsigned char c : v.value) EXPECT_TRUE(c >= 0x20 || c == '\t' || c == '\n') << text;
    }
    formats::systemd_unit::parse_env_file(text, "fuzz");
    formats::systemd_unit::split_environment(text);
  }
}
