// SafeTree, the one writer: atomic replacement, metadata kept, no symlinks followed,
// injected syscall failures leave the old bytes and no temp file, the locks.
#include <gtest/gtest.h>

#include "support/faulty_fs.hpp"
#include "support/tree.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

using namespace amdml;
using namespace amdml::platform;
using namespace amdml::test;

namespace {

// Names in a directory that look like amdml temp files.
int temp_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".amdml-") != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST(SafeTree, WritesNewFilesAndCreatesParents) {
  TestTree t("fix-apu");
  SafeTree tree(t.str());
  std::vector<std::string> created;
  ASSERT_TRUE(tree.write("/etc/environment.d/90-amdml.conf", "A=1\n", {}, &created));
  EXPECT_EQ(read_file(t / "etc/environment.d/90-amdml.conf"), "A=1\n");
  EXPECT_EQ(created, std::vector<std::string>{"/etc/environment.d"});
  struct stat st {};
  ASSERT_EQ(::stat((t / "etc/environment.d/90-amdml.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  auto back = tree.read("/etc/environment.d/90-amdml.conf");
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->exists);
  EXPECT_EQ(back->bytes, "A=1\n");
  auto missing = tree.read("/nope/nothing");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->exists);
}

TEST(SafeTree, KeepsModeAndOwnerOfAnExistingFile) {
  TestTree t("fix-apu");
  SafeTree tree(t.str());
  ASSERT_TRUE(tree.write("/etc/gshadow", "render:!::alice\n", {}));
  struct stat st {};
  ASSERT_EQ(::stat((t / "etc/gshadow").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(read_file(t / "etc/gshadow"), "render:!::alice\n");
  EXPECT_EQ(temp_files(t / "etc"), 0);
}

TEST(SafeTree, RefusesASymlinkedTargetAndLeavesItsTargetAlone) {
  TestTree t("fix-apu");
  TestTree elsewhere("fix-apu");
  fs::create_symlink(elsewhere / "etc/passwd", t / "etc/profile.d/amdml-gpu.sh");
  std::string before = read_file(elsewhere / "etc/passwd");
  SafeTree tree(t.str());
  auto r = tree.read("/etc/profile.d/amdml-gpu.sh");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("symlink"), std::string::npos);
  auto w = tree.write("/etc/profile.d/amdml-gpu.sh", "x\n", {});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("symlink"), std::string::npos);
  EXPECT_EQ(read_file(elsewhere / "etc/passwd"), before);
  EXPECT_TRUE(fs::is_symlink(t / "etc/profile.d/amdml-gpu.sh"));
}

TEST(SafeTree, RefusesASymlinkedParentDirectory) {
  TestTree t("fix-apu");
  TestTree elsewhere("fix-apu");
  fs::create_directory_symlink(elsewhere / "etc/modprobe.d", t / "etc/environment.d");
  SafeTree tree(t.str());
  auto w = tree.write("/etc/environment.d/90-amdml.conf", "x\n", {});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("/etc/environment.d: is a symlink"), std::string::npos) << w.error().message;
  EXPECT_FALSE(fs::exists(elsewhere / "etc/modprobe.d/90-amdml.conf"));
}

TEST(SafeTree, RefusesAWorldWritableDirectory) {
  TestTree t("fix-apu");
  ::chmod((t / "etc/profile.d").c_str(), 0777);
  SafeTree tree(t.str());
  auto w = tree.write("/etc/profile.d/amdml-gpu.sh", "x\n", {});
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("writable by everyone"), std::string::npos);
}

TEST(SafeTree, RejectsDotDotPaths) {
  TestTree t("fix-apu");
  SafeTree tree(t.str());
  EXPECT_FALSE(tree.write("/etc/../../escape", "x", {}));
  EXPECT_FALSE(tree.write("etc/relative", "x", {}));
}

