// /etc/amdml/update.conf (formats/update_conf.cpp): two keys, anything else refused.
#include <gtest/gtest.h>

#include "formats/update_conf.hpp"

namespace amdml {
namespace {

TEST(UpdateConf, ReadsUrlAndKeyring) {
  auto c = formats::parse_update_conf("# a mirror\nurl = \"https://mirror.example.org/k.tar.gz\"\nkeyring = \"/etc/amdml/m.gpg\"\n",
                             "update.conf");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->url, "https://mirror.example.org/k.tar.gz");
  EXPECT_EQ(c->keyring, "/etc/amdml/m.gpg");
  auto empty = formats::parse_update_conf("", "update.conf");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->url.empty() && empty->keyring.empty());
}

TEST(UpdateConf, UnknownKeysBadUrlsAndRelativeKeyringsAreErrorsWithTheLine) {
  auto typo = formats::parse_update_conf("url = \"https://a/b\"\nkeyrign = \"/k\"\n", "update.conf");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().message, "update.conf:2: unknown key 'keyrign' (url, keyring)");
  EXPECT_FALSE(formats::parse_update_conf("url = \"ftp://a/b\"\n", "update.conf"));
  EXPECT_FALSE(formats::parse_update_conf("keyring = \"k.gpg\"\n", "update.conf"));
  EXPECT_FALSE(formats::parse_update_conf("url = 3\n", "update.conf"));
  EXPECT_FALSE(formats::parse_update_conf("url = \"https://a\n", "update.conf"));
}

}  // namespace
}  // namespace amdml
