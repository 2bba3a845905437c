// modprobe.d's line model (formats/modprobe_conf.hpp): bytes come back whole, and the
// reader and the edits agree on continuations, remarks, quotes and spelling, as kmod and
// the kernel read them.
#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "formats/modprobe_conf.hpp"

namespace modprobe = amdml::formats::modprobe;
namespace parse = amdml::formats::parse;

TEST(ModprobeConf, ReadThenJoinGivesTheBytesBack) {
  for (const char* text : {"", "\n", "options ttm pages_limit=1", "options ttm pages_limit=1\r\n# c\r\n",
                           "a\\\nb\\\n", "x\r", "\\", "options ttm \\\r\n  pages_limit=2 \\\n\n",
                           "\t options\tamdgpu  gttsize=1 # \"q\"\n\n\nblacklist amdgpu\n"}) {
    const auto f = modprobe::read(text);
    EXPECT_EQ(modprobe::join(f), text);
  }
}

TEST(ModprobeConf, OneDirectivePerLogicalLineWithItsWordsWhereTheyAre) {
  const auto f = modprobe::read("# amd\noptions ttm \\\n  pages_limit=2 # why \\\n  page_pool_size=3\nbogus\n");
  ASSERT_EQ(f.directives.size(), 3u);
  EXPECT_EQ(f.directives[0].kind, modprobe::Kind::blank);
  const auto& d = f.directives[1];
  EXPECT_EQ(d.kind, modprobe::Kind::options);
  EXPECT_EQ(d.first, 1u);
  EXPECT_EQ(d.last, 3u);
  ASSERT_EQ(d.words.size(), 6u);
  EXPECT_EQ(modprobe::word(f, d.words[2]), "pages_limit=2");
  EXPECT_EQ(d.words[2].line, 2u);
  EXPECT_EQ(d.words[2].pos, 2u);
  // kmod joins the lines before it reads them, and passes "# why" on to the kernel, which
  // skips those two words and applies page_pool_size=3.
  EXPECT_EQ(d.remark, 3u);
  EXPECT_EQ(f.directives[2].kind, modprobe::Kind::bad);
  const auto r = parse::modprobe_conf(f);
  ASSERT_EQ(r.options.size(), 2u);
  EXPECT_EQ(r.options[0].key, "pages_limit");
  EXPECT_EQ(r.options[0].line, 2);
  EXPECT_EQ(r.options[1].key, "page_pool_size");
  EXPECT_EQ(r.options[1].value, "3");
  ASSERT_EQ(r.bad_lines.size(), 1u);
  EXPECT_EQ(r.bad_lines[0], (std::pair<int, std::string>{5, "bogus"}));
}

TEST(ModprobeConf, TheEditSetsWhatTheReaderReads) {
  // A quoted word is read as key=value (the kernel drops the quotes), so the edit finds it
  // instead of adding a second pages_limit.
  auto e = amdml::fix::set_modprobe_options("options ttm \"pages-limit=1\"\n", "ttm", {{"pages_limit", "9"}});
  EXPECT_EQ(e.text, "options ttm pages-limit=9\n");
  EXPECT_EQ(e.found, std::vector<std::string>{"pages_limit"});
  // A word after a '#' in an options line reaches the kernel (kmod passes the line on
  // whole), so the edit sets it too.
  const std::string in = "options ttm a=1 # was \\\n pages_limit=2\n";
  e = amdml::fix::set_modprobe_options(in, "ttm", {{"pages_limit", "9"}});
  EXPECT_EQ(e.found, std::vector<std::string>{"pages_limit"});
  EXPECT_EQ(e.text, "options ttm a=1 # was \\\n pages_limit=9\n");
  // Appended options go before the remark, so the line still reads well; the kernel reads them.
  const auto a = amdml::fix::append_modprobe_options(in, 2, "page_pool_size=9");
  EXPECT_EQ(a, "options ttm a=1 page_pool_size=9 # was \\\n pages_limit=2\n");
  const auto r = parse::modprobe_conf(a);
  ASSERT_EQ(r.options.size(), 3u);
  EXPECT_EQ(r.options[1].key, "page_pool_size");
  EXPECT_EQ(r.options[1].value, "9");
}

TEST(ModprobeConf, AppendKeepsTheContinuationAndTheLineEnd) {
  auto f = modprobe::read("options ttm a=1 \\\r\n b=2\\\r\n");
  modprobe::append_words(f, 0, "c=3");
  EXPECT_EQ(modprobe::join(f), "options ttm a=1 \\\r\n b=2 c=3\\\r\n");
  f = modprobe::read("options ttm \\\n# c\n");
  modprobe::append_words(f, 0, "c=3");
  EXPECT_EQ(modprobe::join(f), "options ttm \\\n c=3 # c\n");
  EXPECT_EQ(parse::modprobe_conf(modprobe::join(f)).options.at(0).key, "c");
}

TEST(ModprobeConf, CommentingOutADirectiveTurnsOffAllItsLines) {
  auto f = modprobe::read("ttm.pages_limit=1 \\\n  more\noptions ttm x=1\n");
  ASSERT_EQ(f.directives[0].kind, modprobe::Kind::bad);
  modprobe::comment_out(f, 0, "# off: ");
  EXPECT_EQ(modprobe::join(f), "# off: ttm.pages_limit=1 \\\n  more\noptions ttm x=1\n");
  const auto r = parse::modprobe_conf(modprobe::join(f));
  EXPECT_TRUE(r.bad_lines.empty());
  EXPECT_EQ(r.options.size(), 1u);
}
