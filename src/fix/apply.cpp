// apply_plan() and its rollback: the code that changes a machine (undo.cpp takes it back).
//
// Order of an apply, so that a crash or a full disk at any instant leaves a journal
// that can put everything back (write-ahead: the journal says what a step may do
// before the step does it):
//   1. before any target is touched, every change goes into the journal: the previous
//      bytes (or "did not exist") with mode and owner, the new bytes, and the change as
//      "pending"; every command and rename as "pending"; then space for the rest of the
//      journal is reserved. A full disk fails here, with nothing changed;
//   2. per file: the parent directories it needs are journaled, then created; the file
//      is re-read and must still be what the plan saw; SafeTree writes it atomically;
//      the journal marks it "written";
//   3. per command (after its recipe's files): journaled "running" (an apt-get install
//      with the packages dpkg had before it), run -- a rename through the tree --, then
//      "ran", "failed" or, under --root, "recorded".
// A failing step rolls back every file this run wrote, newest first, runs the inverse
// of every command that had run (a rename back, apt-get remove; for a failed install
// the purge of exactly what it added), and re-runs the others so systemd and the
// initramfs see the restored files. A rollback step that fails too leaves the
// transaction "rollback-incomplete", which --undo finishes.
//
// A run killed after its files leaves commands "pending" or "running": the next plan
// lists them (owed_commands) and the next apply runs them (resuming).
#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "fix/fix.hpp"
#include "fix/journal.hpp"
#include "fix/steps.hpp"
#include "formats/fix_params_json.hpp"
#include "platform/host.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

using paths::dirname;
using steps::command_ok;

// Upper bound of one command's record in journal.json: two output tails, each byte at
// worst a six-character JSON escape, and the argv and note.
constexpr std::uint64_t kCommandRecordMax = 2 * 6 * 8200 + 8192;

bool is_user_db(const std::string& path) {
  return path == "/etc/group" || path == "/etc/gshadow" || path == "/etc/passwd" || path == "/etc/shadow";
}

std::string first_line(const std::string& s) {
  auto t = s.substr(0, s.find('\n'));
  return t.size() > 200 ? t.substr(0, 200) + "..." : t;
}

std::string changed_since_plan(const std::string& path) {
  return path + " changed since the plan was made; nothing of it was written, run amdml fix again";
}

struct Run {
  const FixPlan& plan;
  const platform::Host& host;
  platform::SafeTree& targets;
  const ApplyOptions& o;
  Journal j;
  ApplyOutcome out;
  std::vector<std::string> copies;  // the before/after files in the journal
  bool listed = false;              // journal.json may name them (its save was tried)
  std::vector<std::size_t> ran;     // indices into j.txn.commands behind out.commands
  std::size_t started = 0;          // changes whose step began (they may have touched the disk)

  Error journal_error(const Error& e) const { return make_error("journal: " + e.message, e.code); }
  ApplyOutcome fail(Error e);
  void rollback_inverses();
  void rollback_resync();
  void record_rollback(formats::CommandRecord rec, const CommandRecord& r);
  Status journal_changes(std::uint64_t& restore_bytes);
  Status write_file(const FileChange& fc, std::size_t n, int step);
  Status run_command(std::size_t k, int step);
};

void Run::record_rollback(formats::CommandRecord rec, const CommandRecord& r) {
  rec.rollback = true;
  steps::record_result(rec, r);
  j.txn.commands.push_back(std::move(rec));
}

// Before the files go back (the sources the packages came from among them): a command
// with an inverse (apt-get install, a rename) has it run, newest first, and an install
// that failed has exactly the packages it added purged.
void Run::rollback_inverses() {
  for (std::size_t i = ran.size(); i-- > 0;) {
    const formats::CommandRecord c = j.txn.commands[ran[i]];
    formats::CommandRecord back;
    back.recipe = c.recipe;
    if (c.state == CommandState::failed && steps::is_apt_install(c.argv)) {
      if (auto purge = steps::purge_added(host, c)) {
        back.argv = *purge;
        record_rollback(back, steps::run_one(host, *purge, std::chrono::minutes(30), o));
      }
      continue;
    }
    if (c.state != CommandState::ran || !c.undo || c.undo->empty()) continue;
    back.argv = *c.undo;
    back.rename = c.rename;
    record_rollback(back, c.rename ? steps::rename_one(targets, *c.undo)
                                   : steps::run_one(host, *c.undo, std::chrono::minutes(60), o));
  }
}

