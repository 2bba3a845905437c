// The installed knowledge store (platform/knowledge_store.cpp) through SafeTree: install,
// rollback, and a file system that fails (full disk, a failing rename or fsync) at each
// call in turn -- after every failure the knowledge in use is the previous one, byte for
// byte, and the next install succeeds.
#include <gtest/gtest.h>

#include "amdml/knowledge.hpp"
#include "formats/knowledge_bin.hpp"
#include "platform/knowledge_store.hpp"
#include "support/faulty_fs.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"

namespace amdml {
namespace {

namespace fs = std::filesystem;
using test::FaultyFs;
using test::TestTree;

const std::string kStore = "var/lib/amdml/knowledge";

struct Bundle {
  std::string date;
  std::vector<RecipeFile> files;
  std::string compact;
};

Bundle bundle(const std::string& date) {
  Knowledge kb = test::shipped_knowledge();
  kb.meta.date = date;
  return {date, {{"knowledge/meta.toml", "[meta]\nformat = 1\ndate = \"" + date + "\"\n"}, {"knowledge/x.toml", "# " + date}},
          formats::encode_knowledge_bin(kb)};
}

void no_kill() {}

Status install(platform::SafeTree& tree, const Bundle& b) {
  return platform::install_bundle(tree, b.date, b.files, b.compact, no_kill);
}

std::optional<std::string> in_use(const TestTree& t) {
  auto host = platform::make_host(t.dir.string());
  EXPECT_TRUE(host);
  auto kb = platform::read_installed_knowledge(**host);
  EXPECT_TRUE(kb) << kb.error().message;
  if (!kb || !*kb) return std::nullopt;
  return (*kb)->meta.date;
}

// The store's files but the lock and what a failed run may leave for the next to clean.
std::map<std::string, std::string> store(const TestTree& t) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(t.dir / kStore)) {
    std::string rel = e.path().lexically_relative(t.dir / kStore).string();
    // `previous` is written before `current`: it may already name the bundle in use.
    if (e.is_regular_file() && rel != ".lock" && rel != "previous" && !rel.starts_with(".staging-") &&
        !rel.starts_with("2030-02-01") &&
        rel.find(".amdml-") == std::string::npos)
      out[rel] = test::read_file(e.path());
  }
  return out;
}

TEST(KnowledgeStore, InstallSwitchesCurrentKeepsPreviousAndRollsBack) {
  TestTree t;
  platform::SafeTree tree(t.dir.string());
  EXPECT_EQ(in_use(t), std::nullopt);
  ASSERT_TRUE(install(tree, bundle("2030-01-01")));
  EXPECT_EQ(in_use(t), "2030-01-01");
  EXPECT_EQ(test::read_file(t.dir / kStore / "2030-01-01/knowledge/x.toml"), "# 2030-01-01");
  ASSERT_TRUE(install(tree, bundle("2030-02-01")));
  EXPECT_EQ(in_use(t), "2030-02-01");
  EXPECT_EQ(test::read_file(t.dir / kStore / "previous"), "2030-01-01\n");
  EXPECT_FALSE(install(tree, bundle("2030-02-01")));  // already current
  auto back = platform::rollback_bundle(tree);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->current, "2030-01-01");
  EXPECT_EQ(in_use(t), "2030-01-01");
  // A third bundle drops the one neither current nor previous.
  ASSERT_TRUE(install(tree, bundle("2030-03-01")));
  ASSERT_TRUE(install(tree, bundle("2030-04-01")));
  EXPECT_FALSE(fs::exists(t.dir / kStore / "2030-01-01"));
  EXPECT_FALSE(fs::exists(t.dir / kStore / "2030-02-01"));
  EXPECT_TRUE(fs::exists(t.dir / kStore / "2030-03-01/knowledge.bin"));
}

TEST(KnowledgeStore, RollbackWithoutPreviousAndAPointerThatIsNoDateAreErrors) {
  TestTree t;
  platform::SafeTree tree(t.dir.string());
  ASSERT_TRUE(install(tree, bundle("2030-01-01")));
  EXPECT_FALSE(platform::rollback_bundle(tree));
  test::write_file(t.dir / kStore / "current", "../../../etc\n");
  auto host = platform::make_host(t.dir.string());
  ASSERT_TRUE(host);
  EXPECT_FALSE(platform::read_installed_knowledge(**host));
}

// Every create, write, fsync, rename and unlink of an install fails in turn (ENOSPC for
// writes: a full disk): the install fails, v1 stays in use byte for byte, and the next
// install on a healthy file system succeeds.
TEST(KnowledgeStore, EveryFailingCallLeavesThePreviousKnowledgeInUse) {
  int calls[8] = {};
  {
    TestTree t;
    platform::SafeTree healthy(t.dir.string());
    ASSERT_TRUE(install(healthy, bundle("2030-01-01")));
    FaultyFs counter(FaultyFs::Op::write, 1 << 30, EIO);
    platform::SafeTree counted(t.dir.string(), counter);
    ASSERT_TRUE(install(counted, bundle("2030-02-01")));
    for (auto op : FaultyFs::kAllOps) calls[static_cast<int>(op)] = counter.calls(op);
  }
  int cases = 0;
  for (auto op : FaultyFs::kAllOps)
    for (int n = 1; n <= calls[static_cast<int>(op)]; ++n) {
      TestTree t;
      platform::SafeTree healthy(t.dir.string());
      ASSERT_TRUE(install(healthy, bundle("2030-01-01")));
      const auto before = store(t);
      FaultyFs faulty(op, n, op == FaultyFs::Op::write ? ENOSPC : EIO, /*sticky=*/true);
      platform::SafeTree tree(t.dir.string(), faulty);
      auto st = install(tree, bundle("2030-02-01"));
      if (st) {
        // A failure after the switch (cleaning up the old bundles) may still report ok or
        // not; what counts is that the knowledge in use is whole.
        EXPECT_EQ(in_use(t), "2030-02-01");
        continue;
      }
      ++cases;
      const std::string current = test::read_file(t.dir / kStore / "current");
      if (current == "2030-01-01\n") {
        EXPECT_EQ(store(t), before) << "op " << static_cast<int>(op) << " call " << n;
        if (fs::exists(t.dir / kStore / "previous")) EXPECT_EQ(test::read_file(t.dir / kStore / "previous"), "2030-01-01\n");
        EXPECT_EQ(in_use(t), "2030-01-01");
      } else {
        EXPECT_EQ(current, "2030-02-01\n");  // the switch happened; only the cleanup after it failed
        EXPECT_EQ(in_use(t), "2030-02-01");
      }
      ASSERT_TRUE(install(healthy, bundle("2030-03-01"))) << "op " << static_cast<int>(op) << " call " << n;
      EXPECT_EQ(in_use(t), "2030-03-01");
    }
  EXPECT_GT(cases, 10);
}

}  // namespace
}  // namespace amdml
