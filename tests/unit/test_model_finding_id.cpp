// The finding catalog (amdml/finding_id.hpp): one row per id, each with its page in
// docs/findings/, and ids that only the catalog can make.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <type_traits>

#include "amdml/finding.hpp"
#include "rules/rules.hpp"

namespace amdml {
namespace {

// A finding id is a FindingId, never a string: writing an id the catalog does not have
// does not compile.
static_assert(!std::is_assignable_v<FindingId&, const char*>);
static_assert(!std::is_assignable_v<FindingId&, std::string>);
static_assert(!std::is_constructible_v<FindingId, std::string_view>);
static_assert(std::is_same_v<decltype(Finding{}.id), FindingId>);

TEST(FindingCatalog, EveryIdHasAPageAndEveryPageAnId) {
  std::set<std::string> ids, pages;
  for (const auto& s : finding_catalog()) ids.insert(std::string(s.name));
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(AMDML_SOURCE_DIR) / "docs" / "findings"))
    if (e.path().extension() == ".md") pages.insert(e.path().stem().string());
  EXPECT_EQ(ids.size(), finding_catalog().size()) << "two rows share an id";
  for (const auto& id : ids) EXPECT_TRUE(pages.count(id)) << "docs/findings/" << id << ".md is missing";
  for (const auto& p : pages) EXPECT_TRUE(ids.count(p)) << "docs/findings/" << p << ".md documents no catalog id";
}

TEST(FindingCatalog, DottedIdsRoundTrip) {
  for (const auto& s : finding_catalog()) {
    EXPECT_EQ(to_string(s.id), s.name);
    EXPECT_EQ(parse_finding_id(s.name), s.id) << s.name;
    EXPECT_EQ(find_finding_spec(s.name), &finding_spec(s.id)) << s.name;
    EXPECT_EQ(default_severity(s.id), s.severity) << s.name;
    EXPECT_EQ(finding_prefix(s.id), s.name.substr(0, s.name.find('.'))) << s.name;
    EXPECT_FALSE(s.summary.empty()) << s.name;
  }
  EXPECT_EQ(to_string(FindingId::gfx_override_needed), "gfx.override-needed");
  EXPECT_EQ(finding_prefix(FindingId::memory_ttm_wrong_module), "memory");
  for (const char* unknown : {"", "gfx", "gfx.", "nobody.knows", "GPU.NONE", "gpu.none ", "gpu_none"})
    EXPECT_FALSE(parse_finding_id(unknown)) << '"' << unknown << '"';
}

// src/rules has one file per finding-id prefix, and the rule table one rule (or two)
// named after each prefix: a new prefix without its rule file, or a rule file without
// findings in the catalog, fails here.
TEST(FindingCatalog, EveryPrefixHasItsRuleFileAndTableEntry) {
  std::set<std::string> prefixes, rules;
  for (const auto& s : finding_catalog()) prefixes.insert(std::string(finding_prefix(s.id)));
  for (const auto& r : rule_table()) rules.insert(r.name);
  EXPECT_EQ(prefixes, rules);
  const auto dir = std::filesystem::path(AMDML_SOURCE_DIR) / "src" / "rules";
  for (const auto& p : prefixes) EXPECT_TRUE(std::filesystem::exists(dir / (p + ".cpp"))) << "src/rules/" << p << ".cpp";
}

}  // namespace
}  // namespace amdml
