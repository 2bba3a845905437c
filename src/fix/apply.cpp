// apply_plan(), rollback and undo_transaction(): the only code that changes a machine.
//
// Order of an apply, so that a crash or a full disk at any instant leaves a journal
// that can put every file back:
//   1. before any target is touched, every change goes into the journal: the previous
//      bytes (or "did not exist") with mode and owner, the new bytes, and the change as
//      "pending" in journal.json; then space for the rest of the journal (journal.json
//      rewrites, command records) is reserved. A full disk fails here, with nothing
//      changed;
//   2. per file: missing parent directories are created and journaled; the file is
//      re-read and must still be what the plan saw (else stop: someone changed it
//      meanwhile); SafeTree writes it atomically; the journal marks it "written".
// Commands run after their recipe's files, with argv and a time limit; with --root
// they are journaled as "recorded, not run". A failing step rolls back every file
// this run wrote, newest first, and re-runs the commands that had already run so
// systemd and the initramfs see the restored files. A rollback step that fails too
// leaves the transaction "rollback-incomplete", which --undo finishes.
#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "base/text.hpp"
#include "base/paths.hpp"
#include "fix/fix.hpp"
#include "platform/host.hpp"
#include "fix/journal.hpp"
#include "formats/fix_params_json.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

using nlohmann::json;

struct Journal {
  platform::JournalStore store;
  std::string id;
  json doc;
  bool reserved = false;

  Status save() {
    std::string text;
    try {
      text = doc.dump(2) + "\n";
    } catch (const json::exception& e) {
      return make_error(std::string("journal.json: ") + e.what());
    }
    auto st = store.put(id, "journal.json", text);
    // The disk filled up after all: the reserved space is for exactly this.
    if (!st && reserved && (st.error().code == ENOSPC || st.error().code == EDQUOT)) {
      release();
      st = store.put(id, "journal.json", text);
    }
    return st;
  }
  void release() {
    if (reserved) (void)store.release(id);
    reserved = false;
  }
};

// Upper bound of one command's record in journal.json: two output tails, each byte at
// worst a six-character JSON escape, and the argv and note.
constexpr std::uint64_t kCommandRecordMax = 2 * 6 * 8200 + 8192;

std::string text_of(const json& j) { return json_bytes(j).value_or(""); }

std::vector<std::string> words_of(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& w : j) out.push_back(text_of(w));
  return out;
}

json words_json(const std::vector<std::string>& words) {
  json out = json::array();
  for (const auto& w : words) out.push_back(bytes_json(w));
  return out;
}

json command_json(const CommandRecord& c) {
  json j = {{"argv", words_json(c.argv)}, {"ran", c.ran}, {"note", bytes_json(c.note)}};
  if (c.result) {
    j["exit_code"] = c.result->exit_code;
    j["timed_out"] = c.result->timed_out;
    j["signal"] = c.result->signal;
    j["stdout"] = bytes_json(output_tail(c.result->out));
    j["stderr"] = bytes_json(output_tail(c.result->err));
  }
  return j;
}

bool is_user_db(const std::string& path) {
  return path == "/etc/group" || path == "/etc/gshadow" || path == "/etc/passwd" || path == "/etc/shadow";
}

using paths::dirname;

CommandRecord run_one(const Host& host, const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      const ApplyOptions& o) {
  CommandRecord rec;
  rec.argv = argv;
  if (!o.run_commands) {
    rec.note = "recorded, not run (--root)";
    return rec;
  }
  rec.ran = true;
  auto r = host.run(argv, timeout);
  if (!r) {
    rec.note = r.error().message;
    return rec;
  }
  rec.result = *r;
  if (r->timed_out) rec.note = "timed out after " + std::to_string(timeout.count() / 1000) + " s";
  else if (r->signal) rec.note = "killed by signal " + std::to_string(r->signal);
  else rec.note = "exit " + std::to_string(r->exit_code);
  return rec;
}

