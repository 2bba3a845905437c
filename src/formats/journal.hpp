// journal.json, the record of one `amdml fix` transaction, as typed data: the one codec
// that reads and writes it (nothing else touches its keys).
//
// journal.json is JSON, which holds text; the journal holds bytes -- a path, an argv word
// or a command's output can be anything a file system or a program gives (a Latin-1
// kernel release, update-initramfs output). Every such value is written as a plain
// string when it is valid UTF-8 (so the journal stays readable) and as
// {"base64": "..."} otherwise. The before and after copies of the files are separate
// files in the transaction directory; a Change names them.
//
// read_journal() checks every field undo and the next apply use, so a damaged journal
// is one error ("changes[1].path is not a path") found before anything is written. It
// reads the formats older amdml versions wrote: 1 (plain strings, no requests), 2
// (commands recorded only once they had run, "ran": true/false) and 3 (this one:
// commands recorded before they run, each with its state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.hpp"

namespace amdml::formats {

inline constexpr int kJournalFormat = 3;

enum class TxnState {
  applying,             // under way, or killed (the next apply resumes it)
  applied,
  rolled_back,          // a step failed; everything the run did was taken back
  rollback_incomplete,  // a rollback step failed too: --undo finishes it
  undone,
  partly_undone,        // --undo skipped a change that drifted; a later --undo retries it
};

enum class ChangeState {
  pending,   // journaled, maybe not yet written
  written,
  restored,  // put back by a rollback or an undo
  drifted,   // changed by someone after amdml wrote it: an undo left it alone
};

enum class CommandState {
  pending,   // journaled, not started
  running,   // started: the process may have been killed while it ran
  ran,       // exit 0 (a rename: done)
  failed,    // ran and failed (exit code, signal, time-out, could not start)
  recorded,  // under --root: recorded, never run
};

const char* to_string(TxnState s);
const char* to_string(ChangeState s);
const char* to_string(CommandState s);

// One file the transaction writes.
struct Change {
  std::string path;
  std::string recipe;
  bool existed = false;                // the file existed before: `before` names its copy
  std::string before;                  // copy names inside the transaction directory ("3.before")
  std::string after;
  std::optional<std::uint32_t> mode, uid, gid;  // of the file before
  ChangeState state = ChangeState::pending;
  // Parent directories this change creates, outermost first: journaled before they are
  // created, so an undo after a kill at any moment removes those that exist (when empty).
  std::vector<std::string> created_dirs;
};

// One command (or rename) of the transaction, journaled before it runs.
struct CommandRecord {
  std::vector<std::string> argv;
  std::string recipe;
  CommandState state = CommandState::pending;
  bool rename = false;    // argv is {"mv", "-T", "--", FROM, TO}: done by amdml through the tree
  bool rollback = false;  // run by the rollback of this transaction (a re-sync or an inverse)
  // What --undo runs instead of argv again (nullopt: argv again; empty: nothing).
  std::optional<std::vector<std::string>> undo;
  // For an `apt-get install`: every package dpkg had installed before the attempt, so a
  // failed attempt removes exactly the ones it added.
  std::optional<std::vector<std::string>> packages_before;
  std::string resumed_from;  // an interrupted transaction whose owed command this is
  std::string run_by;        // the transaction that later ran this owed command
  bool reverted = false;     // --undo renamed it back / ran its inverse
  std::int64_t timeout_ms = 0;
  std::string note;
  std::optional<int> exit_code;
  bool timed_out = false;
  int signal = 0;
  std::string out, err;  // tails
  bool ran() const { return state == CommandState::ran || state == CommandState::failed; }
  bool done() const { return state == CommandState::ran || state == CommandState::recorded; }
};

struct Request {
  std::string recipe;
  nlohmann::json params = nlohmann::json::object();  // formats/fix_params_json.hpp's form
};

struct Transaction {
  int format = kJournalFormat;
  std::string id, created, finished, undone;
  std::string root;
  TxnState state = TxnState::applying;
  std::vector<std::string> recipes;
  std::optional<std::vector<Request>> requests;  // nullopt: a format-1 journal
  std::vector<Change> changes;
  std::vector<CommandRecord> commands;
  std::vector<CommandRecord> undo_commands;
  std::string failure;
  std::vector<std::string> rollback_errors, undo_errors;
  std::string resumed_by;
};

// The transaction in text; an error says which field is wrong ("changes[1].path is not a
// path", "not JSON").
Result<Transaction> read_journal(std::string_view text);
// journal.json's bytes. Never fails: every value from the machine is encoded.
std::string write_journal(const Transaction& t);

// A byte string as journal.json holds it, and back (nullopt: not such a value).
nlohmann::json bytes_json(const std::string& bytes);
std::optional<std::string> json_bytes(const nlohmann::json& j);

}  // namespace amdml::formats
