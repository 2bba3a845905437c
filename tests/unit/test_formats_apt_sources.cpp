// apt's source lists (src/formats/apt_sources.*): both forms read, an unedited file
// written back byte for byte, and turning one entry off changes only its lines.
#include <gtest/gtest.h>

#include "formats/apt_sources.hpp"

using namespace amdml::formats::apt;

namespace {

const std::string kOneLine =
    "# See sources.list(5)\n"
    "deb http://archive.ubuntu.com/ubuntu noble main restricted\n"
    "deb [ arch=amd64 signed-by=/usr/share/keyrings/other.gpg ] https://repo.radeon.com/rocm/apt/7.2.1/ noble main # AMD\n"
    "deb-src http://archive.ubuntu.com/ubuntu noble main\n"
    "deb [broken http://x y\n"
    "   \n"
    "deb https://repo.radeon.com/amdgpu/30.30.1/ubuntu noble main";  // no final newline

const std::string kDeb822 =
    "# Ubuntu's\r\n"
    "Types: deb\r\n"
    "URIs: http://archive.ubuntu.com/ubuntu/\r\n"
    "Suites: noble noble-updates\r\n"
    "Components: main\r\n"
    "Signed-By: /usr/share/keyrings/ubuntu-archive-keyring.gpg\r\n"
    "\r\n"
    "Types: deb deb-src\r\n"
    "URIs: https://repo.radeon.com/rocm/apt/7.2.1\r\n"
    "Suites: noble\r\n"
    "Components: main\r\n"
    "Enabled: yes\r\n"
    "Signed-By:\r\n"
    " -----BEGIN PGP PUBLIC KEY BLOCK-----\r\n"
    " .\r\n"
    " mQENYWJj\r\n"
    " -----END PGP PUBLIC KEY BLOCK-----\r\n";

}  // namespace

TEST(FormatsAptSources, OneLineEntriesAndRoundTrip) {
  auto f = parse_one_line(kOneLine);
  EXPECT_EQ(f.text(), kOneLine);
  ASSERT_EQ(f.entries.size(), 4u);
  EXPECT_EQ(f.entries[1].uris[0], "https://repo.radeon.com/rocm/apt/7.2.1/");
  EXPECT_EQ(f.entries[1].options.at("signed-by"), "/usr/share/keyrings/other.gpg");
  EXPECT_EQ(f.entries[1].components, std::vector<std::string>{"main"});  // the comment is no component
  EXPECT_EQ(f.entries[2].types[0], "deb-src");
  EXPECT_TRUE(configures(f.entries[1], "https://repo.radeon.com/rocm/apt/7.2.1", "noble"));
  EXPECT_FALSE(configures(f.entries[1], "https://repo.radeon.com/rocm/apt/7.2.1", "jammy"));
  EXPECT_FALSE(configures(f.entries[2], "http://archive.ubuntu.com/ubuntu", "noble"));  // deb-src only
  EXPECT_TRUE(configures(f.entries[3], "https://repo.radeon.com/amdgpu/30.30.1/ubuntu/", "noble"));
}

TEST(FormatsAptSources, Deb822StanzasAndRoundTrip) {
  auto f = parse_deb822(kDeb822);
  EXPECT_EQ(f.text(), kDeb822);
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].suites, (std::vector<std::string>{"noble", "noble-updates"}));
  EXPECT_EQ(f.entries[1].types, (std::vector<std::string>{"deb", "deb-src"}));
  EXPECT_NE(f.entries[1].options.at("signed-by").find("mQENYWJj"), std::string::npos);
  EXPECT_TRUE(configures(f.entries[1], "https://repo.radeon.com/rocm/apt/7.2.1/", "noble"));
  EXPECT_EQ(parse_sources("/etc/apt/sources.list.d/x.sources", kDeb822).style, Style::deb822);
  EXPECT_EQ(parse_sources("/etc/apt/sources.list.d/x.list", kOneLine).style, Style::one_line);
}

TEST(FormatsAptSources, DisablingChangesOnlyThatEntry) {
  auto f = parse_one_line(kOneLine);
  std::string off = disable(f, f.entries[1], "why");
  EXPECT_EQ(off, "# See sources.list(5)\n"
                 "deb http://archive.ubuntu.com/ubuntu noble main restricted\n"
                 "# why\n"
                 "# deb [ arch=amd64 signed-by=/usr/share/keyrings/other.gpg ] https://repo.radeon.com/rocm/apt/7.2.1/ noble main # AMD\n"
                 "deb-src http://archive.ubuntu.com/ubuntu noble main\n"
                 "deb [broken http://x y\n"
                 "   \n"
                 "deb https://repo.radeon.com/amdgpu/30.30.1/ubuntu noble main");
  EXPECT_EQ(parse_one_line(off).entries.size(), 3u);
  // The last line, without a final newline, keeps having none.
  std::string last = disable(f, f.entries[3], "why");
  EXPECT_EQ(last.substr(last.size() - 22), "30.1/ubuntu noble main");

  auto d = parse_deb822(kDeb822);
  std::string off822 = disable(d, d.entries[1], "why");
  EXPECT_EQ(off822.substr(0, off822.find("# why")), kDeb822.substr(0, kDeb822.find("Types: deb deb-src")));
  auto again = parse_deb822(off822);
  ASSERT_EQ(again.entries.size(), 2u);
  EXPECT_FALSE(again.entries[1].enabled);
  EXPECT_TRUE(again.entries[0].enabled);
  EXPECT_FALSE(configures(again.entries[1], "https://repo.radeon.com/rocm/apt/7.2.1", "noble"));
  EXPECT_NE(off822.find("Enabled: no\r\nSigned-By:\r\n"), std::string::npos) << off822;  // replaced in place
  EXPECT_EQ(off822.find("Enabled: yes"), std::string::npos);
  // Without an Enabled line, one is added before the stanza's first field.
  auto u = parse_deb822("Types: deb\nURIs: http://a/\nSuites: s\n");
  EXPECT_EQ(disable(u, u.entries[0], "why"), "# why\nEnabled: no\nTypes: deb\nURIs: http://a/\nSuites: s\n");
}