// A rename the plan asks for (Command::rename: {"mv", "-T", "--", FROM, TO}), done through
// the tree amdml writes, so inside --root too; recorded like a command that ran.
CommandRecord rename_one(platform::SafeTree& targets, const std::vector<std::string>& argv) {
  CommandRecord rec;
  rec.argv = argv;
  rec.ran = true;
  rec.result = CommandResult{};
  if (argv.size() < 2) {
    rec.result->exit_code = 2;
    rec.note = "no paths to rename";
    return rec;
  }
  if (auto st = targets.rename(argv[argv.size() - 2], argv.back()); !st) {
    rec.result->exit_code = 1;
    rec.note = st.error().message;  // once: the failure line adds err after the note
    return rec;
  }
  rec.result->exit_code = 0;
  rec.note = "renamed";
  return rec;
}

bool command_ok(const CommandRecord& c) {
  if (!c.ran) return true;
  return c.result && !c.result->timed_out && c.result->signal == 0 && c.result->exit_code == 0;
}

std::string first_line(const std::string& s) {
  auto t = s.substr(0, s.find('\n'));
  return t.size() > 200 ? t.substr(0, 200) + "..." : t;
}


// Temp files a killed writer left next to the files a run touches, and in the journal.
void clean_stale_temps(platform::SafeTree& targets, platform::SafeTree& journal, const std::set<std::string>& dirs) {
  for (const auto& d : dirs) (void)targets.remove_stale_temps(d);
  if (auto ids = platform::JournalStore(journal).list())
    for (const auto& id : *ids) (void)journal.remove_stale_temps(std::string(platform::kJournalDir) + "/" + id);
}

// Puts the journaled changes back, newest first. Returns what could not be restored.
// A file keeps its current mode and owner: amdml wrote the ones it found, so a
// difference is someone's later chmod or chown, which is theirs (kept[i] says so).
std::vector<std::string> restore_changes(platform::SafeTree& targets, Journal& j, const std::vector<std::size_t>& which,
                                         std::map<std::size_t, std::string>* kept = nullptr) {
  std::vector<std::string> errors;
  for (auto it = which.rbegin(); it != which.rend(); ++it) {
    json& ch = j.doc["changes"][*it];
    std::string path = text_of(ch["path"]);
    auto cur = targets.read(path);
    bool existed = ch["existed"].get<bool>();
    // Never written (the run stopped before it): only the directories to clean up.
    bool untouched = false;
    if (cur && existed && cur->exists) {
      auto old = j.store.get(j.id, ch["before"].get<std::string>());
      untouched = old && *old && cur->bytes == **old;
    } else if (cur && !existed) {
      untouched = !cur->exists;
    }
    if (untouched) {
    } else if (existed) {
      auto old = j.store.get(j.id, ch["before"].get<std::string>());
      if (!old || !*old) {
        errors.push_back(path + ": the journal lost its backup");
        continue;
      }
      platform::FileMeta meta;
      if (!cur || !cur->exists) {
        // Gone (a rollback after a failed rename): the journaled mode and owner.
        if (ch.contains("mode")) meta.mode = ch["mode"].get<std::uint32_t>();
        if (ch.contains("uid")) meta.uid = ch["uid"].get<std::uint32_t>();
        if (ch.contains("gid")) meta.gid = ch["gid"].get<std::uint32_t>();
      } else if (kept && ch.contains("mode") && ch.contains("uid") && ch.contains("gid") &&
                 (cur->mode != ch["mode"].get<std::uint32_t>() || cur->uid != ch["uid"].get<std::uint32_t>() ||
                  cur->gid != ch["gid"].get<std::uint32_t>())) {
        (*kept)[*it] = "mode " + text::octal_mode(cur->mode) + " and owner " + std::to_string(cur->uid) + ":" + std::to_string(cur->gid) +
                       " (set after amdml wrote it) kept";
      }
      if (auto st = targets.write(path, **old, meta); !st) {
        errors.push_back(st.error().message);
        continue;
      }
    } else if (auto st = targets.remove(path); !st) {
      errors.push_back(st.error().message);
      continue;
    }
    auto dirs = words_of(ch.value("created_dirs", json::array()));
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d)
      if (auto st = targets.remove_dir_if_empty(*d); !st) errors.push_back(st.error().message);
    ch["state"] = "restored";
  }
  return errors;
}

