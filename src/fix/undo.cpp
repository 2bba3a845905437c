// undo_transaction(): a journaled transaction taken back, change by change.
//
// Every change is judged on its own, newest first on a simulated tree (a file changed
// twice in one transaction must hold the second change's bytes now, and will hold the
// first change's bytes when the undo reaches it): its file holds what amdml wrote ->
// restored; what was there before -> already undone; anything else -> someone changed
// it since: skipped and reported, never clobbered. A set-aside directory goes back when
// its new name still holds it and nothing took its old name; else it is skipped. What is
// left of the transaction is still undone: sources, pin, key, the packages' inverses.
#include <algorithm>
#include <map>
#include <set>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "fix/fix.hpp"
#include "fix/journal.hpp"
#include "fix/steps.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

using formats::CommandRecord;  // the journal's (amdml::CommandRecord is the outcome's)

// A transaction that only ran commands another, interrupted one owed: undoing that
// one takes them back, so `--undo` without an id passes over it.
bool only_resumed(const Transaction& t) {
  return t.changes.empty() && !t.commands.empty() &&
         std::all_of(t.commands.begin(), t.commands.end(), [](const CommandRecord& c) { return c.rollback || !c.resumed_from.empty(); });
}

bool undoable(TxnState s) {
  return s == TxnState::applied || s == TxnState::applying || s == TxnState::rollback_incomplete;
}

// The transaction to undo: the one named, or the newest one undoable.
Result<bool> pick(Journal& j, const std::optional<std::string>& txn, UndoOutcome& out) {
  auto ids = j.store.list();
  if (!ids) return make_error("journal: " + ids.error().message, ids.error().code);
  if (txn) {
    if (!platform::JournalStore::valid_id(*txn) || std::find(ids->begin(), ids->end(), *txn) == ids->end())
      return make_error("no transaction " + *txn + " in " + std::string(platform::kJournalDir));
    AMDML_TRY(auto t, load_journal(j.store, *txn));
    if (!t) return make_error("transaction " + *txn + " has no journal.json");
    if (t->state == TxnState::undone || t->state == TxnState::rolled_back) {
      out.nothing = true;
      out.txn = *txn;
      out.message = "transaction " + *txn + " is already " + formats::to_string(t->state) + "; nothing to undo";
      return false;
    }
    j.id = *txn;
    j.txn = std::move(*t);
    return true;
  }
  for (auto it = ids->rbegin(); it != ids->rend(); ++it) {
    // A transaction directory without journal.json never started (the journal is
    // written before any file, so a failure or crash right after creating the
    // directory leaves just that): nothing to undo there.
    AMDML_TRY(auto t, load_journal(j.store, *it));
    if (!t || !undoable(t->state) || only_resumed(*t)) continue;
    j.id = *it;
    j.txn = std::move(*t);
    return true;
  }
  out.nothing = true;
  out.message = "no applied transaction to undo";
  return false;
}

struct Undo {
  const platform::Host& host;
  platform::SafeTree& targets;
  const ApplyOptions& o;
  Journal& j;
  UndoOutcome& out;
  std::vector<std::size_t> to_restore, already;
  std::vector<std::size_t> renames_back;  // indices into j.txn.commands
  std::vector<std::string> errors;

  void judge_changes();
  void judge_renames();
  void run_inverses(bool files_restored);
};

void Undo::judge_changes() {
  std::map<std::string, std::optional<std::string>> sim;
  std::set<std::string> drifted;  // reported once: an earlier change of the file is left too
  for (std::size_t k = j.txn.changes.size(); k-- > 0;) {
    formats::Change& ch = j.txn.changes[k];
    if (ch.state == ChangeState::restored) continue;
    if (drifted.count(ch.path)) {
      ch.state = ChangeState::drifted;
      continue;
    }
    auto skip = [&](const std::string& why) {
      drifted.insert(ch.path);
      out.skipped.push_back(ch.path + ": " + why);
      ch.state = ChangeState::drifted;
    };
    std::optional<std::string> cur;
    if (sim.count(ch.path)) {
      cur = sim[ch.path];
    } else {
      auto disk = targets.read(ch.path);
      if (!disk) {
        skip(disk.error().message);
        continue;
      }
      if (disk->exists) cur = disk->bytes;
    }
    auto after = j.store.get(j.id, ch.after);
    if (!after || !*after) {
      skip("the journal lost the bytes amdml wrote; left as it is");
      continue;
    }
    std::optional<std::string> before;
    if (ch.existed) {
      auto b = j.store.get(j.id, ch.before);
      if (!b || !*b) {
        skip("the journal lost its previous bytes; left as it is");
        continue;
      }
      before = **b;
    }
    const bool is_after = cur && *cur == **after;
    // Journaled but never written (the run stopped before it): the file is as the
    // earlier changes left it; only directories to clean up.
    if (ch.state == ChangeState::pending && !is_after) {
      already.push_back(k);
      continue;
    }
    if (!is_after && cur != before) {
      skip("changed after amdml wrote it; left as it is");
      continue;
    }
    sim[ch.path] = before;
    if (!is_after) {
      out.restored.push_back(ch.path + " (already as before)");
      out.files.push_back({ch.path, "none", ""});
      already.push_back(k);
      continue;
    }
    to_restore.insert(to_restore.begin(), k);
  }
}

