// Kill tests: `amdml fix --apply --root DIR` (a copy of tests/fixtures/ml-apu-ollama, plus
// an /etc/gshadow in step with its /etc/group) SIGKILLed right before each step N
// (AMDML_TEST_KILL_AT_STEP, docs/fix.md "Test seams"), for every step of the run and
// one past the last. Afterwards:
//   - every file is its old or its new bytes and no temp file is left;
//   - the killed run's journal parses and still says "applying";
//   - a second `fix --apply` completes the work (the tree equals a clean run's) -- also
//     when the kill fell between /etc/group and /etc/gshadow, where /etc/group alone
//     asks for nothing any more -- and undoing both transactions restores the original
//     tree byte for byte;
//   - separately, `fix --undo` straight after the kill restores the original tree.
// Also the exit code and message of an apply that fails for real: a read-only /etc
// (a bind mount; skipped without mount privileges).
#include <gtest/gtest.h>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;

namespace {

// The fixture whose doctor run asks for the most recipes through the real rules:
// groups, hsa-override and ollama-override (with daemon-reload and try-restart).
const char* kFixture = "ml-apu-ollama";

// A copy of the fixture, run as root, with a shadow group file in step with /etc/group,
// as every shadow-utils system has: the groups recipe then writes two files, and a kill
// can fall between them.
struct Tree : TestTree {
  Tree() : TestTree(kFixture) {
    // --apply needs root; under --root that is the manifest's euid.
    set_euid(*this, 0);
    std::istringstream group(read_file(dir / "etc/group"));
    std::string line, gshadow;
    while (std::getline(group, line)) {
      auto name = line.substr(0, line.find(':'));
      gshadow += name + ":!::" + line.substr(line.rfind(':') + 1) + "\n";
    }
    write_file(dir / "etc/gshadow", gshadow);
    ::chmod((dir / "etc/gshadow").c_str(), 0640);
  }
};

std::string root_args(const Tree& t) { return "--root " + t.str(); }

// Every path whose content differs between two snapshots.
std::vector<std::string> changed(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  std::vector<std::string> out;
  for (const auto& [k, v] : a)
    if (!b.count(k) || b.at(k) != v) out.push_back(k);
  for (const auto& [k, v] : b)
    if (!a.count(k)) out.push_back(k);
  return out;
}

std::vector<fs::path> journals(const Tree& t) {
  std::vector<fs::path> out;
  fs::path dir = t / "var/lib/amdml/journal";
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path() / "journal.json");
  std::sort(out.begin(), out.end());
  return out;
}

bool has_temp_file(const Tree& t) {
  for (auto it = fs::recursive_directory_iterator(t.dir); it != fs::recursive_directory_iterator(); ++it)
    if (it->path().filename().string().find(".amdml-") != std::string::npos) return true;
  return false;
}

const char* kApply = " fix --no-runtime --apply --yes";

}  // namespace

TEST(FixFaultsKill, EveryStepLeavesOldOrNewAndASecondRunCompletes) {
  // The reference: a clean run, and how many steps it has.
  Tree ref;
  const auto original = snapshot(ref.dir);
  auto clean = run_amdml(root_args(ref) + kApply);
  ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
  const auto applied = snapshot(ref.dir);
  auto js = journals(ref);
  ASSERT_EQ(js.size(), 1u);
  auto j = nlohmann::json::parse(read_file(js[0]));
  const int steps = static_cast<int>(j["changes"].size() + j["commands"].size());
  ASSERT_GT(steps, 0);
  const auto touched = changed(original, applied);
  ASSERT_FALSE(touched.empty());
  std::printf("[ kill points ] %s: steps 1..%d (recipes %s), and %d\n", kFixture, steps, j["recipes"].dump().c_str(),
              steps + 1);

  for (int step = 1; step <= steps + 1; ++step) {
    SCOPED_TRACE("killed at step " + std::to_string(step) + " of " + std::to_string(steps));
    Tree t;
    auto r = run_amdml(root_args(t) + kApply, "AMDML_TEST_KILL_AT_STEP=" + std::to_string(step));
    if (step <= steps) {
      EXPECT_EQ(r.signal, 9) << "exit " << r.code << r.out << r.err;
    } else {
      EXPECT_EQ(r.code, 0) << r.out << r.err;  // past the last step: a normal run
    }
    auto now = snapshot(t.dir);
    for (const auto& path : touched) {
      bool old_bytes = original.count(path) ? now.count(path) && now.at(path) == original.at(path) : !now.count(path);
      bool new_bytes = applied.count(path) ? now.count(path) && now.at(path) == applied.at(path) : !now.count(path);
      EXPECT_TRUE(old_bytes || new_bytes) << path << " is neither its old nor its new content";
    }
    for (const auto& path : changed(original, now))
      EXPECT_NE(std::find(touched.begin(), touched.end(), path), touched.end()) << path << " changed but a clean run leaves it";
    EXPECT_FALSE(has_temp_file(t));
    auto killed = journals(t);
    ASSERT_EQ(killed.size(), 1u);
    auto kj = nlohmann::json::parse(read_file(killed[0]), nullptr, false);
    ASSERT_FALSE(kj.is_discarded()) << "journal torn";
    EXPECT_EQ(kj["state"], step <= steps ? "applying" : "applied");

    // A second run finishes the job: the same tree as a clean run.
    auto second = run_amdml(root_args(t) + kApply);
    EXPECT_EQ(second.code, 0) << second.out << second.err;
    EXPECT_TRUE(changed(applied, snapshot(t.dir)).empty()) << "second run did not complete the work";

    // Undo the second run, then the killed one: back to the original bytes.
    for (int i = 0; i < 2; ++i) {
      auto u = run_amdml(root_args(t) + " fix --undo");
      EXPECT_EQ(u.code, 0) << u.out << u.err;
    }
    EXPECT_TRUE(changed(original, snapshot(t.dir)).empty()) << "two undos did not restore the tree";
  }
}

