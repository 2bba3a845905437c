// apply_plan(), rollback and undo_transaction(): the only code that changes a machine.
//
// Order of every file step, so that a crash at any instant leaves a journal that can
// put the file back:
//   1. the previous bytes (or "did not exist") and the new bytes go into the journal,
//      and the journal records the change as "pending";
//   2. missing parent directories are created and journaled;
//   3. the file is re-read: if it is no longer what the plan saw, stop (someone
//      changed it meanwhile);
//   4. SafeTree writes it atomically; the journal marks it "written".
// Commands run after their recipe's files, with argv and a time limit; with --root
// they are journaled as "recorded, not run". A failing step rolls back every file
// this run wrote, newest first, and re-runs the commands that had already run so
// systemd and the initramfs see the restored files.
#include <algorithm>
#include <map>

#include "amdml/fix.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

using nlohmann::json;

struct Journal {
  platform::JournalStore store;
  std::string id;
  json doc;
  Status save() { return store.put(id, "journal.json", doc.dump(2) + "\n"); }
};

json command_json(const CommandRecord& c) {
  json j = {{"argv", c.argv}, {"ran", c.ran}, {"note", c.note}};
  if (c.result) {
    j["exit_code"] = c.result->exit_code;
    j["timed_out"] = c.result->timed_out;
    j["signal"] = c.result->signal;
    j["stdout"] = c.result->out;
    j["stderr"] = c.result->err;
  }
  return j;
}

bool is_user_db(const std::string& path) {
  return path == "/etc/group" || path == "/etc/gshadow" || path == "/etc/passwd" || path == "/etc/shadow";
}

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

bool command_ok(const CommandRecord& c) {
  if (!c.ran) return true;
  return c.result && !c.result->timed_out && c.result->signal == 0 && c.result->exit_code == 0;
}

std::string first_line(const std::string& s) {
  auto t = s.substr(0, s.find('\n'));
  return t.size() > 200 ? t.substr(0, 200) + "..." : t;
}

// Puts the journaled changes back, newest first. Returns what could not be restored.
std::vector<std::string> restore_changes(platform::SafeTree& targets, Journal& j, const std::vector<std::size_t>& which) {
  std::vector<std::string> errors;
  for (auto it = which.rbegin(); it != which.rend(); ++it) {
    json& ch = j.doc["changes"][*it];
    std::string path = ch["path"];
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
      meta.mode = ch["mode"].get<std::uint32_t>();
      meta.uid = ch["uid"].get<std::uint32_t>();
      meta.gid = ch["gid"].get<std::uint32_t>();
      if (auto st = targets.write(path, **old, meta); !st) {
        errors.push_back(st.error().message);
        continue;
      }
    } else if (auto st = targets.remove(path); !st) {
      errors.push_back(st.error().message);
      continue;
    }
    auto dirs = ch.value("created_dirs", std::vector<std::string>{});
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d)
      if (auto st = targets.remove_dir_if_empty(*d); !st) errors.push_back(st.error().message);
    ch["state"] = "restored";
  }
  return errors;
}

}  // namespace