// Tells an interrupted transaction that a later apply finished its recipes, so it is
// no longer announced (it stays undoable).
void mark_resumed(platform::JournalStore& store, const std::string& txn, const std::string& by) {
  auto doc = load_journal(store, txn);
  if (!doc || !*doc) return;
  (**doc)["resumed_by"] = by;
  (void)store.release(txn);  // the killed run's reserved space
  (void)store.put(txn, "journal.json", (**doc).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

}  // namespace

Result<ApplyOutcome> apply_plan(const Plan& plan, const Host& host, platform::SafeTree& targets,
                                platform::SafeTree& journal_tree, const ApplyOptions& o) {
  ApplyOutcome out;
  if (!plan.pending()) return out;
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
  clean_stale_temps(targets, journal_tree, dirs);

  Journal j{platform::JournalStore(journal_tree), "", json::object()};
  auto id = j.store.create();
  if (!id) return make_error("journal: " + id.error().message, id.error().code);
  j.id = *id;
  out.txn = j.id;
  j.doc = {{"format", 2},
           {"id", j.id},
           {"created", platform::utc_now_iso()},
           {"root", bytes_json(targets.root())},
           {"state", kApplying},
           {"recipes", json::array()},
           {"requests", json::array()},
           {"changes", json::array()},
           {"commands", json::array()}};
  for (const auto& rp : plan.recipes)
    if (rp.pending()) {
      j.doc["recipes"].push_back(rp.recipe->id);
      j.doc["requests"].push_back({{"recipe", rp.recipe->id}, {"params", encode_strings(fix_params_json(rp.ref.params))}});
    }
  if (auto st = j.save(); !st) return make_error("journal: " + st.error().message, st.error().code);

  std::vector<std::size_t> written;  // indices into changes that may have touched the disk
  std::vector<std::string> copies;   // the before/after files in the journal
  bool listed = false;               // journal.json may name them (its save was tried)
  std::vector<const Command*> ran;   // the plan's command behind each of out.commands (its undo, rename)
  int step = 0;
  auto fail = [&](Error e) {
    out.ok = false;
    out.failure = std::move(e);
    j.release();  // space for the rollback and for the journal's last words
    // Nothing was touched yet: the copies are of no use, and their space lets the
    // journal say so on a full disk.
    if (!listed)
      for (const auto& name : copies) (void)j.store.remove(j.id, name);
    out.rollback_errors = restore_changes(targets, j, written);
    // Re-sync what the commands that already ran had picked up; a command with an
    // inverse (apt-get install) has it run instead, newest first.
    for (std::size_t i = out.commands.size(); i-- > 0;) {
      const auto& c = out.commands[i];
      const Command& cmd = *ran[i];
      if (!c.ran || !command_ok(c) || !cmd.undo || cmd.undo->empty()) continue;
      auto back = command_json(cmd.rename ? rename_one(targets, *cmd.undo) : run_one(host, *cmd.undo, std::chrono::minutes(60), o));
      back["rollback"] = true;
      if (cmd.rename) back["rename"] = true;
      j.doc["commands"].push_back(back);
    }
    for (std::size_t i = 0; i < out.commands.size(); ++i) {
      const auto& c = out.commands[i];
      if (c.ran && command_ok(c) && !ran[i]->undo) {
        auto again = command_json(run_one(host, c.argv, std::chrono::minutes(10), o));
        again["rollback"] = true;
        j.doc["commands"].push_back(again);
      }
    }
    out.rolled_back = true;
    out.written.clear();
    // Never "rolled back" when a file still holds what this run wrote.
    j.doc["state"] = out.rollback_errors.empty() ? kRolledBack : kRollbackIncomplete;
    j.doc["failure"] = bytes_json(out.failure->message);
    if (!out.rollback_errors.empty()) j.doc["rollback_errors"] = words_json(out.rollback_errors);
    j.doc["finished"] = platform::utc_now_iso();
    if (auto st = j.save(); !st) out.rollback_errors.push_back("journal: " + st.error().message);
    return out;
  };
  auto journal_error = [](const Error& e) { return make_error("journal: " + e.message, e.code); };

  // 1. Every change into the journal before the first target is touched.
  struct Todo {
    const FileChange* fc;
    std::size_t n;
  };
  std::vector<Todo> todo;
  std::map<std::string, std::size_t> last_change;  // path -> this run's latest change of it
  std::uint64_t restore_bytes = 0;
  std::size_t commands = 0;
  for (const auto& rp : plan.recipes) {
    if (!rp.pending()) continue;
    commands += rp.commands.size();
    for (const auto& fc : rp.files) {
      if (!fc.changes()) continue;
      std::size_t n = j.doc["changes"].size();
      std::string before_name = std::to_string(n) + ".before", after_name = std::to_string(n) + ".after";
      json ch = {{"path", bytes_json(fc.path)}, {"recipe", rp.recipe->id}, {"after", after_name},
                 {"state", "pending"}, {"created_dirs", json::array()}};
      if (auto prev = last_change.find(fc.path); prev != last_change.end()) {
        // Changed twice in this run (two users added to /etc/group): its previous
        // bytes are what the earlier change writes.
        const json& p = j.doc["changes"][prev->second];
        ch["existed"] = true;
        ch["before"] = p["after"];
        for (const char* k : {"mode", "uid", "gid"})
          if (p.contains(k)) ch[k] = p[k];
      } else {
        auto cur = targets.read(fc.path);
        if (!cur) return fail(cur.error());
        if (cur->exists != fc.before.has_value() || (cur->exists && cur->bytes != *fc.before))
          return fail(make_error(fc.path + " changed since the plan was made; nothing of it was written, run amdml fix again"));
        ch["existed"] = cur->exists;
        if (cur->exists) {
          ch["before"] = before_name;
          ch["mode"] = cur->mode;
          ch["uid"] = cur->uid;
          ch["gid"] = cur->gid;
          restore_bytes += cur->bytes.size();
          copies.push_back(before_name);
          if (auto st = j.store.put(j.id, before_name, cur->bytes); !st) return fail(journal_error(st.error()));
        }
      }
      copies.push_back(after_name);
      if (auto st = j.store.put(j.id, after_name, fc.after); !st) return fail(journal_error(st.error()));
      j.doc["changes"].push_back(ch);
      last_change[fc.path] = n;
      todo.push_back({&fc, n});
    }
  }
  // Space for what the journal writes later: journal.json rewritten (old and new copy
  // side by side) with every command's record, applying and rolling back, and the
  // files' previous bytes for a rollback on the same file system.
  std::uint64_t doc_size = 0;
  try {
    doc_size = j.doc.dump(2).size();
  } catch (const json::exception& e) {
    return fail(make_error(std::string("journal: ") + e.what()));
  }
  std::uint64_t reserve = 2 * (doc_size + 2 * commands * kCommandRecordMax + 4096) + restore_bytes + (64 << 10);
  if (auto st = j.store.reserve(j.id, reserve); !st) return fail(journal_error(st.error()));
  j.reserved = true;
  listed = true;
  if (auto st = j.save(); !st) return fail(journal_error(st.error()));

  // 2. The targets.
  std::size_t next = 0;
  for (const auto& rp : plan.recipes) {
    if (!rp.pending()) continue;
    for (const auto& fc : rp.files) {
      if (!fc.changes()) continue;
      std::size_t n = todo[next++].n;
      ++step;
      written.push_back(n);
      platform::test_kill_point(step);
      // Parent directories, journaled before the file appears in them.
      std::vector<std::string> created;
      auto mk = targets.make_dirs(dirname(fc.path), 0755, &created);
      if (!created.empty()) {
        j.doc["changes"][n]["created_dirs"] = words_json(created);
        if (auto st = j.save(); !st) return fail(journal_error(st.error()));
      }
      if (!mk) return fail(mk.error());
      // Still what the plan (or this run's previous change of it) left there?
      auto cur = targets.read(fc.path);
      if (!cur) return fail(cur.error());
      if (cur->exists != fc.before.has_value() || (cur->exists && cur->bytes != *fc.before))
        return fail(make_error(fc.path + " changed since the plan was made; nothing of it was written, run amdml fix again"));
      platform::FileMeta meta;
      if (!cur->exists) meta.mode = fc.new_mode;
      if (auto st = targets.write(fc.path, fc.after, meta); !st) return fail(st.error());
      j.doc["changes"][n]["state"] = "written";
      if (auto st = j.save(); !st) return fail(journal_error(st.error()));
      out.written.push_back(fc.path);
    }
    for (const auto& cmd : rp.commands) {
      ++step;
      platform::test_kill_point(step);
      auto rec = cmd.rename ? rename_one(targets, cmd.argv) : run_one(host, cmd.argv, cmd.timeout, o);
      out.commands.push_back(rec);
      ran.push_back(&cmd);
      auto recj = command_json(rec);
      if (cmd.undo) recj["undo"] = words_json(*cmd.undo);
      if (cmd.rename) recj["rename"] = true;
      j.doc["commands"].push_back(recj);
      if (auto st = j.save(); !st) return fail(journal_error(st.error()));
      if (!command_ok(rec)) {
        std::string why = cmd.text() + ": " + rec.note;
        if (rec.result && !rec.result->err.empty()) why += ": " + first_line(rec.result->err);
        return fail(make_error(why));
      }
    }
    out.recipes_applied.push_back(rp.recipe->id);
  }
  j.doc["state"] = kApplied;
  j.doc["finished"] = platform::utc_now_iso();
  if (auto st = j.save(); !st) return fail(journal_error(st.error()));
  j.release();
  for (const auto& rp : plan.recipes)
    if (!rp.refused)
      for (const auto& txn : rp.resumes) mark_resumed(j.store, txn, j.id);
  return out;
}

std::vector<std::pair<std::string, FixRef>> interrupted_requests(platform::SafeTree& journal_tree) {
  std::vector<std::pair<std::string, FixRef>> out;
  platform::JournalStore store(journal_tree);
  auto ids = store.list();
  if (!ids) return out;
  for (const auto& id : *ids) {
    auto doc = load_journal(store, id);
    if (!doc || !*doc) continue;
    const json& d = **doc;
    if (d["state"] != kApplying || d.contains("resumed_by")) continue;
    // A format-1 journal names its recipes without parameters: only announced.
    if (!d.contains("requests")) {
      out.emplace_back(id, FixRef{});
      continue;
    }
    // Parameters that do not read back are kept as a request for no recipe: the
    // transaction is still interrupted, but nothing is planned from them.
    for (const auto& r : d["requests"]) {
      auto params = parse_fix_params(decode_strings(r.value("params", json::object())));
      out.emplace_back(id, params ? FixRef{r["recipe"].get<std::string>(), *params} : FixRef{});
    }
  }
  return out;
}

std::vector<std::string> interrupted_transactions(platform::SafeTree& journal_tree) {
  std::vector<std::string> out;
  for (const auto& [id, ref] : interrupted_requests(journal_tree))
    if (out.empty() || out.back() != id) out.push_back(id);
  return out;
}

Result<UndoOutcome> undo_transaction(const std::optional<std::string>& txn, const Host& host, platform::SafeTree& targets,
                                     platform::SafeTree& journal_tree, const ApplyOptions& o) {
  UndoOutcome out;
  auto lock = platform::TreeLock::acquire(journal_tree, platform::kLockPath, o.lock_timeout_ms);
  if (!lock) return lock.error();
  Journal j{platform::JournalStore(journal_tree), "", json::object()};
  auto ids = j.store.list();
  if (!ids) return make_error("journal: " + ids.error().message, ids.error().code);
  if (txn) {
    if (!platform::JournalStore::valid_id(*txn) || std::find(ids->begin(), ids->end(), *txn) == ids->end())
      return make_error("no transaction " + *txn + " in " + std::string(platform::kJournalDir));
    auto doc = load_journal(j.store, *txn);
    if (!doc) return doc.error();
    if (!*doc) return make_error("transaction " + *txn + " has no journal.json");
    std::string state = (**doc)["state"];
    if (state == kUndone || state == kRolledBack) {
      out.nothing = true;
      out.txn = *txn;
      out.message = "transaction " + *txn + " is already " + state + "; nothing to undo";
      return out;
    }
    j.id = *txn;
    j.doc = std::move(**doc);
  } else {
    for (auto it = ids->rbegin(); it != ids->rend(); ++it) {
      // A transaction directory without journal.json never started (the journal is
      // written before any file, so a failure or crash right after creating the
      // directory leaves just that): nothing to undo there.
      auto doc = load_journal(j.store, *it);
      if (!doc) return doc.error();
      if (!*doc) continue;
      std::string state = (**doc)["state"];
      if (state == kApplied || state == kApplying || state == kRollbackIncomplete) {
        j.id = *it;
        j.doc = std::move(**doc);
        break;
      }
    }
    if (j.id.empty()) {
      out.nothing = true;
      out.message = "no applied transaction to undo";
      return out;
    }
  }
  out.txn = j.id;
  (void)j.store.release(j.id);  // space a killed run had reserved: the undo may need it
  std::set<std::string> dirs;
  for (const auto& ch : j.doc["changes"]) dirs.insert(dirname(text_of(ch["path"])));
  clean_stale_temps(targets, journal_tree, dirs);

  // First check every file, then write: an undo that would clobber someone's later
  // edit stops before it changes anything.
  std::vector<std::size_t> to_restore;
  std::vector<std::string> drift;
  auto& changes = j.doc["changes"];
  // Newest change first, on a simulated tree: a file changed twice in one transaction
  // (two users added to /etc/group) must hold the second change's bytes now, and will
  // hold the first change's bytes when the undo reaches it.
  std::map<std::string, std::optional<std::string>> sim;
  std::vector<std::size_t> already;  // never written (a killed run): only directories to clean
  for (std::size_t k = changes.size(); k-- > 0;) {
    const json& ch = changes[k];
    if (ch.value("state", "") == "restored") continue;
    std::string path = text_of(ch["path"]);
    std::optional<std::string> cur;
    if (sim.count(path)) {
      cur = sim[path];
    } else {
      auto disk = targets.read(path);
      if (!disk) return make_error("undo " + j.id + ": " + disk.error().message, disk.error().code);
      if (disk->exists) cur = disk->bytes;
    }
    auto after = j.store.get(j.id, ch["after"].get<std::string>());
    if (!after || !*after) return make_error("undo " + j.id + ": the journal lost the bytes written to " + path + "; nothing was restored");
    std::optional<std::string> before;
    if (ch["existed"].get<bool>()) {
      auto b = j.store.get(j.id, ch["before"].get<std::string>());
      if (!b || !*b) return make_error("undo " + j.id + ": the journal lost the backup of " + path + "; nothing was restored");
      before = **b;
    }
    bool is_after = cur && *cur == **after;
    // Journaled but never written (the run stopped before it; every change is journaled
    // before the first target is touched): the file is as the earlier changes left it.
    if (ch.value("state", "") == "pending" && !is_after) {
      already.push_back(k);
      continue;
    }
    sim[path] = before;
    bool is_before = cur == before;
    if (is_before && !is_after) {
      out.restored.push_back(path + " (already as before)");
      out.files.push_back({path, "none", ""});
      already.push_back(k);
      continue;
    }
    if (!is_after) {
      drift.push_back(path);
      continue;
    }
    to_restore.insert(to_restore.begin(), k);
  }
  // Directories the apply renamed (rocm-install's set-aside) go back where they were:
  // only when the new name still holds them and nothing took the old one meanwhile.
  // (A rename a rollback already undid is done.)
  std::vector<std::vector<std::string>> renames_back, rolled_back;
  for (const auto& c : j.doc["commands"])
    if (c.value("rename", false) && c.value("rollback", false) && c.value("exit_code", -1) == 0)
      rolled_back.push_back(words_of(c["argv"]));
  for (const auto& c : j.doc["commands"]) {
    if (!c.value("rename", false) || c.value("rollback", false) || !c.value("ran", false) || !c.contains("undo")) continue;
    if (c.value("exit_code", -1) != 0) continue;
    auto back = words_of(c["undo"]);
    if (back.size() < 2 || std::find(rolled_back.begin(), rolled_back.end(), back) != rolled_back.end()) continue;
    if (!host.exists(back[back.size() - 2]) || host.exists(back.back())) {
      drift.push_back(back.back() + " (renamed to " + back[back.size() - 2] + ")");
      continue;
    }
    renames_back.push_back(std::move(back));
  }
  if (!drift.empty()) {
    std::string list;
    for (const auto& d : drift) list += (list.empty() ? "" : ", ") + d;
    return make_error("undo " + j.id + ": " + list + " changed after amdml wrote it; not clobbering it -- nothing was restored");
  }
  for (auto k : already) {
    changes[k]["state"] = "restored";
    // A crash may have left the parent directories behind.
    auto created = words_of(changes[k].value("created_dirs", json::array()));
    for (auto d = created.rbegin(); d != created.rend(); ++d) (void)targets.remove_dir_if_empty(*d);
  }
  std::map<std::size_t, std::string> kept;
  auto errors = restore_changes(targets, j, to_restore, &kept);
  for (auto it = renames_back.rbegin(); it != renames_back.rend(); ++it) {
    auto rec = rename_one(targets, *it);
    if (!command_ok(rec)) errors.push_back(rec.note);
    out.commands.push_back(std::move(rec));
  }
  for (auto i : to_restore) {
    const json& ch = changes[i];
    std::string what = ch["existed"].get<bool>() ? "previous bytes restored" : "removed: did not exist before";
    if (kept.count(i)) what += "; " + kept[i];
    out.restored.push_back(text_of(ch["path"]) + " (" + what + ")");
    out.files.push_back({text_of(ch["path"]), ch["existed"].get<bool>() ? "modify" : "delete", kept.count(i) ? kept[i] : ""});
  }
  if (!errors.empty()) {
    std::string list;
    for (const auto& e : errors) list += (list.empty() ? "" : "; ") + e;
    j.doc["undo_errors"] = words_json(errors);
    (void)j.save();
    return make_error("undo " + j.id + ": " + list);
  }
  // The commands that made the change effective make its removal effective too: run
  // again, or, where a command has an inverse (apt-get install -> remove), the inverse,
  // newest first.
  if (!to_restore.empty()) {
    const json& cmds = j.doc["commands"];
    for (std::size_t i = cmds.size(); i-- > 0;) {
      const json& c = cmds[i];
      if (c.value("rollback", false) || !c.contains("undo") || c.value("rename", false)) continue;
      auto argv = words_of(c["undo"]);
      if (argv.empty()) continue;
      out.commands.push_back(run_one(host, argv, std::chrono::minutes(60), o));
    }
    for (const auto& c : cmds) {
      if (c.value("rollback", false) || c.contains("undo")) continue;
      auto argv = words_of(c["argv"]);
      if (argv.empty()) continue;
      auto rec = run_one(host, argv, std::chrono::minutes(10), o);
      out.commands.push_back(rec);
    }
  }
  for (const auto& c : out.commands) j.doc["undo_commands"].push_back(command_json(c));
  j.doc["state"] = kUndone;
  j.doc["undone"] = platform::utc_now_iso();
  if (auto st = j.save(); !st) return make_error("journal: " + st.error().message, st.error().code);
  return out;
}

}  // namespace amdml::fix