// Each injected failure: an error naming the file, the old bytes in place, no temp file.
TEST(SafeTree, InjectedFailuresLeaveTheOldBytes) {
  struct Case {
    FaultyFs::Op op;
    int err;
    const char* says;
  };
  for (auto c : {Case{FaultyFs::Op::write, ENOSPC, "No space left"}, Case{FaultyFs::Op::fsync, EIO, "fsync"},
                 Case{FaultyFs::Op::rename, EROFS, "Read-only"}, Case{FaultyFs::Op::open, EACCES, "Permission denied"},
                 Case{FaultyFs::Op::fchmod, EPERM, "chmod"}}) {
    TestTree t("fix-apu");
    std::string before = read_file(t / "etc/group");
    FaultyFs ops(c.op, 1, c.err);
    SafeTree tree(t.str(), ops);
    auto w = tree.write("/etc/group", "render:x:992:alice\n", {});
    ASSERT_FALSE(w);
    EXPECT_TRUE(ops.fired());
    EXPECT_EQ(w.error().code, c.err);
    EXPECT_NE(w.error().message.find("/etc/group"), std::string::npos);
    EXPECT_NE(w.error().message.find(c.says), std::string::npos) << w.error().message;
    EXPECT_EQ(read_file(t / "etc/group"), before);
    EXPECT_EQ(temp_files(t / "etc"), 0);
  }
}

TEST(SafeTree, AFullTmpfsFailsCleanly) {
  TestTree t("fix-apu");
  fs::path mnt = t / "etc/profile.d";
  // A 4 KiB tmpfs over the target directory (needs mount privileges; skipped otherwise).
  if (std::system(("mount -t tmpfs -o size=4k,mode=0755 tmpfs " + mnt.string() + " 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "mount not permitted here";
  write_file(mnt / "editor.sh", "export EDITOR=vim\n");
  SafeTree tree(t.str());
  auto w = tree.write("/etc/profile.d/editor.sh", std::string(64 * 1024, 'x'), {});
  std::string after = read_file(mnt / "editor.sh");
  int temps = temp_files(mnt);
  std::system(("umount " + mnt.string()).c_str());
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ENOSPC);
  EXPECT_EQ(after, "export EDITOR=vim\n");
  EXPECT_EQ(temps, 0);
}

TEST(TreeLock, ASecondHolderWaitsThenGivesUp) {
  TestTree t("fix-apu");
  SafeTree tree(t.str());
  auto first = TreeLock::acquire(tree, kLockPath, 100);
  ASSERT_TRUE(first);
  // flock locks belong to the open file description: a second open conflicts even in
  // the same process, which is what two amdml runs see.
  auto second = TreeLock::acquire(tree, kLockPath, 100);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("another amdml fix is running"), std::string::npos);
}

// A rename never replaces: the name taken between SafeTree::rename's check and the
// rename itself fails the same way (RENAME_NOREPLACE), and the directory stays put.
TEST(SafeTree, RenameNeverReplacesAnEntry) {
  TestTree t("bad-symlinks");
  fs::create_directories(t / "opt/taken");
  write_file(t / "opt/taken/keep", "mine\n");
  SafeTree tree(t.str());
  auto st = tree.rename("/opt/rocm-6.2.4", "/opt/taken");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, EEXIST);
  EXPECT_TRUE(fs::exists(t / "opt/rocm-6.2.4/.info/version"));
  EXPECT_EQ(read_file(t / "opt/taken/keep"), "mine\n");
  // The syscall itself, as the window after the check would meet it.
  FsOps& ops = real_fs_ops();
  errno = 0;
  EXPECT_EQ(ops.renameat(AT_FDCWD, (t / "opt/rocm-6.2.4").c_str(), AT_FDCWD, (t / "opt/taken").c_str(), RENAME_NOREPLACE), -1);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_TRUE(fs::exists(t / "opt/rocm-6.2.4/.info/version"));
  ASSERT_TRUE(tree.rename("/opt/rocm-6.2.4", "/opt/amdml-set-aside-rocm-6.2.4"));
  EXPECT_TRUE(fs::exists(t / "opt/amdml-set-aside-rocm-6.2.4/.info/version"));
}
