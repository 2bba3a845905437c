// An OpenPGP key's primary fingerprint, read from its packets (RFC 4880 section 12.2)
// and compared with what gpg printed for the same throwaway key; SHA-1 on the FIPS 180
// vectors. rocm-install refuses a signing key whose fingerprint is not the pinned one.
#include <gtest/gtest.h>

#include <string>

#include "base/sha1.hpp"
#include "formats/openpgp_armor.hpp"
#include "support/test_key.hpp"

namespace amdml {

namespace {

std::string hex(const std::array<std::uint8_t, 20>& d) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (auto b : d) out += std::string{digits[b >> 4], digits[b & 15]};
  return out;
}

const char* kKey = amdml::test::kTestKey;

}  // namespace

TEST(Sha1, FipsVectors) {
  EXPECT_EQ(hex(sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(hex(sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(hex(sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(hex(sha1(std::string(1000000, 'a'))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(OpenpgpFingerprint, IsWhatGpgPrintsForTheSameKey) {
  auto bin = formats::dearmor_public_key(kKey);
  ASSERT_TRUE(bin) << bin.error().message;
  auto fp = formats::openpgp_fingerprint(*bin);
  ASSERT_TRUE(fp) << fp.error().message;
  EXPECT_EQ(*fp, amdml::test::kTestKeyFingerprint);
  // AMD's packages.gpg is the binary key followed by an armored copy: dearmoring the
  // concatenation gives the key again, with the same fingerprint.
  auto both = formats::dearmor_public_key(*bin + kKey);
  ASSERT_TRUE(both);
  EXPECT_EQ(formats::openpgp_fingerprint(*both).value_or(""), amdml::test::kTestKeyFingerprint);
}

TEST(OpenpgpFingerprint, RefusesWhatIsNoV4PublicKey) {
  auto bin = formats::dearmor_public_key(kKey);
  ASSERT_TRUE(bin);
  EXPECT_FALSE(formats::openpgp_fingerprint(""));
  EXPECT_FALSE(formats::openpgp_fingerprint("not a key"));
  EXPECT_FALSE(formats::openpgp_fingerprint(bin->substr(0, 10)));  // a cut packet
  std::string v5 = *bin;
  v5[2] = 5;  // the version octet after the old-format tag and one length byte
  EXPECT_FALSE(formats::openpgp_fingerprint(v5));
  std::string sig = *bin;
  sig[0] = static_cast<char>(0x88);  // old-format tag 2: a signature packet first
  EXPECT_FALSE(formats::openpgp_fingerprint(sig));
  std::string other = *bin;
  other[10] = static_cast<char>(other[10] ^ 1);  // one bit of the key material
  auto fp = formats::openpgp_fingerprint(other);
  ASSERT_TRUE(fp);
  EXPECT_NE(*fp, amdml::test::kTestKeyFingerprint);
}

}  // namespace amdml
