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
