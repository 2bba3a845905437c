// Steps shared by apply, rollback and undo; see steps.hpp.
#include "fix/steps.hpp"

#include <algorithm>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "platform/journal_store.hpp"

namespace amdml::fix::steps {

CommandRecord run_one(const platform::Host& host, const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
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
    rec.note = st.error().message;
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

void record_result(formats::CommandRecord& rec, const CommandRecord& r) {
  rec.note = r.note;
  rec.state = !r.ran ? formats::CommandState::recorded : command_ok(r) ? formats::CommandState::ran : formats::CommandState::failed;
  if (r.result) {
    rec.exit_code = r.result->exit_code;
    rec.timed_out = r.result->timed_out;
    rec.signal = r.result->signal;
    rec.out = output_tail(r.result->out);
    rec.err = output_tail(r.result->err);
  } else if (r.ran) {
    rec.exit_code.reset();  // could not start
  }
}

CommandRecord outcome_of(const formats::CommandRecord& rec) {
  CommandRecord out;
  out.argv = rec.argv;
  out.ran = rec.ran();
  out.note = rec.note;
  if (rec.exit_code) {
    out.result = CommandResult{};
    out.result->exit_code = *rec.exit_code;
    out.result->timed_out = rec.timed_out;
    out.result->signal = rec.signal;
    out.result->out = rec.out;
    out.result->err = rec.err;
  }
  return out;
}

void clean_stale_temps(platform::SafeTree& targets, platform::SafeTree& journal, const std::set<std::string>& dirs) {
  for (const auto& d : dirs) (void)targets.remove_stale_temps(d);
  if (auto ids = platform::JournalStore(journal).list())
    for (const auto& id : *ids) (void)journal.remove_stale_temps(std::string(platform::kJournalDir) + "/" + id);
}

std::vector<std::string> missing_dirs(platform::SafeTree& targets, const std::string& dir) {
  std::vector<std::string> out;
  // read() says "does not exist" only for ENOENT; a directory is "not a regular file".
  for (std::string d = dir; d != "/" && !d.empty(); d = paths::dirname(d)) {
    auto r = targets.read(d, 0);
    if (!r || r->exists) break;
    out.insert(out.begin(), d);
  }
  return out;
}

std::vector<std::string> restore_changes(platform::SafeTree& targets, Journal& j, const std::vector<std::size_t>& which,
                                         std::map<std::size_t, std::string>* kept) {
  std::vector<std::string> errors;
  for (auto it = which.rbegin(); it != which.rend(); ++it) {
    formats::Change& ch = j.txn.changes[*it];
    auto cur = targets.read(ch.path);
    std::optional<std::string> old;
    if (ch.existed) {
      auto b = j.store.get(j.id, ch.before);
      if (b && *b) old = **b;
    }
    // Never written (the run stopped before it): only the directories to clean up.
    bool untouched = false;
    if (cur && ch.existed && cur->exists) untouched = old && cur->bytes == *old;
    else if (cur && !ch.existed) untouched = !cur->exists;
    if (untouched) {
    } else if (ch.existed) {
      if (!old) {
        errors.push_back(ch.path + ": the journal lost its backup");
        continue;
      }
      platform::FileMeta meta;
      if (!cur || !cur->exists) {
        // Gone (a rollback after a failed rename): the journaled mode and owner.
        meta.mode = ch.mode;
        meta.uid = ch.uid;
        meta.gid = ch.gid;
      } else if (kept && ch.mode && ch.uid && ch.gid && (cur->mode != *ch.mode || cur->uid != *ch.uid || cur->gid != *ch.gid)) {
        (*kept)[*it] = "mode " + text::octal_mode(cur->mode) + " and owner " + std::to_string(cur->uid) + ":" +
                       std::to_string(cur->gid) + " (set after amdml wrote it) kept";
      }
      if (auto st = targets.write(ch.path, *old, meta); !st) {
        errors.push_back(st.error().message);
        continue;
      }
    } else if (auto st = targets.remove(ch.path); !st) {
      errors.push_back(st.error().message);
      continue;
    }
    for (auto d = ch.created_dirs.rbegin(); d != ch.created_dirs.rend(); ++d)
      if (auto st = targets.remove_dir_if_empty(*d); !st) errors.push_back(st.error().message);
    ch.state = formats::ChangeState::restored;
  }
  return errors;
}

bool is_apt_install(const std::vector<std::string>& argv) {
  auto apt = std::find(argv.begin(), argv.end(), "apt-get");
  return apt != argv.end() && std::find(apt, argv.end(), "install") != argv.end();
}

std::optional<std::vector<std::string>> purge_added(const platform::Host& host, const formats::CommandRecord& install) {
  if (!install.packages_before) return std::nullopt;
  auto now = installed_packages(host);
  if (!now) return std::nullopt;
  std::vector<std::string> added;
  for (const auto& p : *now)
    if (!std::binary_search(install.packages_before->begin(), install.packages_before->end(), p)) added.push_back(p);
  if (added.empty()) return std::nullopt;
  std::vector<std::string> argv = {"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q", "purge"};
  argv.insert(argv.end(), added.begin(), added.end());
  return argv;
}

}  // namespace amdml::fix::steps
