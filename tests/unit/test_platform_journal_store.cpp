// The journal's store: transaction ids that sort in run order, files only root reads.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::platform;
using namespace amdml::test;

TEST(JournalStore, IdsSortInRunOrderAndFilesArePrivate) {
  TestTree t("fix-apu");
  SafeTree tree(t.str());
  JournalStore store(tree);
  auto a = store.create();
  auto b = store.create();
  ASSERT_TRUE(a && b);
  EXPECT_LT(*a, *b);
  ASSERT_TRUE(store.put(*b, "0.before", "secret"));
  struct stat st {};
  ASSERT_EQ(::stat((t / ("var/lib/amdml/journal/" + *b + "/0.before")).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  auto ids = store.list();
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<std::string>{*a, *b}));
  auto got = store.get(*b, "0.before");
  ASSERT_TRUE(got && *got);
  EXPECT_EQ(**got, "secret");
}