Result<ApplyOutcome> apply_plan(const Plan& plan, const Host& host, platform::SafeTree& targets,
                                platform::SafeTree& journal_tree, const ApplyOptions& o) {
  ApplyOutcome out;
  if (!plan.pending()) return out;
  auto lock = platform::TreeLock::acquire(journal_tree, platform::kLockPath, o.lock_timeout_ms);
  if (!lock) return lock.error();
  std::optional<platform::PasswdLock> pwlock;
  for (const auto& rp : plan.recipes)
    for (const auto& f : rp.files)
      if (rp.pending() && f.changes() && is_user_db(f.path) && !pwlock) {
        auto l = platform::PasswdLock::acquire(targets, o.live, o.lock_timeout_ms);
        if (!l) return l.error();
        pwlock.emplace(std::move(*l));
      }

  Journal j{platform::JournalStore(journal_tree), "", json::object()};
  auto id = j.store.create();
  if (!id) return make_error("journal: " + id.error().message, id.error().code);
  j.id = *id;
  out.txn = j.id;
  j.doc = {{"format", 1},
           {"id", j.id},
           {"created", platform::utc_now_iso()},
           {"root", targets.root()},
           {"state", "applying"},
           {"recipes", json::array()},
           {"changes", json::array()},
           {"commands", json::array()}};
  for (const auto& rp : plan.recipes)
    if (rp.pending()) j.doc["recipes"].push_back(rp.recipe->id);
  if (auto st = j.save(); !st) return make_error("journal: " + st.error().message, st.error().code);

  std::vector<std::size_t> written;  // indices into changes that may have touched the disk
  int step = 0;
  auto fail = [&](Error e) {
    out.ok = false;
    out.failure = std::move(e);
    out.rollback_errors = restore_changes(targets, j, written);
    // Re-sync what the commands that already ran had picked up.
    for (const auto& c : out.commands)
      if (c.ran && command_ok(c)) {
        auto again = command_json(run_one(host, c.argv, std::chrono::minutes(10), o));
        again["rollback"] = true;
        j.doc["commands"].push_back(again);
      }
    out.rolled_back = true;
    out.written.clear();
    j.doc["state"] = "rolled-back";
    j.doc["failure"] = out.failure->message;
    j.doc["finished"] = platform::utc_now_iso();
    if (auto st = j.save(); !st) out.rollback_errors.push_back("journal: " + st.error().message);
    return out;
  };

  for (const auto& rp : plan.recipes) {
    if (!rp.pending()) continue;
    for (const auto& fc : rp.files) {
      if (!fc.changes()) continue;
      ++step;
      std::size_t n = j.doc["changes"].size();
      std::string before_name = std::to_string(n) + ".before", after_name = std::to_string(n) + ".after";
      // 1. The previous state, before anything is touched.
      auto cur = targets.read(fc.path);
      if (!cur) return fail(cur.error());
      if (cur->exists != fc.before.has_value() || (cur->exists && cur->bytes != *fc.before))
        return fail(make_error(fc.path + " changed since the plan was made; nothing of it was written, run amdml fix again"));
      json ch = {{"path", fc.path}, {"recipe", rp.recipe->id}, {"existed", cur->exists}, {"after", after_name},
                 {"state", "pending"}, {"created_dirs", json::array()}};
      if (cur->exists) {
        ch["before"] = before_name;
        ch["mode"] = cur->mode;
        ch["uid"] = cur->uid;
        ch["gid"] = cur->gid;
        if (auto st = j.store.put(j.id, before_name, cur->bytes); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
      }
      if (auto st = j.store.put(j.id, after_name, fc.after); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
      j.doc["changes"].push_back(ch);
      if (auto st = j.save(); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
      written.push_back(n);
      platform::test_kill_point(step);
      // 2. Parent directories, journaled before the file appears in them.
      std::vector<std::string> dirs;
      auto mk = targets.make_dirs(fc.path.substr(0, fc.path.rfind('/')), 0755, &dirs);
      if (!dirs.empty()) {
        j.doc["changes"][n]["created_dirs"] = dirs;
        if (auto st = j.save(); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
      }
      if (!mk) return fail(mk.error());
      // 3. The file itself.
      platform::FileMeta meta;
      if (!cur->exists) meta.mode = fc.new_mode;
      if (auto st = targets.write(fc.path, fc.after, meta); !st) return fail(st.error());
      j.doc["changes"][n]["state"] = "written";
      if (auto st = j.save(); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
      out.written.push_back(fc.path);
    }
    for (const auto& cmd : rp.commands) {
      ++step;
      platform::test_kill_point(step);
      auto rec = run_one(host, cmd.argv, cmd.timeout, o);
      out.commands.push_back(rec);
      j.doc["commands"].push_back(command_json(rec));
      if (auto st = j.save(); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
      if (!command_ok(rec)) {
        std::string why = cmd.text() + ": " + rec.note;
        if (rec.result && !rec.result->err.empty()) why += ": " + first_line(rec.result->err);
        return fail(make_error(why));
      }
    }
    out.recipes_applied.push_back(rp.recipe->id);
  }
  j.doc["state"] = "applied";
  j.doc["finished"] = platform::utc_now_iso();
  if (auto st = j.save(); !st) return fail(make_error("journal: " + st.error().message, st.error().code));
  return out;
}

std::vector<std::string> interrupted_transactions(platform::SafeTree& journal_tree) {
  std::vector<std::string> out;
  platform::JournalStore store(journal_tree);
  auto ids = store.list();
  if (!ids) return out;
  for (const auto& id : *ids) {
    auto text = store.get(id, "journal.json");
    if (!text || !*text) continue;
    auto doc = json::parse(**text, nullptr, false);
    if (doc.is_object() && doc.value("state", "") == "applying") out.push_back(id);
  }
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
  auto load = [&](const std::string& id) -> Result<json> {
    auto text = j.store.get(id, "journal.json");
    if (!text) return text.error();
    if (!*text) return make_error("transaction " + id + " has no journal.json");
    auto doc = json::parse(**text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("changes") || !doc["changes"].is_array())
      return make_error("transaction " + id + ": journal.json is damaged");
    return doc;
  };
  if (txn) {
    if (!platform::JournalStore::valid_id(*txn) || std::find(ids->begin(), ids->end(), *txn) == ids->end())
      return make_error("no transaction " + *txn + " in " + std::string(platform::kJournalDir));
    auto doc = load(*txn);
    if (!doc) return doc.error();
    std::string state = (*doc).value("state", "");
    if (state == "undone" || state == "rolled-back") {
      out.nothing = true;
      out.txn = *txn;
      out.message = "transaction " + *txn + " is already " + state + "; nothing to undo";
      return out;
    }
    j.id = *txn;
    j.doc = std::move(*doc);
  } else {
    for (auto it = ids->rbegin(); it != ids->rend(); ++it) {
      // A transaction directory without journal.json never started (the journal is
      // written before any file, so a failure or crash right after creating the
      // directory leaves just that): nothing to undo there.
      if (auto text = j.store.get(*it, "journal.json"); text && !*text) continue;
      auto doc = load(*it);
      if (!doc) return doc.error();
      std::string state = (*doc).value("state", "");
      if (state == "applied" || state == "applying") {
        j.id = *it;
        j.doc = std::move(*doc);
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
    std::string path = ch.value("path", "");
    std::optional<std::string> cur;
    if (sim.count(path)) {
      cur = sim[path];
    } else {
      auto disk = targets.read(path);
      if (!disk) return make_error("undo " + j.id + ": " + disk.error().message, disk.error().code);
      if (disk->exists) cur = disk->bytes;
    }
    auto after = j.store.get(j.id, ch.value("after", ""));
    if (!after || !*after) return make_error("undo " + j.id + ": the journal lost the bytes written to " + path);
    std::optional<std::string> before;
    if (ch.value("existed", false)) {
      auto b = j.store.get(j.id, ch.value("before", ""));
      if (!b || !*b) return make_error("undo " + j.id + ": the journal lost the backup of " + path);
      before = **b;
    }
    sim[path] = before;
    bool is_before = cur == before;
    bool is_after = cur && *cur == **after;
    if (is_before && !is_after) {
      out.restored.push_back(path + " (already as before)");
      already.push_back(k);
      continue;
    }
    if (!is_after) {
      drift.push_back(path);
      continue;
    }
    to_restore.insert(to_restore.begin(), k);
  }
  if (!drift.empty()) {
    std::string list;
    for (const auto& d : drift) list += (list.empty() ? "" : ", ") + d;
    return make_error("undo " + j.id + ": " + list + " changed after amdml wrote it; not clobbering it -- nothing was restored");
  }
  for (auto k : already) {
    changes[k]["state"] = "restored";
    // A crash may have left the parent directories behind.
    auto dirs = changes[k].value("created_dirs", std::vector<std::string>{});
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) (void)targets.remove_dir_if_empty(*d);
  }
  auto errors = restore_changes(targets, j, to_restore);
  for (auto i : to_restore) {
    const json& ch = changes[i];
    out.restored.push_back(ch.value("path", "") + (ch.value("existed", false) ? " (previous bytes restored)" : " (removed: did not exist before)"));
  }
  if (!errors.empty()) {
    std::string list;
    for (const auto& e : errors) list += (list.empty() ? "" : "; ") + e;
    j.doc["undo_errors"] = errors;
    (void)j.save();
    return make_error("undo " + j.id + ": " + list);
  }
  // The commands that made the change effective make its removal effective too.
  if (!to_restore.empty())
    for (const auto& c : j.doc["commands"]) {
      if (c.value("rollback", false)) continue;
      auto argv = c.value("argv", std::vector<std::string>{});
      if (argv.empty()) continue;
      auto rec = run_one(host, argv, std::chrono::minutes(10), o);
      out.commands.push_back(rec);
    }
  for (const auto& c : out.commands) j.doc["undo_commands"].push_back(command_json(c));
  j.doc["state"] = "undone";
  j.doc["undone"] = platform::utc_now_iso();
  if (auto st = j.save(); !st) return make_error("journal: " + st.error().message, st.error().code);
  return out;
}

}  // namespace amdml::fix
