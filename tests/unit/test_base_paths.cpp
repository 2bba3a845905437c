// base/paths: resolving a path through symlinks like the kernel, over any lookup.
#include <gtest/gtest.h>

#include "base/paths.hpp"

using namespace amdml;

TEST(Parse, ResolvePathWalksLinksLikeTheKernel) {
  // /a dir, /a/f file, /a/rel -> f, /a/abs -> /a/f, /loop -> /loop, /a/up -> ../a
  auto lookup = [](const std::string& p, bool) {
    using K = paths::PathNode::Kind;
    if (p == "/a") return paths::PathNode{K::directory, ""};
    if (p == "/a/f") return paths::PathNode{K::other, ""};
    if (p == "/a/rel") return paths::PathNode{K::symlink, "f"};
    if (p == "/a/abs") return paths::PathNode{K::symlink, "/a/f"};
    if (p == "/a/up") return paths::PathNode{K::symlink, "../a"};
    if (p == "/loop") return paths::PathNode{K::symlink, "/loop"};
    return paths::PathNode{};
  };
  EXPECT_EQ(paths::resolve_path("/a/rel", true, 40, lookup), "/a/f");
  EXPECT_EQ(paths::resolve_path("/a/abs", true, 40, lookup), "/a/f");
  EXPECT_EQ(paths::resolve_path("/a/rel", false, 40, lookup), "/a/rel");
  EXPECT_EQ(paths::resolve_path("/../a/./up/up/f", true, 40, lookup), "/a/f");
  EXPECT_FALSE(paths::resolve_path("/a/f/x", true, 40, lookup));  // a file has no children
  EXPECT_FALSE(paths::resolve_path("/a/missing", true, 40, lookup));
  EXPECT_FALSE(paths::resolve_path("/loop", true, 40, lookup));
  EXPECT_EQ(paths::resolve_path("/loop", false, 40, lookup), "/loop");
}
