// The steps apply, rollback and undo share: running or recording a command, a rename
// through the tree, putting journaled files back, the parent directories a write will
// create, and the inverse of an `apt-get install` that failed half-way.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "amdml/plan.hpp"
#include "fix/fix.hpp"
#include "fix/journal.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix::steps {

// argv run through the host with a time limit; under --root (run_commands false)
// recorded, never run.
CommandRecord run_one(const platform::Host& host, const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                      const ApplyOptions& o);
// A rename ({"mv", "-T", "--", FROM, TO}) through the tree amdml writes, so inside
// --root too; recorded like a command that ran.
CommandRecord rename_one(platform::SafeTree& targets, const std::vector<std::string>& argv);
bool command_ok(const CommandRecord& c);
// What a run (or rename) gave, into the journal's record: the state and the tails.
void record_result(formats::CommandRecord& rec, const CommandRecord& r);
// The journal's record as the outcome's.
CommandRecord outcome_of(const formats::CommandRecord& rec);

// Temp files a killed writer left next to the files a run touches, and in the journal.
void clean_stale_temps(platform::SafeTree& targets, platform::SafeTree& journal, const std::set<std::string>& dirs);

// The ancestors of dir (dir included) that do not exist, outermost first: the
// directories a write into dir creates.
std::vector<std::string> missing_dirs(platform::SafeTree& targets, const std::string& dir);

// Puts the journaled changes back, newest first, and removes the directories they
// created (when empty). Returns what could not be restored. A file keeps its current
// mode and owner: amdml wrote the ones it found, so a difference is someone's later
// chmod or chown, which is theirs (kept[i] says so).
std::vector<std::string> restore_changes(platform::SafeTree& targets, Journal& j, const std::vector<std::size_t>& which,
                                         std::map<std::size_t, std::string>* kept = nullptr);

// argv is an `apt-get install` (perhaps behind `env VAR=...`).
bool is_apt_install(const std::vector<std::string>& argv);
// The packages an install attempt added: dpkg's status now against the journaled list
// from before it, and the `apt-get purge` of exactly those (nullopt: none, or unknown).
std::optional<std::vector<std::string>> purge_added(const platform::Host& host, const formats::CommandRecord& install);

}  // namespace amdml::fix::steps