// Issue 17 item 9, on its own: killed after /etc/group, before /etc/gshadow. The
// next apply repairs gshadow (it finishes the interrupted recipe) and the warning
// about the interrupted transaction stops; both undos restore the tree.
TEST(FixFaultsKill, KilledBetweenGroupAndGshadowTheNextApplyRepairsGshadow) {
  Tree ref;
  auto clean = run_amdml(root_args(ref) + kApply);
  ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
  const std::string want_gshadow = read_file(ref / "etc/gshadow");
  auto j = nlohmann::json::parse(read_file(journals(ref).at(0)));
  const int steps = static_cast<int>(j["changes"].size() + j["commands"].size());

  // The step whose kill leaves /etc/group new and /etc/gshadow old.
  std::unique_ptr<Tree> t;
  std::map<std::string, std::string> original;
  for (int step = 1; step <= steps && !t; ++step) {
    auto cand = std::make_unique<Tree>();
    original = snapshot(cand->dir);
    std::string group = read_file(*cand / "etc/group"), gshadow = read_file(*cand / "etc/gshadow");
    auto r = run_amdml(root_args(*cand) + kApply, "AMDML_TEST_KILL_AT_STEP=" + std::to_string(step));
    ASSERT_EQ(r.signal, 9) << r.out << r.err;
    if (read_file(*cand / "etc/group") != group && read_file(*cand / "etc/gshadow") == gshadow) t = std::move(cand);
  }
  ASSERT_TRUE(t) << "no step falls between /etc/group and /etc/gshadow";
  auto plan = run_amdml(root_args(*t) + " fix --no-runtime");
  EXPECT_NE(plan.out.find("/etc/gshadow: add ollama to render"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("finishes transaction"), std::string::npos) << plan.out;
  auto second = run_amdml(root_args(*t) + kApply);
  EXPECT_EQ(second.code, 0) << second.out << second.err;
  EXPECT_EQ(read_file(*t / "etc/gshadow"), want_gshadow);
  EXPECT_EQ(run_amdml(root_args(*t) + " fix --no-runtime").err.find("interrupted"), std::string::npos);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run_amdml(root_args(*t) + " fix --undo").code, 0);
  EXPECT_TRUE(changed(original, snapshot(t->dir)).empty());
}

TEST(FixFaultsKill, UndoRightAfterAKillRestoresTheTree) {
  Tree ref;
  auto clean = run_amdml(root_args(ref) + kApply);
  ASSERT_EQ(clean.code, 0) << clean.out << clean.err;
  auto j = nlohmann::json::parse(read_file(journals(ref).at(0)));
  const int steps = static_cast<int>(j["changes"].size() + j["commands"].size());
  for (int step = 1; step <= steps; ++step) {
    SCOPED_TRACE("killed at step " + std::to_string(step));
    Tree t;
    const auto original = snapshot(t.dir);
    auto r = run_amdml(root_args(t) + kApply, "AMDML_TEST_KILL_AT_STEP=" + std::to_string(step));
    EXPECT_EQ(r.signal, 9);
    auto u = run_amdml(root_args(t) + " fix --undo");
    EXPECT_EQ(u.code, 0) << u.out << u.err;
    EXPECT_TRUE(changed(original, snapshot(t.dir)).empty());
    // Nothing left to undo afterwards.
    auto u2 = run_amdml(root_args(t) + " fix --undo");
    EXPECT_EQ(u2.code, 0) << u2.out << u2.err;
    EXPECT_TRUE(changed(original, snapshot(t.dir)).empty());
  }
}

