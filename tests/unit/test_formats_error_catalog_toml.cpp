// The error catalogue's codec (src/formats/error_catalog_toml.cpp): the shipped files
// parse, round-trip, carry a source for every entry, and a malformed catalogue is one
// clear line naming the file and line.
#include <gtest/gtest.h>

#include <regex>

#include "formats/error_catalog_toml.hpp"
#include "platform/recipes_dir.hpp"

namespace amdml {
namespace {

std::vector<RecipeFile> shipped_error_files() {
  auto files = platform::recipe_files("");
  EXPECT_TRUE(files.ok());
  std::vector<RecipeFile> out;
  for (auto& f : *files)
    if (f.path.starts_with("errors/")) out.push_back(f);
  return out;
}

const char* kMinimal = R"([[error]]
id = "x.one"
title = "One"
meaning = "It means one."
patterns = ["Memory access fault by GPU node-{num}"]
sample = "Memory access fault by GPU node-1."
[[error.cause]]
text = "Because."
findings = ["gfx.override-invalid"]
checks = ["override", "!driver-loaded"]
)";

TEST(ErrorCatalogToml, TheShippedCatalogueHasAtLeastThirtyEntriesEachWithASourceUrl) {
  auto files = shipped_error_files();
  ASSERT_FALSE(files.empty());
  auto cat = formats::load_error_catalog(files);
  ASSERT_TRUE(cat.ok()) << cat.error().message;
  EXPECT_GE(cat->entries.size(), 30u);
  // Every [[error]] has a "# source: https://..." comment in the lines just above it.
  const std::regex source(R"(^# source: https://[^ ]+)");
  for (const auto& f : files) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t nl; (nl = f.text.find('\n', start)) != std::string::npos; start = nl + 1)
      lines.push_back(f.text.substr(start, nl - start));
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i] != "[[error]]") continue;
      bool found = false;
      for (std::size_t k = i; k-- > 0 && lines[k].starts_with("#");) found = found || std::regex_search(lines[k], source);
      EXPECT_TRUE(found) << f.path << ":" << i + 1 << ": [[error]] without a '# source: https://' comment above it";
    }
  }
}

TEST(ErrorCatalogToml, ParsesEveryField) {
  auto cat = formats::parse_error_catalog(kMinimal, "t.toml");
  ASSERT_TRUE(cat.ok()) << cat.error().message;
  ASSERT_EQ(cat->entries.size(), 1u);
  const auto& e = cat->entries[0];
  EXPECT_EQ(e.id, "x.one");
  ASSERT_EQ(e.patterns.size(), 1u);
  ASSERT_EQ(e.patterns[0].parts.size(), 2u);
  EXPECT_EQ(e.patterns[0].parts[0].literal, "memory access fault by gpu node-");
  EXPECT_TRUE(e.patterns[0].parts[1].capture);
  EXPECT_EQ(e.patterns[0].parts[1].kind, CaptureKind::num);
  ASSERT_EQ(e.causes.size(), 1u);
  EXPECT_EQ(e.causes[0].findings, std::vector<FindingId>{FindingId::gfx_override_invalid});
  ASSERT_EQ(e.causes[0].checks.size(), 2u);
  EXPECT_FALSE(e.causes[0].checks[0].negate);
  EXPECT_TRUE(e.causes[0].checks[1].negate);
  EXPECT_EQ(e.causes[0].checks[1].check, ErrorCheck::driver_loaded);
}

TEST(ErrorCatalogToml, TheShippedCatalogueRoundTrips) {
  auto cat = formats::load_error_catalog(shipped_error_files());
  ASSERT_TRUE(cat.ok());
  auto again = formats::parse_error_catalog(formats::write_error_catalog(*cat), "written.toml");
  ASSERT_TRUE(again.ok()) << again.error().message;
  ASSERT_EQ(again->entries.size(), cat->entries.size());
  for (std::size_t i = 0; i < cat->entries.size(); ++i) {
    const auto &a = cat->entries[i], &b = again->entries[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.title, b.title);
    EXPECT_EQ(a.meaning, b.meaning);
    EXPECT_EQ(a.sample, b.sample);
    EXPECT_EQ(a.kernel, b.kernel);
    EXPECT_EQ(a.ollama, b.ollama);
    ASSERT_EQ(a.patterns.size(), b.patterns.size());
    for (std::size_t k = 0; k < a.patterns.size(); ++k) EXPECT_EQ(a.patterns[k].source, b.patterns[k].source);
    ASSERT_EQ(a.causes.size(), b.causes.size());
    for (std::size_t k = 0; k < a.causes.size(); ++k) {
      EXPECT_EQ(a.causes[k].text, b.causes[k].text);
      EXPECT_EQ(a.causes[k].findings, b.causes[k].findings);
      EXPECT_EQ(a.causes[k].checks.size(), b.causes[k].checks.size());
      EXPECT_EQ(a.causes[k].fix, b.causes[k].fix);
    }
  }
}

// Each malformed catalogue gives one line naming the file, the line and what is wrong.
TEST(ErrorCatalogToml, MalformedCataloguesAreOneClearLine) {
  struct Case {
    std::string from, to, want;
  };
  const std::vector<Case> cases = {
      {"title = \"One\"", "titel = \"One\"", "t.toml:3: unknown key 'titel' in [[error]]"},
      {"gfx.override-invalid", "gfx.override-invalidd", "'gfx.override-invalidd' is not a finding id"},
      {"\"override\", ", "\"overide\", ", "'overide' is not a check"},
      {"node-{num}", "node-{number}", "unknown capture {number}"},
      {"node-{num}", "node-{num", "'{' without '}'"},
      {"Memory access fault by GPU node-{num}", "{gfx}", "needs at least 4 bytes of literal text"},
      {"id = \"x.one\"", "id = \"X One\"", "must be lower-case letters"},
      {"[[error.cause]]\ntext = \"Because.\"", "[[error.cause]]\ntext = \"\"", "'text' is empty"},
      {"patterns = [\"Memory access fault by GPU node-{num}\"]", "patterns = \"x\"", "'patterns' must be a list of strings"},
      {"sample = \"Memory access fault by GPU node-1.\"\n", "", "missing string 'sample'"},
      {"[[error]]", "[[error]", "t.toml:1:"},
  };
  for (const auto& c : cases) {
    std::string text = kMinimal;
    auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    auto cat = formats::parse_error_catalog(text, "t.toml");
    ASSERT_FALSE(cat.ok()) << c.to;
    EXPECT_NE(cat.error().message.find(c.want), std::string::npos) << cat.error().message;
    EXPECT_EQ(cat.error().message.find('\n'), std::string::npos) << cat.error().message;
    EXPECT_TRUE(cat.error().message.starts_with("t.toml:")) << cat.error().message;
  }
}

TEST(ErrorCatalogToml, DuplicateIdsAndAMissingCatalogueAreErrors) {
  std::string two = std::string(kMinimal) + kMinimal;
  auto cat = formats::parse_error_catalog(two, "t.toml");
  ASSERT_FALSE(cat.ok());
  EXPECT_NE(cat.error().message.find("id 'x.one' twice"), std::string::npos) << cat.error().message;
  auto split = formats::load_error_catalog({{"errors/a.toml", kMinimal}, {"errors/b.toml", kMinimal}});
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.error().message.find("in another errors/ file"), std::string::npos);
  auto none = formats::load_error_catalog({{"knowledge/gfx.toml", ""}});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no errors/*.toml"), std::string::npos);
}

}  // namespace
}  // namespace amdml
