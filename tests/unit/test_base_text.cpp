// base/text: whole-string numbers, decimal and hex, and the garbage around them.
#include <gtest/gtest.h>

#include "base/text.hpp"

using namespace amdml;

TEST(Parse, Numbers) {
  EXPECT_EQ(text::u64("3052026\n"), 3052026u);
  EXPECT_FALSE(text::u64("-1"));
  EXPECT_FALSE(text::u64("12x"));
  EXPECT_FALSE(text::u64(""));
  EXPECT_FALSE(text::u64("99999999999999999999999"));
  EXPECT_EQ(text::hex("0x1002\n"), 0x1002u);
  EXPECT_EQ(text::hex("0x030000"), 0x030000u);
  EXPECT_FALSE(text::hex("0x"));
  EXPECT_EQ(text::i64("-1"), -1);
}

TEST(Text, LinesWithEndsGiveTheBytesBack) {
  for (std::string_view s : {"", "a", "a\n", "a\r\nb", "\n\n", "a\r", "a\rb\r\n\r\n", "x\r\r\n"}) {
    std::string joined;
    for (const auto& l : amdml::text::lines_with_ends(s)) {
      EXPECT_EQ(l.body.find('\n'), std::string_view::npos);
      joined += std::string(l.body) + std::string(l.end);
    }
    EXPECT_EQ(joined, s);
  }
  const auto l = amdml::text::lines_with_ends("a\r\nb\nc\r");
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[0].body, "a");
  EXPECT_EQ(l[0].end, "\r\n");
  EXPECT_EQ(l[1].end, "\n");
  EXPECT_EQ(l[2].body, "c\r");  // a CR without LF is the line's own byte
  EXPECT_EQ(l[2].end, "");
}