// A real EROFS: /etc of the tree bind-mounted read-only. The apply exits 1, says the
// file system is read-only and that it rolled back, and changes nothing.
TEST(FixFaultsKill, ReadOnlyEtcExitsOneAndSaysWhy) {
  Tree t;
  const auto original = snapshot(t.dir);
  fs::path etc = t / "etc";
  if (std::system(("mount --bind " + etc.string() + " " + etc.string() + " 2>/dev/null && mount -o remount,bind,ro " +
                   etc.string() + " " + etc.string() + " 2>/dev/null").c_str()) != 0) {
    std::system(("umount " + etc.string() + " 2>/dev/null").c_str());
    GTEST_SKIP() << "no mount privileges for a read-only bind mount";
  }
  auto r = run_amdml(root_args(t) + kApply);
  std::system(("umount " + etc.string()).c_str());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  std::string all = r.out + r.err;
  EXPECT_NE(all.find(std::strerror(EROFS)), std::string::npos) << all;
  EXPECT_TRUE(all.find("olled back") != std::string::npos || all.find("nothing was changed") != std::string::npos) << all;
  EXPECT_TRUE(changed(original, snapshot(t.dir)).empty());
}

// Issue 29 M6, L1: rocm-install with a set-aside rename (bad-symlinks: /opt/rocm-6.2.4 no
// package owns, no /etc/apt at all) and kernel-cmdline (strix-halo: /etc/default/grub,
// update-grub), SIGKILLed before every step, right after every step did its work and
// before the journal said so, and right after a step made its file's parent
// directories. Every time, `fix --undo` puts the tree back exactly: the directory moved
// back, the created parents removed, the files restored.
namespace {

struct Recipe {
  const char* fixture;
  const char* only;
};

std::string apply_only(const TestTree& t, const Recipe& r) {
  return "--root " + t.str() + " fix --no-runtime --apply --yes --only " + r.only;
}

int steps_of(const Recipe& r) {
  TestTree ref(r.fixture);
  become_root_via_sudo(ref);
  auto clean = run_amdml(apply_only(ref, r));
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  fs::path dir = ref / "var/lib/amdml/journal";
  auto j = nlohmann::json::parse(read_file(fs::directory_iterator(dir)->path() / "journal.json"));
  return static_cast<int>(j["changes"].size() + j["commands"].size());
}

void kill_everywhere_then_undo(const Recipe& r) {
  const int steps = steps_of(r);
  ASSERT_GE(steps, 2);
  int killed = 0;
  for (int step = 1; step <= steps; ++step)
    for (const std::string& env : {"AMDML_TEST_KILL_AT_STEP=" + std::to_string(step),
                                   "AMDML_TEST_KILL_AFTER_STEP=" + std::to_string(step),
                                   "AMDML_TEST_KILL_AFTER_STEP=-" + std::to_string(step)}) {
      SCOPED_TRACE(std::string(r.only) + " " + env + " of " + std::to_string(steps));
      TestTree t(r.fixture);
      become_root_via_sudo(t);
      const auto original = snapshot(t.dir);
      auto a = run_amdml(apply_only(t, r), env);
      if (env.find("=-") != std::string::npos && a.signal != 9) {
        EXPECT_EQ(a.code, 0) << a.out << a.err;  // that step made no directory: a whole run
      } else {
        ASSERT_EQ(a.signal, 9) << a.out << a.err;
        ++killed;
      }
      auto u = run_amdml("--root " + t.str() + " fix --undo");
      EXPECT_EQ(u.code, 0) << u.out << u.err;
      EXPECT_TRUE(changed(original, snapshot(t.dir)).empty()) << "undo after the kill left: " << changed(original, snapshot(t.dir)).front();
    }
  std::printf("[ kill points ] %s: %d steps, %d kills, each undone\n", r.only, steps, killed);
}

}  // namespace

