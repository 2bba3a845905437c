// What `amdml fix` would do and what it did, as plain data: the plan (every byte each
// recipe would write and every command it would run, src/fix/plan.cpp), the outcome of
// an apply and of an undo (src/fix/apply.cpp, undo.cpp). src/render/fix_text.cpp draws them.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amdml/finding.hpp"
#include "amdml/host.hpp"
#include "amdml/recipe.hpp"
#include "base/result.hpp"
#include "base/text.hpp"

namespace amdml {

// One file the plan writes: its bytes now (nullopt: it does not exist) and after.
struct FileChange {
  std::string path;  // absolute inside the host
  std::optional<std::string> before;
  std::string after;
  std::uint32_t new_mode = 0644;  // for a file that does not exist yet
  std::string why;                // "add alice to render", "amdml's own drop-in"
  // A signing key fetched when the plan is applied (never while planning): fix::fetch_keys
  // fills `after` with the dearmored key from fetch_url once its primary fingerprint is
  // `fingerprint`, and refuses the whole apply otherwise. Empty: after is known now.
  std::string fetch_url;
  std::string fingerprint;
  bool changes() const { return !before || *before != after || !fetch_url.empty(); }
};

struct Command {
  std::vector<std::string> argv;
  std::string why;
  std::chrono::milliseconds timeout{60000};
  // What --undo runs for it (apt-get install -> apt-get remove); nullopt: --undo runs
  // argv again (daemon-reload, initramfs), an empty list: nothing.
  std::optional<std::vector<std::string>> undo{};
  // argv is {"mv", "-T", "--", FROM, TO}, done by amdml itself through the tree it
  // writes (so inside --root too), journaled, renamed back by --undo. A change of its
  // own (a directory moved aside): the recipe has something to do for it.
  bool rename = false;
  // A change of its own that writes no file amdml journals: packages pip installs into
  // one Python environment (rocm-install's pip channel). --undo runs `undo`.
  bool installs = false;
  // Owed by an interrupted transaction (its id): the run that was killed wrote its
  // recipe's files but did not finish this command; this run does.
  std::string resumes{};
  // argv as one shell command line for people: each word quoted (text::shell_word), so
  // a pasted line runs exactly argv.
  std::string text() const { return text::shell_words(argv); }
};

// What a person does once a recipe is applied, and how they see that it worked (per recipe
// in `fix --format json`; filled in by fix::fill_aftercare).
struct Aftercare {
  bool needs_root = true;              // --apply writes system files (the plan itself does not)
  bool needs_reboot = false;           // read at boot (modprobe.d, the kernel command line)
  bool needs_relogin = false;          // a person's session: groups, login environment
  bool needs_service_restart = false;  // a service account's groups or environment, read when it starts
  std::string verify;                  // the command, or the `amdml check` expectation, that proves it
};

struct RecipePlan {
  const Recipe* recipe = nullptr;
  FixRef ref;                                   // the parameters it was asked for
  std::vector<Finding> findings;                // what it resolves (copies: a plan outlives re-diagnoses)
  std::vector<Finding> deferred;                // asking this recipe with other parameters (a note says so)
  std::vector<FileChange> files;
  std::vector<Command> commands;                // run only when a file (or a command itself) changes
  std::vector<FollowUp> follow_ups;
  std::vector<std::string> follow_up_text;
  std::vector<std::string> notes;               // what the plan noticed (a person's file kept, ...)
  std::vector<std::string> resumes;             // interrupted transactions this recipe finishes
  std::optional<Error> refused;                 // nonsense parameters or a file amdml will not touch
  Aftercare aftercare;
  // Some file would change, a directory would be renamed, or a command an interrupted
  // run still owes would run.
  bool pending() const {
    return !refused && (std::any_of(files.begin(), files.end(), [](const FileChange& f) { return f.changes(); }) ||
                        std::any_of(commands.begin(), commands.end(),
                                    [](const Command& c) { return c.rename || c.installs || !c.resumes.empty(); }));
  }
};

struct FixPlan {
  std::vector<RecipePlan> recipes;
  // Anything to write.
  bool pending() const {
    return std::any_of(recipes.begin(), recipes.end(), [](const RecipePlan& r) { return r.pending(); });
  }
  // Any recipe refused.
  bool refused() const {
    return std::any_of(recipes.begin(), recipes.end(), [](const RecipePlan& r) { return r.refused.has_value(); });
  }
};

// What became of each finding a recipe was applied for, judged from the doctor's run
// after the apply (fix::classify_verify); render prints it, fix's JSON lists it.
enum class VerifyStatus { gone, after_reboot, after_relogin, next_run, now, left, still, after_commands };
struct VerifyLine {
  VerifyStatus status;
  FindingId id;
  std::string title;
};

struct CommandRecord {
  std::vector<std::string> argv;
  bool ran = false;            // false under --root: recorded only
  std::string note;            // why it did not run, or how it ended
  std::optional<CommandResult> result;
};

struct ApplyOutcome {
  std::string txn;                         // journal id ("" when there was nothing to do)
  bool ok = true;
  std::vector<std::string> written;        // paths changed (and still changed)
  std::vector<CommandRecord> commands;
  std::vector<std::string> recipes_applied;
  std::optional<Error> failure;            // the step that failed
  bool rolled_back = false;                 // a rollback ran (see rollback_errors for how far it got)
  std::vector<std::string> rollback_errors;  // what could not be put back: the journal then says
                                             // "rollback-incomplete" and --undo finishes it
};

// One file an undo looked at: "modify" (its previous bytes are back), "delete" (it did
// not exist before: removed), "none" (it was already as before).
struct UndoFile {
  std::string path;
  std::string kind;
  std::string note;  // a chmod or chown kept, ...
};

struct UndoOutcome {
  std::string txn;
  std::vector<std::string> restored;   // "/etc/group (restored)", "/etc/x (removed: did not exist)"
  std::vector<UndoFile> files;         // the same as data
  std::vector<CommandRecord> commands;
  // Changes left alone because someone changed them after amdml did (a file edited, a
  // set-aside directory deleted): "PATH: why". Every other change was undone; the
  // transaction is then "partly-undone" and the exit status says so.
  std::vector<std::string> skipped;
  bool nothing = false;                // no transaction to undo
  std::string message;                 // why nothing
};

}  // namespace amdml
