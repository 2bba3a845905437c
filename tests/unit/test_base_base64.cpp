// src/base/base64: the one base64 codec (the journal's strict form, OpenPGP armor's).
#include <gtest/gtest.h>

#include <string>

#include "base/base64.hpp"

using namespace amdml;

TEST(BaseBase64, RoundTripsEveryByteAndEveryPadding) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  EXPECT_EQ(base64::encode(""), "");
  EXPECT_EQ(base64::encode("f"), "Zg==");
  EXPECT_EQ(base64::encode("fo"), "Zm8=");
  EXPECT_EQ(base64::encode("foo"), "Zm9v");
  EXPECT_EQ(base64::encode("foobar"), "Zm9vYmFy");  // RFC 4648 section 10
  for (const std::string& s : {std::string(), std::string("a"), std::string("ab"), std::string("abc"), all}) {
    auto back = base64::decode(base64::encode(s));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, s);
  }
}

TEST(BaseBase64, StrictDecodeRefusesWhatIsNotPadded) {
  EXPECT_FALSE(base64::decode("abc"));    // not a multiple of four
  EXPECT_FALSE(base64::decode("a=bc"));   // padding inside
  EXPECT_FALSE(base64::decode("a==="));   // three padding characters
  EXPECT_FALSE(base64::decode("Zm9v\n"));  // a newline is no base64
  EXPECT_FALSE(base64::decode("Zm9*"));
  EXPECT_EQ(base64::decode("Zg==").value_or("?"), "f");
}

TEST(BaseBase64, ArmorDecodeStopsAtPaddingAndIgnoresMissingIt) {
  EXPECT_EQ(base64::decode_unpadded("Zm9vYg").value_or("?"), "foob");
  EXPECT_EQ(base64::decode_unpadded("Zm9vYg==").value_or("?"), "foob");
  EXPECT_EQ(base64::decode_unpadded("Zg==garbage").value_or("?"), "f");
  EXPECT_FALSE(base64::decode_unpadded("Zm9v!"));
}
