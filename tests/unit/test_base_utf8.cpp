// src/base/utf8: the one UTF-8 decoder, validator and encoder.
#include <gtest/gtest.h>

#include <string>

#include "base/utf8.hpp"

using namespace amdml;

namespace {

std::size_t length_at(std::string_view s, std::size_t i = 0) {
  char32_t cp = 0;
  return utf8::decode(s, i, cp);
}

}  // namespace

TEST(BaseUtf8, DecodesEachLengthToItsCodePoint) {
  char32_t cp = 0;
  EXPECT_EQ(utf8::decode("A", 0, cp), 1u);
  EXPECT_EQ(cp, U'A');
  EXPECT_EQ(utf8::decode("\xc3\xa9", 0, cp), 2u);
  EXPECT_EQ(cp, U'\u00e9');
  EXPECT_EQ(utf8::decode("x\xe2\x9c\x93", 1, cp), 3u);
  EXPECT_EQ(cp, U'\u2713');
  EXPECT_EQ(utf8::decode("\xf0\x9f\x98\x80", 0, cp), 4u);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(utf8::decode("\xf4\x8f\xbf\xbf", 0, cp), 4u);  // U+10FFFF, the last
  EXPECT_EQ(cp, char32_t{0x10FFFF});
}

TEST(BaseUtf8, RefusesWhatRfc3629Forbids) {
  EXPECT_EQ(length_at("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(length_at("\xe0\x80\xaf"), 0u);      // overlong, three bytes
  EXPECT_EQ(length_at("\xed\xa0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(length_at("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(length_at("\xe9"), 0u);              // Latin-1 byte
  EXPECT_EQ(length_at("\x80"), 0u);              // a continuation byte alone
  EXPECT_EQ(length_at("\xe2\x9c"), 0u);          // cut short
  EXPECT_EQ(length_at("\xf8\x88\x80\x80\x80"), 0u);
  EXPECT_TRUE(utf8::valid(""));
  EXPECT_TRUE(utf8::valid("caf\xc3\xa9 \xe2\x9c\x93"));
  EXPECT_FALSE(utf8::valid("caf\xe9"));
  EXPECT_FALSE(utf8::valid(std::string("ok\xed\xbf\xbf", 5)));
}

TEST(BaseUtf8, AppendWritesWhatDecodeReads) {
  for (char32_t cp : {U'\0', U'A', U'\u007f', U'\u0080', U'\u07ff', U'\u0800', U'\uffff', U'\U00010000', U'\U0010FFFF'}) {
    std::string s;
    utf8::append(s, cp);
    char32_t back = 0xFFFFFFFF;
    ASSERT_EQ(utf8::decode(s, 0, back), s.size()) << static_cast<unsigned>(cp);
    EXPECT_EQ(back, cp);
  }
}
