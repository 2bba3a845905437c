// /etc/kernel/cmdline and the kernel's words (formats/kernel_cmdline.hpp): quotes, "--",
// expansions kept whole, and a write without an edit giving the bytes read.
#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "formats/kernel_cmdline.hpp"
#include "formats/system_files.hpp"

using namespace amdml;
using namespace amdml::formats;

namespace {

std::vector<std::string> texts(const std::vector<CmdlineWord>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) out.push_back(w.text());
  return out;
}

TEST(KernelCmdlineCodec, WordsAsTheKernelReadsThem) {
  auto w = split_cmdline("root=UUID=x  acpi_osi=\"Windows 2015\"\tquiet\n-- single");
  ASSERT_TRUE(w);
  EXPECT_EQ(texts(*w), (std::vector<std::string>{"root=UUID=x", "acpi_osi=\"Windows 2015\"", "quiet", "--", "single"}));
  EXPECT_EQ((*w)[1].name(), "acpi_osi");
  EXPECT_EQ(cmdline_insert_at(*w), 3u);
  EXPECT_FALSE(split_cmdline("a=\"b c"));
  // An expansion stays inside its word; its name is unknown when it comes first.
  auto g = split_cmdline(CmdlineValue{{"quiet a=", false}, {"$(echo b c)", true}, {" ", false}, {"$X", true}, {"=1", false}});
  ASSERT_TRUE(g);
  EXPECT_EQ(texts(*g), (std::vector<std::string>{"quiet", "a=$(echo b c)", "$X=1"}));
  EXPECT_EQ((*g)[1].name(), "a");
  EXPECT_FALSE((*g)[2].name());
  EXPECT_EQ(join_cmdline(*g), (CmdlineValue{{"quiet a=", false}, {"$(echo b c)", true}, {" ", false}, {"$X", true}, {"=1", false}}));
}

TEST(KernelCmdlineCodec, ReadThenWriteGivesTheSameBytes) {
  for (const std::string text : {"", "\n", "root=/dev/sda1  ro\tquiet \n\n", "a=\"b  c\" -- x", "  lead\r\n"}) {
    auto f = read_kernel_cmdline(text);
    ASSERT_TRUE(f) << text;
    EXPECT_EQ(write_kernel_cmdline(*f, f->words), text);
  }
  EXPECT_FALSE(read_kernel_cmdline("root=/dev/sda1 x=\"a\n"));
}

TEST(KernelCmdlineCodec, NewParametersGoBeforeTheDoubleDash) {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "1"}};
  p.remove = {"amdgpu.gttsize"};
  EXPECT_EQ(fix::edit_kernel_cmdline_file("root=UUID=x amdgpu.gttsize=2 -- single amdgpu.gttsize=3\n", p).text,
            "root=UUID=x ttm.pages_limit=1 -- single amdgpu.gttsize=3\n");
  EXPECT_EQ(fix::edit_kernel_cmdline_file("root=UUID=x -- single", p).text, "root=UUID=x ttm.pages_limit=1 -- single\n");
  // Applied again: the same bytes.
  const auto once = fix::edit_kernel_cmdline_file("root=UUID=x -- single\n", p).text;
  EXPECT_EQ(fix::edit_kernel_cmdline_file(once, p).text, once);
}

TEST(KernelCmdlineCodec, InitsWordsAreNotTheKernels) {
  auto words = formats::parse::cmdline("BOOT_IMAGE=/vmlinuz ro amdgpu.gttsize=1 -- amdgpu.gttsize=2 single");
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[2], (std::pair<std::string, std::string>{"amdgpu.gttsize", "1"}));
}

}  // namespace