// After the files: what the commands that already ran had picked up is re-synced
// (daemon-reload, the initramfs, update-grub).
void Run::rollback_resync() {
  for (std::size_t i : ran) {
    const formats::CommandRecord c = j.txn.commands[i];
    if (c.state != CommandState::ran || c.undo) continue;
    formats::CommandRecord again;
    again.recipe = c.recipe;
    again.argv = c.argv;
    record_rollback(again, steps::run_one(host, c.argv, std::chrono::minutes(10), o));
  }
}

ApplyOutcome Run::fail(Error e) {
  out.ok = false;
  out.failure = std::move(e);
  j.release();  // space for the rollback and for the journal's last words
  // Nothing was touched yet: the copies are of no use, and their space lets the
  // journal say so on a full disk.
  if (!listed)
    for (const auto& name : copies) (void)j.store.remove(j.id, name);
  std::vector<std::size_t> touched;  // the changes whose step began
  for (std::size_t i = 0; i < started; ++i) touched.push_back(i);
  rollback_inverses();
  out.rollback_errors = steps::restore_changes(targets, j, touched);
  rollback_resync();
  out.rolled_back = true;
  out.written.clear();
  // Never "rolled back" when a file still holds what this run wrote.
  j.txn.state = out.rollback_errors.empty() ? TxnState::rolled_back : TxnState::rollback_incomplete;
  j.txn.failure = out.failure->message;
  j.txn.rollback_errors = out.rollback_errors;
  j.txn.finished = platform::utc_now_iso();
  if (auto st = j.save(); !st) out.rollback_errors.push_back("journal: " + st.error().message);
  return out;
}

// 1. Every change into the journal before the first target is touched. A file changed
// twice in this run (two users added to /etc/group) has as its previous bytes what the
// earlier change writes.
Status Run::journal_changes(std::uint64_t& restore_bytes) {
  std::map<std::string, std::size_t> last_change;  // path -> this run's latest change of it
  for (const auto& rp : plan.recipes) {
    if (!rp.pending()) continue;
    for (const auto& fc : rp.files) {
      if (!fc.changes()) continue;
      const std::size_t n = j.txn.changes.size();
      formats::Change ch;
      ch.path = fc.path;
      ch.recipe = rp.recipe->id;
      ch.after = std::to_string(n) + ".after";
      if (auto prev = last_change.find(fc.path); prev != last_change.end()) {
        const formats::Change& p = j.txn.changes[prev->second];
        ch.existed = true;
        ch.before = p.after;
        ch.mode = p.mode;
        ch.uid = p.uid;
        ch.gid = p.gid;
      } else {
        AMDML_TRY(auto cur, targets.read(fc.path));
        if (cur.exists != fc.before.has_value() || (cur.exists && cur.bytes != *fc.before))
          return make_error(changed_since_plan(fc.path));
        ch.existed = cur.exists;
        if (cur.exists) {
          ch.before = std::to_string(n) + ".before";
          ch.mode = cur.mode;
          ch.uid = cur.uid;
          ch.gid = cur.gid;
          restore_bytes += cur.bytes.size();
          copies.push_back(ch.before);
          if (auto st = j.store.put(j.id, ch.before, cur.bytes); !st) return journal_error(st.error());
        }
      }
      copies.push_back(ch.after);
      if (auto st = j.store.put(j.id, ch.after, fc.after); !st) return journal_error(st.error());
      last_change[fc.path] = n;
      j.txn.changes.push_back(std::move(ch));
    }
    for (const auto& cmd : rp.commands) {
      formats::CommandRecord rec;
      rec.argv = cmd.argv;
      rec.recipe = rp.recipe->id;
      rec.rename = cmd.rename;
      rec.undo = cmd.undo;
      rec.resumed_from = cmd.resumes;
      rec.timeout_ms = cmd.timeout.count();
      j.txn.commands.push_back(std::move(rec));
    }
  }
  return {};
}

