// formats/json: the bounded JSON reader.
#include <gtest/gtest.h>

#include <string>

#include "formats/json.hpp"

using namespace amdml;

TEST(ParseJson, DepthIsBoundedOutsideStrings) {
  auto nested = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_TRUE(formats::parse_json(nested(formats::kMaxJsonDepth)).ok());
  auto deep = formats::parse_json(nested(formats::kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message, "nested deeper than 64 levels");
  EXPECT_FALSE(formats::parse_json(nested(300000)).ok());
  // Brackets and escaped quotes inside strings do not count.
  auto s = formats::parse_json("{\"a\": \"" + std::string(100, '[') + "\\\"[[\", \"b\": [{}]}");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ((*s)["b"].size(), 1u);
  EXPECT_EQ(formats::parse_json("{\"a\": ").error().message, "not valid JSON");
}
