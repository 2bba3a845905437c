// OpenPGP armor to the binary gpg --dearmor writes (formats/openpgp_armor.hpp).
#include <gtest/gtest.h>

#include "formats/openpgp_armor.hpp"

using amdml::formats::dearmor_public_key;

TEST(OpenpgpArmor, DecodesTheBodyAndSkipsHeadersAndTheChecksum) {
  // "\x99\x01\x0d" + "abc" in base64 is "mQENYWJj".
  std::string armored =
      "-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: test\n\nmQEN\nYWJj\n=AbCd\n-----END PGP PUBLIC KEY BLOCK-----\n";
  auto bin = amdml::formats::dearmor_public_key(armored);
  ASSERT_TRUE(bin) << bin.error().message;
  EXPECT_EQ(*bin, std::string("\x99\x01\x0d" "abc"));
}

TEST(OpenpgpArmor, PaddingEndsTheData) {
  auto bin = amdml::formats::dearmor_public_key("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQ==\n-----END PGP PUBLIC KEY BLOCK-----\n");
  ASSERT_TRUE(bin);
  EXPECT_EQ(*bin, std::string("\x99"));
}

TEST(OpenpgpArmor, BinaryKeysPassAndTextThatIsNoKeyIsAnError) {
  std::string binary("\x99\x01\x0d" "abc");
  EXPECT_EQ(*amdml::formats::dearmor_public_key(binary), binary);
  EXPECT_FALSE(amdml::formats::dearmor_public_key("<html>404</html>"));
  EXPECT_FALSE(amdml::formats::dearmor_public_key("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQ*N\n-----END PGP PUBLIC KEY BLOCK-----\n"));
  EXPECT_FALSE(amdml::formats::dearmor_public_key("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQEN\n"));
}