// 2. One file: its parent directories journaled, then made; the file re-read and
// written; marked written.
Status Run::write_file(const FileChange& fc, std::size_t n, int step) {
  platform::test_kill_point(step);
  started = n + 1;
  formats::Change& ch = j.txn.changes[n];
  ch.created_dirs = steps::missing_dirs(targets, dirname(fc.path));
  if (!ch.created_dirs.empty()) {
    if (auto st = j.save(); !st) return journal_error(st.error());
    std::vector<std::string> created;
    auto mk = targets.make_dirs(dirname(fc.path), 0755, &created);
    platform::test_kill_after_point(-step);
    if (created != ch.created_dirs) {
      j.txn.changes[n].created_dirs = created;
      if (auto st = j.save(); !st) return journal_error(st.error());
    }
    if (!mk) return mk.error();
  }
  // Still what the plan (or this run's previous change of it) left there?
  AMDML_TRY(auto cur, targets.read(fc.path));
  if (cur.exists != fc.before.has_value() || (cur.exists && cur.bytes != *fc.before)) return make_error(changed_since_plan(fc.path));
  platform::FileMeta meta;
  if (!cur.exists) meta.mode = fc.new_mode;
  AMDML_TRY_STATUS(targets.write(fc.path, fc.after, meta));
  platform::test_kill_after_point(step);
  j.txn.changes[n].state = ChangeState::written;
  if (auto st = j.save(); !st) return journal_error(st.error());
  out.written.push_back(fc.path);
  return {};
}

// 3. One command: journaled "running" before it starts, its result after.
Status Run::run_command(std::size_t k, int step) {
  platform::test_kill_point(step);
  formats::CommandRecord& rec = j.txn.commands[k];
  rec.state = CommandState::running;
  if (o.run_commands && !rec.rename && steps::is_apt_install(rec.argv))
    if (auto before = installed_packages(host)) rec.packages_before = std::vector<std::string>(before->begin(), before->end());
  if (auto st = j.save(); !st) return journal_error(st.error());
  const auto timeout = std::chrono::milliseconds(rec.timeout_ms > 0 ? rec.timeout_ms : 60000);
  CommandRecord r = rec.rename ? steps::rename_one(targets, rec.argv) : steps::run_one(host, rec.argv, timeout, o);
  platform::test_kill_after_point(step);
  if (!rec.resumed_from.empty()) r.note += " (owed by transaction " + rec.resumed_from + ")";
  steps::record_result(j.txn.commands[k], r);
  out.commands.push_back(r);
  ran.push_back(k);
  if (auto st = j.save(); !st) return journal_error(st.error());
  if (!command_ok(r)) {
    std::string why = text::join(r.argv, " ") + ": " + r.note;
    if (r.result && !r.result->err.empty() && r.result->err != r.note) why += ": " + first_line(r.result->err);
    return make_error(why);
  }
  return {};
}

// Tells an interrupted transaction that a later apply finished its recipes, so it is
// no longer announced (it stays undoable), and which of its owed commands that run ran.
void mark_resumed(platform::JournalStore& store, const std::string& txn, const std::string& by,
                  const std::vector<formats::CommandRecord>& ran) {
  auto t = load_journal(store, txn);
  if (!t || !*t) return;
  Transaction& d = **t;
  d.resumed_by = by;
  for (auto& c : d.commands)
    if (!c.done() && !c.rollback && !c.rename)
      for (const auto& r : ran)
        if (r.resumed_from == txn && r.argv == c.argv && (r.state == CommandState::ran || r.state == CommandState::recorded))
          c.run_by = by;
  (void)store.release(txn);  // the killed run's reserved space
  (void)store.put(txn, "journal.json", formats::write_journal(d));
}

}  // namespace

