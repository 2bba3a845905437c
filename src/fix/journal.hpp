// The journal document of one fix transaction (journal.json) and how bytes live in it.
//
// journal.json is JSON, which holds text; the journal holds bytes -- a path, an argv
// word or a command's output can be anything a file system or a program gives (a
// Latin-1 kernel release, update-initramfs output). Every such value goes through
// bytes_json(): valid UTF-8 stays a plain string (so the journal stays readable and
// format-1 journals read the same), anything else becomes {"base64": "..."}. Before
// and after copies of the files are separate files in the transaction directory.
//
// check_journal() validates every field undo and the next apply read, so a damaged
// journal is one error naming the file, found before anything is written.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.hpp"
#include "platform/journal_store.hpp"

namespace amdml::fix {

// Transaction states, as journal.json says them.
inline constexpr const char* kApplying = "applying";
inline constexpr const char* kApplied = "applied";
inline constexpr const char* kRolledBack = "rolled-back";
// A rollback step failed: some file still holds what this run wrote; --undo finishes it.
inline constexpr const char* kRollbackIncomplete = "rollback-incomplete";
inline constexpr const char* kUndone = "undone";

nlohmann::json bytes_json(const std::string& bytes);
// The bytes a bytes_json() value holds; nullopt for anything else.
std::optional<std::string> json_bytes(const nlohmann::json& j);
// The same over a whole value: every string in it (not the keys) encoded / decoded.
nlohmann::json encode_strings(const nlohmann::json& j);
nlohmann::json decode_strings(const nlohmann::json& j);

// Ok when doc is a journal this version can undo (format 1 or 2); else what is wrong.
Status check_journal(const nlohmann::json& doc);

// journal.json of transaction id, parsed and checked; a missing file is nullopt. Errors
// name the file (its real path) in one line.
Result<std::optional<nlohmann::json>> load_journal(platform::JournalStore& store, const std::string& id);

// The last bytes of a command's output that the journal keeps (the end holds the error).
std::string output_tail(const std::string& out);

}  // namespace amdml::fix