// Directories the apply renamed (rocm-install's set-aside), journaled "running" before
// the rename and "ran" after: back only when the new name holds them and the old one is
// free. (A rename a rollback already undid, or one that never happened, is done.)
void Undo::judge_renames() {
  std::vector<std::vector<std::string>> rolled_back;
  for (const auto& c : j.txn.commands)
    if (c.rename && c.rollback && c.state == CommandState::ran) rolled_back.push_back(c.argv);
  for (std::size_t i = 0; i < j.txn.commands.size(); ++i) {
    CommandRecord& c = j.txn.commands[i];
    if (!c.rename || c.rollback || c.reverted || !c.undo || c.undo->size() < 2) continue;
    if (c.state != CommandState::ran && c.state != CommandState::running) continue;
    const auto& back = *c.undo;
    if (std::find(rolled_back.begin(), rolled_back.end(), back) != rolled_back.end()) continue;
    const std::string& now = back[back.size() - 2];
    const std::string& was = back.back();
    const bool at_new = host.exists(now), at_old = host.exists(was);
    if (at_new && !at_old) {
      renames_back.push_back(i);
    } else if (c.state == CommandState::running && at_old && !at_new) {
      c.state = CommandState::failed;  // killed before the rename happened
      c.note = "never renamed";
    } else if (!at_new && !at_old) {
      out.skipped.push_back(was + ": moved aside to " + now + ", which no longer exists (deleted?); nothing to move back");
    } else if (at_new) {
      out.skipped.push_back(was + ": something took its name since amdml moved it to " + now + "; " + now +
                            " is left where it is");
    }
  }
}

// The commands that made the changes effective make their removal effective too: the
// inverse where a command has one (apt-get install -> remove, newest first; an install
// that failed or was killed: the purge of what it added), else run again.
void Undo::run_inverses(bool files_restored) {
  std::vector<CommandRecord> recs;
  auto did_run = [](const CommandRecord& c) {
    return c.state == CommandState::ran || c.state == CommandState::recorded || !c.run_by.empty();
  };
  for (std::size_t i = j.txn.commands.size(); i-- > 0;) {
    CommandRecord& c = j.txn.commands[i];
    if (c.rollback || c.rename || c.reverted) continue;
    std::optional<std::vector<std::string>> argv;
    if (did_run(c) && c.undo && !c.undo->empty()) argv = c.undo;
    else if (!did_run(c) && c.state != CommandState::pending && steps::is_apt_install(c.argv)) argv = steps::purge_added(host, c);
    if (!argv) continue;
    c.reverted = true;
    out.commands.push_back(steps::run_one(host, *argv, std::chrono::minutes(60), o));
  }
  if (!files_restored) return;
  for (const auto& c : j.txn.commands) {
    if (c.rollback || c.rename || c.undo || !did_run(c) || c.argv.empty()) continue;
    out.commands.push_back(steps::run_one(host, c.argv, std::chrono::minutes(10), o));
  }
}

}  // namespace

Result<UndoOutcome> undo_transaction(const std::optional<std::string>& txn, const platform::Host& host, platform::SafeTree& targets,
                                     platform::SafeTree& journal_tree, const ApplyOptions& o) {
  UndoOutcome out;
  auto lock = platform::TreeLock::acquire(journal_tree, platform::kLockPath, o.lock_timeout_ms);
  if (!lock) return lock.error();
  Journal j{platform::JournalStore(journal_tree), "", Transaction{}};
  AMDML_TRY(bool found, pick(j, txn, out));
  if (!found) return out;
  out.txn = j.id;
  (void)j.store.release(j.id);  // space a killed run had reserved: the undo may need it
  std::set<std::string> dirs;
  for (const auto& ch : j.txn.changes) dirs.insert(paths::dirname(ch.path));
  steps::clean_stale_temps(targets, journal_tree, dirs);

  Undo u{host, targets, o, j, out, {}, {}, {}, {}};
  u.judge_changes();
  u.judge_renames();
  for (auto k : u.already) {
    formats::Change& ch = j.txn.changes[k];
    ch.state = ChangeState::restored;
    // A crash may have left the parent directories behind.
    for (auto d = ch.created_dirs.rbegin(); d != ch.created_dirs.rend(); ++d) (void)targets.remove_dir_if_empty(*d);
  }
  std::map<std::size_t, std::string> kept;
  u.errors = steps::restore_changes(targets, j, u.to_restore, &kept);
  for (auto it = u.renames_back.rbegin(); it != u.renames_back.rend(); ++it) {
    CommandRecord& c = j.txn.commands[*it];
    auto rec = steps::rename_one(targets, *c.undo);
    if (!steps::command_ok(rec)) u.errors.push_back(rec.note);
    else c.reverted = true;
    out.commands.push_back(std::move(rec));
  }
  for (auto i : u.to_restore) {
    const formats::Change& ch = j.txn.changes[i];
    std::string what = ch.existed ? "previous bytes restored" : "removed: did not exist before";
    if (kept.count(i)) what += "; " + kept[i];
    out.restored.push_back(ch.path + " (" + what + ")");
    out.files.push_back({ch.path, ch.existed ? "modify" : "delete", kept.count(i) ? kept[i] : ""});
  }
  if (!u.errors.empty()) {
    j.txn.undo_errors = u.errors;
    (void)j.save();
    return make_error("undo " + j.id + ": " + text::join(u.errors, "; "));
  }
  u.run_inverses(!u.to_restore.empty());
  for (const auto& c : out.commands) {
    CommandRecord rec;
    rec.argv = c.argv;
    steps::record_result(rec, c);
    j.txn.undo_commands.push_back(std::move(rec));
  }
  j.txn.state = out.skipped.empty() ? TxnState::undone : TxnState::partly_undone;
  j.txn.undone = platform::utc_now_iso();
  if (auto st = j.save(); !st) return make_error("journal: " + st.error().message, st.error().code);
  return out;
}

}  // namespace amdml::fix
