// The compact knowledge form (formats/knowledge_bin.cpp): the shipped knowledge round
// trips field by field, and every damaged file is an error, never a partial Knowledge.
#include <gtest/gtest.h>

#include "amdml/knowledge.hpp"
#include "formats/knowledge_bin.hpp"
#include "support/knowledge.hpp"

namespace amdml {
namespace {

TEST(KnowledgeBin, TheShippedKnowledgeRoundTripsFieldByField) {
  const Knowledge& kb = test::shipped_knowledge();
  ASSERT_EQ(kb.meta.format, kKnowledgeFormat);
  ASSERT_TRUE(parse_day(kb.meta.date)) << kb.meta.date;
  const std::string bytes = formats::encode_knowledge_bin(kb);
  auto back = formats::decode_knowledge_bin(bytes);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == kb) << "a field of include/amdml/knowledge.hpp is missing from formats/knowledge_bin.cpp";
  EXPECT_EQ(formats::encode_knowledge_bin(*back), bytes);
}

TEST(KnowledgeBin, EveryTruncationAndTrailingByteIsAnError) {
  const std::string bytes = formats::encode_knowledge_bin(test::shipped_knowledge());
  for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 64) EXPECT_FALSE(formats::decode_knowledge_bin(bytes.substr(0, n))) << n;
  EXPECT_FALSE(formats::decode_knowledge_bin(bytes + "x"));
}

TEST(KnowledgeBin, ForeignLayoutBadMagicAndHugeCountsAreRefused) {
  std::string bytes = formats::encode_knowledge_bin(test::shipped_knowledge());
  std::string other = bytes;
  const std::uint32_t foreign = formats::kKnowledgeBinLayout + 1;
  other[8] = static_cast<char>(foreign);  // the layout word follows the 8-byte magic
  auto r = formats::decode_knowledge_bin(other);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("layout " + std::to_string(foreign)), std::string::npos) << r.error().message;
  EXPECT_FALSE(formats::decode_knowledge_bin("AMDMLKB"));
  EXPECT_FALSE(formats::decode_knowledge_bin("not knowledge at all"));
  // The first list count (after format and the date string) set to 0xffffffff.
  std::string huge = bytes;
  const std::size_t count_at = 8 + 4 + 4 + 4 + test::shipped_knowledge().meta.date.size();
  for (int i = 0; i < 4; ++i) huge[count_at + i] = '\xff';
  EXPECT_FALSE(formats::decode_knowledge_bin(huge));
}

}  // namespace
}  // namespace amdml