TEST(FixFaultsKill, RocmInstallWithASetAsideRenameIsUndoneAfterAKillAnywhere) {
  kill_everywhere_then_undo({"bad-symlinks", "rocm-install"});
}

TEST(FixFaultsKill, KernelCmdlineIsUndoneAfterAKillAnywhere) { kill_everywhere_then_undo({"strix-halo", "kernel-cmdline"}); }

// M10: killed after its files, before (or while) its commands ran: the next plan shows
// the commands still owed, the next apply runs them and says so, and a third has
// nothing to do. Undo (which passes over the run that only finished commands) restores
// the tree.
TEST(FixFaultsKill, AnApplyKilledBeforeItsCommandsIsFinishedByTheNext) {
  for (const Recipe r : {Recipe{"strix-halo", "kernel-cmdline"}, Recipe{"bad-symlinks", "rocm-install"}}) {
    const int steps = steps_of(r);
    for (const std::string& env : {"AMDML_TEST_KILL_AT_STEP=" + std::to_string(steps),
                                   "AMDML_TEST_KILL_AFTER_STEP=" + std::to_string(steps)}) {
      SCOPED_TRACE(std::string(r.only) + " " + env);
      TestTree t(r.fixture);
      become_root_via_sudo(t);
      const auto original = snapshot(t.dir);
      ASSERT_EQ(run_amdml(apply_only(t, r), env).signal, 9);
      const std::string killed_txn = fs::directory_iterator(t / "var/lib/amdml/journal")->path().filename().string();
      auto plan = run_amdml("--root " + t.str() + " fix --no-runtime --color never --only " + r.only);
      EXPECT_NE(plan.out.find("finishes transaction " + killed_txn), std::string::npos) << plan.out;
      EXPECT_NE(plan.out.find("owed by transaction " + killed_txn), std::string::npos) << plan.out;
      const std::string last_command = r.only == std::string("kernel-cmdline") ? "update-grub" : "install --no-install-recommends";
      EXPECT_NE(plan.out.find(last_command), std::string::npos) << plan.out;
      auto second = run_amdml(apply_only(t, r) + " --color never");
      EXPECT_EQ(second.code, 0) << second.out << second.err;
      EXPECT_NE(second.out.find("(owed by transaction " + killed_txn + ")"), std::string::npos) << second.out;
      auto third = run_amdml(apply_only(t, r) + " --color never");
      EXPECT_NE(third.out.find("Nothing to do"), std::string::npos) << third.out;
      EXPECT_EQ(run_amdml("--root " + t.str() + " fix --no-runtime").err.find("interrupted"), std::string::npos);
      auto u = run_amdml("--root " + t.str() + " fix --undo --color never");
      EXPECT_EQ(u.code, 0) << u.out << u.err;
      EXPECT_NE(u.out.find(killed_txn), std::string::npos) << u.out;
      EXPECT_TRUE(changed(original, snapshot(t.dir)).empty());
    }
  }
}

// Killed after the TTM limit's files, before the initramfs command (issue 28): the limit
// is configured as amdml recommends, so doctor reports the pending reboot -- and, since
// the interrupted apply still owes its command, says `sudo amdml fix --apply` first,
// not just `sudo reboot`.
TEST(FixFaultsKill, APendingLimitWithOwedCommandsAsksForFixApplyFirst) {
  const Recipe r{"strixhalo-amdttm-no-bootloader", "ttm-pages-limit"};
  TestTree t(r.fixture);
  become_root_via_sudo(t);
  ASSERT_EQ(run_amdml(apply_only(t, r), "AMDML_TEST_KILL_AT_STEP=" + std::to_string(steps_of(r))).signal, 9);
  const std::string killed_txn = fs::directory_iterator(t / "var/lib/amdml/journal")->path().filename().string();
  auto doc = run_amdml("--root " + t.str() + " doctor --no-runtime --color never");
  EXPECT_NE(doc.out.find("[memory.ttm-pending]"), std::string::npos) << doc.out;
  EXPECT_NE(doc.out.find("fix:   sudo amdml fix --apply\n      then:  sudo reboot"), std::string::npos) << doc.out;
  EXPECT_NE(doc.out.find("transaction " + killed_txn + " (ttm-pages-limit) was interrupted"), std::string::npos) << doc.out;
  EXPECT_EQ(doc.out.find("memory.ttm-wrong-module"), std::string::npos) << doc.out;
}
