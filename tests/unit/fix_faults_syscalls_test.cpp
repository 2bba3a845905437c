// Syscall fault injection against every fix recipe (and all of them at once): a clean
// apply counts the writer's calls per operation, then each call in turn -- open, write,
// fsync, fchmod, fchown, rename, unlink, mkdir, on the target files and separately on
// the journal -- fails once (ENOSPC, EROFS, EXDEV, EIO, ...), and again "for good"
// (the disk stays full, the file system stays read-only). After every faulted run:
//   - each file the plan changes holds its old or its new bytes, never a mix, and the
//     writer left no temp file;
//   - a failure is reported with its errno text and "Rolled back"; a one-off fault is
//     rolled back completely (tree identical to before, journal "rolled-back");
//   - the journal parses and its state matches what is on disk;
//   - undo works (nothing to undo after a rollback, byte-identical after a success),
//     and a second, fault-free run completes the work.
#include "fix_faults_test_util.hpp"

using namespace faulttest;

namespace {

// Calls beyond this many per operation are sampled (every other one) to bound the run.
constexpr int kDenseCalls = 12;

struct Counts {
  int target[8] = {};
  int journal[8] = {};
};

Counts count_calls(const Scenario& s) {
  Bench b(s);
  FaultOps t(Op::open, INT_MAX, 0, false), j(Op::open, INT_MAX, 0, false);
  auto r = b.apply(t, j);
  EXPECT_TRUE(r && r->ok) << s.name << ": the clean apply failed";
  EXPECT_TRUE(all_are(b.file_states(), "new")) << s.name << ": " << describe(b.file_states());
  Counts c;
  for (Op op : kAllOps) {
    c.target[static_cast<int>(op)] = t.calls(op);
    c.journal[static_cast<int>(op)] = j.calls(op);
  }
  return c;
}

std::vector<int> call_numbers(int calls) {
  std::vector<int> out;
  for (int n = 1; n <= calls; n += (n < kDenseCalls ? 1 : 2)) out.push_back(n);
  return out;
}

// Runs one faulted apply and checks everything a faulted run must satisfy.
void check_fault(const Scenario& s, bool on_journal, Op op, int nth, int err, bool sticky, int& fired_runs) {
  SCOPED_TRACE(s.name + ": " + (sticky ? "every " : "only ") + op_name(op) + " #" + std::to_string(nth) +
               (sticky ? " on" : "") + " on the " + (on_journal ? "journal" : "targets") + " fails with " +
               std::strerror(err));
  Bench b(s);
  const fix::Plan first = b.plan;
  FaultOps faulty(op, nth, err, sticky);
  platform::FsOps& real = platform::real_fs_ops();
  auto r = on_journal ? b.apply(real, faulty) : b.apply(faulty, real);
  if (faulty.fired()) ++fired_runs;

  auto states = b.file_states(first);
  for (const auto& [path, st] : states)
    EXPECT_TRUE(st == "old" || st == "new" || (sticky && st == "step")) << path << " is " << st;
  if (!(sticky && op == Op::unlink)) EXPECT_TRUE(b.temp_files().empty()) << b.temp_files().front();

  if (!r) {
    // Refused before anything was written (the lock or the journal could not be set up).
    EXPECT_FALSE(r.error().message.empty());
    EXPECT_TRUE(all_are(states, "old")) << describe(states);
  } else if (r->ok) {
    EXPECT_TRUE(all_are(states, "new")) << describe(states);
    auto j = b.journal(r->txn);
    ASSERT_TRUE(j) << "journal of a successful run unreadable";
    EXPECT_EQ((*j)["state"], "applied");
    if (!sticky) {
      auto u = b.undo();
      ASSERT_TRUE(u) << u.error().message;
      EXPECT_EQ(b.snapshot_now(), b.original);
    }
    return;
  } else {
    EXPECT_TRUE(faulty.fired());
    EXPECT_TRUE(r->rolled_back);
    ASSERT_TRUE(r->failure);
    std::string text = fix::format_apply(*r, first);
    EXPECT_NE(text.find(r->failure->message), std::string::npos) << text;
    if (r->rollback_errors.empty()) {
      EXPECT_NE(text.find("Rolled back"), std::string::npos) << text;
    } else {
      // A fault that persists can also stop the rollback: that must be said, per file.
      EXPECT_NE(text.find("could NOT roll back"), std::string::npos) << text;
      for (const auto& e : r->rollback_errors) EXPECT_NE(text.find(e), std::string::npos) << text;
    }
    EXPECT_NE(r->failure->message.find(std::strerror(err)), std::string::npos)
        << "the message does not say what failed: " << r->failure->message;
    auto j = b.journal(r->txn);
    if (!sticky) {
      EXPECT_TRUE(r->rollback_errors.empty()) << r->rollback_errors.front();
      EXPECT_TRUE(all_are(states, "old")) << describe(states);
      EXPECT_EQ(b.snapshot_now(), b.original);
      ASSERT_TRUE(j) << "journal unreadable after a rollback";
      EXPECT_EQ((*j)["state"], "rolled-back");
      EXPECT_EQ((*j)["failure"], r->failure->message);
    } else if (j) {
      // The journal may not have been updatable, but what it says must be on disk.
      std::string state = (*j)["state"];
      EXPECT_TRUE(state == "applying" || state == "rolled-back") << state;
      for (const auto& ch : (*j)["changes"]) {
        std::string path = ch["path"];
        EXPECT_TRUE(states.count(path)) << path << " journaled but not planned";
      }
    }
  }

  // The fault is gone: undo has nothing left to do (or restores), and a second run
  // completes the work.
  auto u = b.undo();
  if (!sticky) {
    ASSERT_TRUE(u) << u.error().message;
    EXPECT_EQ(b.snapshot_now(), b.original);
  }
  b.replan(s);
  platform::SafeTree tree(b.t.str());
  auto again = fix::apply_plan(b.plan, *b.d->host, tree, tree, b.options);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(again->ok) << (again->failure ? again->failure->message : "");
  // After a persistent fault stopped the rollback mid-way, the second run plans from
  // that state, so what it writes is judged by its own plan.
  auto done = b.file_states(first);
  auto done_again = b.file_states(b.plan);
  for (const auto& [path, st] : done)
    EXPECT_TRUE(st == "new" || (sticky && done_again.count(path) && done_again[path] == "new"))
        << path << " is " << st << " after the second run";
}

void run_scenario(const Scenario& s) {
  Counts c = count_calls(s);
  int cases = 0, fired = 0;
  for (bool on_journal : {false, true}) {
    for (Op op : kAllOps) {
      int calls = (on_journal ? c.journal : c.target)[static_cast<int>(op)];
      auto errs = errnos_for(op);
      for (int n : call_numbers(calls)) {
        int err = errs[static_cast<std::size_t>(n - 1) % errs.size()];
        check_fault(s, on_journal, op, n, err, false, fired);
        ++cases;
        // Sticky faults: the first call, and the middle one, of each operation.
        if (n == 1 || n == (calls + 1) / 2) {
          check_fault(s, on_journal, op, n, errs[0], true, fired);
          ++cases;
        }
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  // Every operation the writer uses was failed at least once, and faults really fired.
  EXPECT_GT(c.target[static_cast<int>(Op::write)], 0);
  EXPECT_GT(c.target[static_cast<int>(Op::rename)], 0);
  EXPECT_GT(c.target[static_cast<int>(Op::fsync)], 0);
  EXPECT_GT(c.journal[static_cast<int>(Op::rename)], 0);
  EXPECT_EQ(fired, cases) << "some injected faults never fired";
  std::printf("[ fault points ] %s: %d faulted runs\n", s.name.c_str(), cases);
}

Scenario by_name(const std::string& name) {
  for (auto& s : scenarios())
    if (s.name == name) return s;
  ADD_FAILURE() << "no scenario " << name;
  return {};
}

}  // namespace

TEST(FixFaultsSyscalls, Groups) { run_scenario(by_name("groups")); }
TEST(FixFaultsSyscalls, TtmPagesLimit) { run_scenario(by_name("ttm-pages-limit")); }
TEST(FixFaultsSyscalls, HsaOverride) { run_scenario(by_name("hsa-override")); }
TEST(FixFaultsSyscalls, OllamaOverride) { run_scenario(by_name("ollama-override")); }
TEST(FixFaultsSyscalls, AllRecipesTogether) { run_scenario(by_name("all")); }