Result<ApplyOutcome> apply_plan(const FixPlan& plan, const platform::Host& host, platform::SafeTree& targets,
                                platform::SafeTree& journal_tree, const ApplyOptions& o) {
  if (!plan.pending()) return ApplyOutcome{};
  auto lock = platform::TreeLock::acquire(journal_tree, platform::kLockPath, o.lock_timeout_ms);
  if (!lock) return lock.error();
  std::optional<platform::PasswdLock> pwlock;
  std::set<std::string> dirs;
  for (const auto& rp : plan.recipes)
    for (const auto& f : rp.files) {
      if (!rp.pending() || !f.changes()) continue;
      dirs.insert(dirname(f.path));
      if (is_user_db(f.path) && !pwlock) {
        auto l = platform::PasswdLock::acquire(targets, o.live, o.lock_timeout_ms);
        if (!l) return l.error();
        pwlock.emplace(std::move(*l));
      }
    }
  steps::clean_stale_temps(targets, journal_tree, dirs);

  Run run{plan, host, targets, o, Journal{platform::JournalStore(journal_tree), "", Transaction{}}, ApplyOutcome{}, {}, false, {}, 0};
  Journal& j = run.j;
  auto id = j.store.create();
  if (!id) return make_error("journal: " + id.error().message, id.error().code);
  j.id = *id;
  run.out.txn = j.id;
  j.txn.id = j.id;
  j.txn.created = platform::utc_now_iso();
  j.txn.root = targets.root();
  j.txn.requests.emplace();
  for (const auto& rp : plan.recipes)
    if (rp.pending()) {
      j.txn.recipes.push_back(rp.recipe->id);
      j.txn.requests->push_back({rp.recipe->id, formats::fix_params_json(rp.ref.params)});
    }
  if (auto st = j.save(); !st) return make_error("journal: " + st.error().message, st.error().code);

  std::uint64_t restore_bytes = 0;
  if (auto st = run.journal_changes(restore_bytes); !st) return run.fail(st.error());
  // Space for what the journal writes later: journal.json rewritten (old and new copy
  // side by side) with every command's record, applying and rolling back, and the
  // files' previous bytes for a rollback on the same file system.
  const std::uint64_t doc_size = formats::write_journal(j.txn).size();
  const std::uint64_t commands = j.txn.commands.size();
  std::uint64_t reserve = 2 * (doc_size + 2 * commands * kCommandRecordMax + 4096) + restore_bytes + (64 << 10);
  if (auto st = j.store.reserve(j.id, reserve); !st) return run.fail(run.journal_error(st.error()));
  j.reserved = true;
  run.listed = true;
  if (auto st = j.save(); !st) return run.fail(run.journal_error(st.error()));

  // 2 and 3. The targets, then each recipe's commands.
  std::size_t n = 0, k = 0;
  int step = 0;
  for (const auto& rp : plan.recipes) {
    if (!rp.pending()) continue;
    for (const auto& fc : rp.files) {
      if (!fc.changes()) continue;
      if (auto st = run.write_file(fc, n++, ++step); !st) return run.fail(st.error());
    }
    for (std::size_t c = 0; c < rp.commands.size(); ++c)
      if (auto st = run.run_command(k++, ++step); !st) return run.fail(st.error());
    run.out.recipes_applied.push_back(rp.recipe->id);
  }
  j.txn.state = TxnState::applied;
  j.txn.finished = platform::utc_now_iso();
  if (auto st = j.save(); !st) return run.fail(run.journal_error(st.error()));
  j.release();
  for (const auto& rp : plan.recipes)
    if (!rp.refused)
      for (const auto& txn : rp.resumes) mark_resumed(j.store, txn, j.id, j.txn.commands);
  return std::move(run.out);
}

}  // namespace amdml::fix
