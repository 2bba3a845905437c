// knowledge.stale (src/rules/knowledge.cpp) over literal facts: the knowledge's date
// against today, 120 days the line.
#include <gtest/gtest.h>

#include "rules/rules.hpp"
#include "rules/rules_internal.hpp"

namespace amdml {
namespace {

std::vector<Finding> stale(const std::string& date, std::optional<std::string> today, const std::string& source = "built-in") {
  Facts f;
  f.knowledge = KnowledgeFacts{date, 1, source, std::move(today)};
  Knowledge kb;
  std::vector<Finding> out;
  rules::knowledge_rules(RuleContext{f, kb}, out);
  return out;
}

TEST(KnowledgeStale, MoreThan120DaysOldIsAnInfoThatSaysHowToUpdate) {
  auto out = stale("2026-03-16", "2026-11-20");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].id, FindingId::knowledge_stale);
  EXPECT_EQ(out[0].severity, Severity::info);
  EXPECT_NE(out[0].title.find("249 days old (2026-03-16)"), std::string::npos) << out[0].title;
  ASSERT_EQ(out[0].commands.size(), 1u);
  EXPECT_EQ(out[0].commands[0], "sudo amdml update");
  ASSERT_EQ(out[0].evidence.size(), 2u);
  EXPECT_EQ(out[0].evidence[1].value, "2026-11-20");
}

TEST(KnowledgeStale, The120thDayIsNotStaleThe121stIs) {
  EXPECT_TRUE(stale("2026-07-02", "2026-10-30").empty());   // 120 days
  EXPECT_EQ(stale("2026-07-02", "2026-10-31").size(), 1u);  // 121
  EXPECT_EQ(stale("2024-02-28", "2024-06-28").size(), 1u);  // across a leap day: 121
}

TEST(KnowledgeStale, SilentWithoutTodayOrDateAndForRecipesNoUpdateCommand) {
  EXPECT_TRUE(stale("2026-03-16", std::nullopt).empty());  // a fixture without a recorded time
  EXPECT_TRUE(stale("", "2026-11-20").empty());            // a --recipes DIR without meta.toml
  EXPECT_TRUE(stale("2026-13-01", "2027-11-20").empty());  // not a day
  auto out = stale("2026-03-16", "2026-11-20", "recipes");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].commands.empty());  // update would not change what --recipes DIR says
  EXPECT_NE(out[0].detail.find("--recipes"), std::string::npos);
}

TEST(KnowledgeStale, ParseDayCountsRealCalendarDays) {
  EXPECT_EQ(parse_day("1970-01-01"), 0);
  EXPECT_EQ(parse_day("2000-03-01").value() - parse_day("2000-02-28").value(), 2);  // 2000 is a leap year
  EXPECT_EQ(parse_day("2100-03-01").value() - parse_day("2100-02-28").value(), 1);  // 2100 is not
  EXPECT_FALSE(parse_day("2026-02-29"));
  EXPECT_FALSE(parse_day("2026-1-01"));
  EXPECT_FALSE(parse_day("2026-01-01x"));
  EXPECT_FALSE(parse_day("1969-12-31"));
}

}  // namespace
}  // namespace amdml
