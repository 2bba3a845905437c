// src/base: text, paths, enum names, errno names, Fd, AMDML_TRY.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "base/enum_names.hpp"
#include "base/errno_names.hpp"
#include "base/fd.hpp"
#include "base/paths.hpp"
#include "base/result.hpp"
#include "base/text.hpp"

namespace amdml {
namespace {

// --- text ---------------------------------------------------------------------------

TEST(BaseText, TrimStripsAsciiWhitespaceOnBothEndsOnly) {
  EXPECT_EQ(text::trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(text::trim("\f\v"), "");
  EXPECT_EQ(text::trim(""), "");
  EXPECT_EQ(text::trim("x"), "x");
}

TEST(BaseText, SplitLinesAndWords) {
  EXPECT_EQ(text::split_lines("a\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(text::split_lines("a\n"), (std::vector<std::string_view>{"a"}));
  EXPECT_EQ(text::split_ws("  one\ttwo \n three "), (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_TRUE(text::split_ws(" \t").empty());
}

TEST(BaseText, SplitKeepsEmptyParts) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(text::split("a,,b", ','), (V{"a", "", "b"}));
  EXPECT_EQ(text::split("", ','), (V{""}));
  EXPECT_EQ(text::split(",", ','), (V{"", ""}));
  EXPECT_EQ(text::split("/usr/bin:/bin", ':'), (V{"/usr/bin", "/bin"}));
}

TEST(BaseText, CaseMappingIsAsciiOnly) {
  EXPECT_EQ(text::to_lower("HSA_Override-1.0"), "hsa_override-1.0");
  EXPECT_EQ(text::to_upper("auth_token"), "AUTH_TOKEN");
  EXPECT_EQ(text::to_lower("\xc3\x89T\xc3\x89"), "\xc3\x89t\xc3\x89");  // bytes past ASCII unchanged
}

TEST(BaseText, JoinPutsTheSeparatorOnlyBetween) {
  EXPECT_EQ(text::join({}, ", "), "");
  EXPECT_EQ(text::join({"a"}, ", "), "a");
  EXPECT_EQ(text::join({"a", "", "c"}, "/"), "a//c");
}

TEST(BaseText, ShellWordQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(text::shell_word("/etc/modprobe.d/amdgpu.conf"), "/etc/modprobe.d/amdgpu.conf");
  EXPECT_EQ(text::shell_word("a b"), "'a b'");
  EXPECT_EQ(text::shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(text::shell_word(""), "''");
}

TEST(BaseText, WholeStringNumbers) {
  EXPECT_EQ(text::u64("123\n"), 123u);
  EXPECT_EQ(text::u64("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(text::u64("18446744073709551616"));
  EXPECT_FALSE(text::u64(""));
  EXPECT_FALSE(text::u64("-1"));
  EXPECT_FALSE(text::u64("12x"));
  EXPECT_EQ(text::i64("-42"), -42);
  EXPECT_FALSE(text::i64("4 2"));
  EXPECT_EQ(text::hex("0x1002"), 0x1002u);
  EXPECT_EQ(text::hex("73bf"), 0x73bfu);
  EXPECT_FALSE(text::hex("0x"));
  EXPECT_FALSE(text::hex("xyz"));
}

TEST(BaseText, OneLineReplacesControlCharacters) {
  EXPECT_EQ(text::one_line("a\nb\tc\x01" "d\x7f"), "a b c d ");
  EXPECT_EQ(text::one_line("plain"), "plain");
}

// --- paths --------------------------------------------------------------------------

TEST(BasePaths, DirnameIsTheTextBeforeTheLastSlash) {
  EXPECT_EQ(paths::dirname("/a/b/c"), "/a/b");
  EXPECT_EQ(paths::dirname("/a"), "/");
  EXPECT_EQ(paths::dirname("/"), "/");
  EXPECT_EQ(paths::dirname("a"), ".");
  EXPECT_EQ(paths::dirname(""), ".");
  EXPECT_EQ(paths::dirname("/a/"), "/a");
  EXPECT_EQ(paths::dirname("a/b"), "a");
}

TEST(BasePaths, BasenameIsTheTextAfterTheLastSlash) {
  EXPECT_EQ(paths::basename("/a/b/c"), "c");
  EXPECT_EQ(paths::basename("a"), "a");
  EXPECT_EQ(paths::basename("/"), "");
  EXPECT_EQ(paths::basename("/a/"), "");
  EXPECT_EQ(paths::basename(""), "");
  EXPECT_EQ(paths::basename("lib/libamdhip64.so.6"), "libamdhip64.so.6");
}

TEST(BasePaths, SplitAndJoinAbsolutePaths) {
  EXPECT_EQ(paths::split_path("/a//b/"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(paths::split_path("/").empty());
  EXPECT_EQ(paths::join_path({}), "/");
  EXPECT_EQ(paths::join_path({"a", "b"}), "/a/b");
}

TEST(BasePaths, ResolveFollowsSymlinksLikeTheKernel) {
  // /lib -> usr/lib (relative), /usr/lib/x -> /etc/y (absolute), /loop -> /loop.
  auto lookup = [](const std::string& p, bool) {
    using K = paths::PathNode::Kind;
    if (p == "/lib") return paths::PathNode{K::symlink, "usr/lib"};
    if (p == "/usr/lib/x") return paths::PathNode{K::symlink, "/etc/y"};
    if (p == "/loop") return paths::PathNode{K::symlink, "/loop"};
    if (p == "/usr" || p == "/usr/lib" || p == "/etc") return paths::PathNode{K::directory, ""};
    if (p == "/etc/y" || p == "/usr/lib/f") return paths::PathNode{K::other, ""};
    return paths::PathNode{};
  };
  EXPECT_EQ(paths::resolve_path("/lib/f", true, 40, lookup), "/usr/lib/f");
  EXPECT_EQ(paths::resolve_path("/lib/x", true, 40, lookup), "/etc/y");
  EXPECT_EQ(paths::resolve_path("/lib/x", false, 40, lookup), "/usr/lib/x");
  EXPECT_EQ(paths::resolve_path("/../usr/./lib/f", true, 40, lookup), "/usr/lib/f");
  EXPECT_FALSE(paths::resolve_path("/loop", true, 40, lookup));
  EXPECT_FALSE(paths::resolve_path("/etc/y/z", true, 40, lookup));  // a file with more components
  EXPECT_FALSE(paths::resolve_path("/nothing", true, 40, lookup));
}

// --- enum names ---------------------------------------------------------------------

enum class Fruit { apple, pear, plum, unnamed };
constexpr EnumName<Fruit> kFruitNames[] = {{Fruit::apple, "apple"}, {Fruit::pear, "pear"}, {Fruit::plum, "Plum"}};

TEST(BaseEnumNames, EveryNameRoundTrips) {
  for (const auto& n : kFruitNames) {
    EXPECT_STREQ(enum_name(kFruitNames, n.value, "?"), n.name);
    EXPECT_EQ(enum_from_name(kFruitNames, n.name), n.value);
  }
}

TEST(BaseEnumNames, UnknownValuesAndNames) {
  EXPECT_STREQ(enum_name(kFruitNames, Fruit::unnamed, "none"), "none");
  EXPECT_FALSE(enum_from_name(kFruitNames, "plum"));  // case matters
  EXPECT_FALSE(enum_from_name(kFruitNames, ""));
  EXPECT_FALSE(enum_from_name(kFruitNames, "apple "));
  static_assert(enum_from_name(kFruitNames, "pear") == Fruit::pear, "usable at compile time");
}

// --- errno names --------------------------------------------------------------------

TEST(BaseErrnoNames, SymbolicNamesBothWays) {
  EXPECT_EQ(errno_name(EACCES), "EACCES");
  EXPECT_EQ(errno_name(ENOENT), "ENOENT");
  EXPECT_EQ(errno_name(EOVERFLOW), "EOVERFLOW");
  EXPECT_EQ(errno_from_name("EPERM"), EPERM);
  EXPECT_EQ(errno_from_name("ENAMETOOLONG"), ENAMETOOLONG);
  EXPECT_STREQ(errno_symbol(EIO), "EIO");
  for (int e : {EPERM, ENOENT, EINTR, EIO, EAGAIN, ENOMEM, EACCES, EBUSY, EEXIST, ENOTDIR, EINVAL, ENOSPC, EROFS, ELOOP})
    EXPECT_EQ(errno_from_name(errno_name(e)), e) << e;
}

// glibc names every errno Linux has (strerrorname_np), not only those a table listed.
TEST(BaseErrnoNames, EveryErrnoGlibcNamesRoundTrips) {
  EXPECT_EQ(errno_name(ENOTEMPTY), "ENOTEMPTY");
  EXPECT_EQ(errno_name(EHWPOISON), "EHWPOISON");
  EXPECT_EQ(errno_from_name("ECONNRESET"), ECONNRESET);
  EXPECT_EQ(errno_symbol(0), nullptr);
  EXPECT_EQ(errno_symbol(-1), nullptr);
  for (int e = 1; e <= EHWPOISON; ++e)
    if (const char* n = errno_symbol(e)) EXPECT_EQ(errno_from_name(n), e) << n;
}

TEST(BaseErrnoNames, NumbersWithoutANameUseTheEForm) {
  EXPECT_EQ(errno_symbol(4095), nullptr);
  EXPECT_EQ(errno_name(4095), "E4095");
  EXPECT_EQ(errno_from_name("E4095"), 4095);
  EXPECT_FALSE(errno_from_name("E"));
  EXPECT_FALSE(errno_from_name("E123456"));  // longer than any errno
  EXPECT_FALSE(errno_from_name("E12a"));
  EXPECT_FALSE(errno_from_name("eacces"));
  EXPECT_FALSE(errno_from_name("EWHATEVER"));
}

// --- Fd -----------------------------------------------------------------------------

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(BaseFd, ClosesOnDestructionExactlyOnce) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    Fd fd(raw);
    EXPECT_TRUE(fd.valid());
    EXPECT_EQ(fd.get(), raw);
  }
  EXPECT_FALSE(is_open(raw));
  // Closed once: the number is free again, and a new file that takes it is not closed
  // behind its back by anything left over.
  int again = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(again, raw);
  EXPECT_TRUE(is_open(again));
  ::close(again);
}

TEST(BaseFd, ReleaseGivesTheDescriptorUp) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    Fd fd(raw);
    EXPECT_EQ(fd.release(), raw);
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(fd.get(), -1);
  }
  EXPECT_TRUE(is_open(raw));
  ::close(raw);
}

TEST(BaseFd, MoveTransfersOwnership) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  Fd a(raw);
  {
    Fd b(std::move(a));
    EXPECT_FALSE(a.valid());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
    EXPECT_EQ(b.get(), raw);
  }
  EXPECT_FALSE(is_open(raw));

  int first = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int second = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  Fd x(first), y(second);
  x = std::move(y);  // x's old descriptor is closed, y's is now x's
  EXPECT_FALSE(is_open(first));
  EXPECT_TRUE(is_open(second));
  EXPECT_EQ(x.get(), second);
  EXPECT_FALSE(y.valid());  // NOLINT(bugprone-use-after-move)
  x = std::move(x);  // NOLINT: self-move keeps the descriptor
  EXPECT_TRUE(is_open(second));
}

TEST(BaseFd, ResetClosesTheOldAndKeepsErrno) {
  int first = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int second = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  Fd fd(first);
  errno = ENOSPC;
  fd.reset(second);
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_FALSE(is_open(first));
  EXPECT_EQ(fd.get(), second);
  fd.reset();
  EXPECT_FALSE(is_open(second));
  EXPECT_FALSE(fd.valid());
}

TEST(BaseFd, CloseReportsTheResultOnce) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  Fd fd(raw);
  EXPECT_EQ(fd.close(), 0);
  EXPECT_FALSE(fd.valid());
  EXPECT_FALSE(is_open(raw));
  EXPECT_EQ(fd.close(), 0);  // nothing held: nothing closed again
  Fd none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none.close(), 0);
}

// --- AMDML_TRY ----------------------------------------------------------------------

Result<int> half(int n) {
  if (n % 2) return make_error("odd: " + std::to_string(n), EINVAL);
  return n / 2;
}

Result<int> quarter(int n) {
  AMDML_TRY(int h, half(n));
  AMDML_TRY(int q, half(h));
  return q;
}

Status check_even(int n) {
  AMDML_TRY_STATUS(half(n));
  return {};
}

Status both_even(int a, int b) {
  AMDML_TRY_STATUS(check_even(a));
  AMDML_TRY_STATUS(check_even(b));
  return {};
}

TEST(BaseResult, TryPassesValuesOnAndReturnsTheFirstError) {
  ASSERT_TRUE(quarter(12));
  EXPECT_EQ(*quarter(12), 3);
  auto r = quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "odd: 3");
  EXPECT_EQ(r.error().code, EINVAL);
  EXPECT_TRUE(both_even(2, 4));
  auto s = both_even(2, 5);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "odd: 5");
}

}  // namespace
}  // namespace amdml
