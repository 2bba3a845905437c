// The fix engine: recipes (data in recipes/fixes/*.toml over a closed set of C++ step
// kinds), the plan they make for a diagnosed host, and applying, rolling back and
// undoing that plan through one journaled atomic writer.
//
// plan_fixes() reads the tree and decides every byte it would write; it writes
// nothing, so `amdml fix` without --apply needs no root. apply_plan() takes the lock,
// journals each file's previous bytes before touching it, writes through SafeTree,
// runs the recipe's commands (argv, time limit; with --root they are recorded, never
// run) and rolls back everything it wrote when a step fails. undo_transaction()
// restores a journaled transaction byte for byte. Rendering the plan and the outcome
// to text is here too (format_*), so the CLI only prints.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/facts.hpp"
#include "amdml/finding.hpp"
#include "platform/host.hpp"
#include "amdml/knowledge.hpp"
#include "base/result.hpp"

namespace amdml::platform {
class SafeTree;
}

namespace amdml::fix {

// --- recipes -----------------------------------------------------------------------

// The closed set of step kinds; recipes combine them, they never add code.
enum class StepKind {
  group_members,      // add params.user to params.groups in /etc/group (+ /etc/gshadow)
  modprobe_option,    // set module options: edit the line that sets them, else amdml's own file
  env_file,           // a whole file of amdml's own with environment settings (format below)
  daemon_reload,      // systemctl daemon-reload
  restart_if_running, // systemctl try-restart UNIT (restarts only a running unit)
  initramfs,          // regenerate the initramfs when the module is in it
  follow_up,          // tell the person: reboot, new login, ...
};
const char* to_string(StepKind k);

// How a recipe's parameters are read (the contracts in TEAM.md).
enum class ParamSchema { groups, ttm, hsa, env };

// The file formats an env_file step writes.
enum class EnvFormat { profile_sh, environment_d, systemd_dropin };

enum class FollowUp { reboot, relogin };
const char* to_string(FollowUp f);

struct RecipeStep {
  StepKind kind = StepKind::follow_up;
  std::string path;      // env_file: the file; modprobe_option: amdml's own file
  std::string dir;       // modprobe_option: the directory whose files may already set it
  std::vector<std::string> files;  // group_members: the group databases
  EnvFormat format = EnvFormat::profile_sh;
  std::string unit;      // restart_if_running (and env_file systemd_dropin): "ollama.service"
  FollowUp need = FollowUp::reboot;
  std::string text;      // follow_up: what to tell the person ({user}, {group} filled in)
  std::string service_text;  // follow_up for a system account (uid < 1000): services, not logins
};

struct Recipe {
  std::string id;     // pinned: groups, ttm-pages-limit, hsa-override, ollama-override
  std::string title;  // one line
  std::string file;   // "fixes/groups.toml", for messages
  ParamSchema params = ParamSchema::env;
  std::vector<std::string> resolves;  // finding ids this recipe is meant for
  std::vector<RecipeStep> steps;
};

// The recipe table: every recipes/fixes/*.toml, sorted by id. A file with an unknown
// step kind, a missing key or a duplicate id is an error naming the file.
Result<std::vector<Recipe>> load_recipes(const std::vector<RecipeFile>& files);
const Recipe* find_recipe(const std::vector<Recipe>& recipes, const std::string& id);

// The commands that do by hand what recipe r does with these parameters: the same
// files with the same bytes, the same systemctl calls. Empty for recipes that edit a
// person's files (groups, modprobe options) and for nonsense parameters.
std::vector<std::string> hand_commands(const Recipe& r, const nlohmann::json& params);
// Replaces each finding's hand commands with those derived from its fix's recipe, where
// hand_commands gives any: advice and recipe never disagree.
void derive_hand_commands(const std::vector<Recipe>& recipes, std::vector<Finding>& findings);

// --- plan ----------------------------------------------------------------------------

// One file the plan writes: its bytes now (nullopt: it does not exist) and after.
struct FileChange {
  std::string path;  // absolute inside the host
  std::optional<std::string> before;
  std::string after;
  std::uint32_t new_mode = 0644;  // for a file that does not exist yet
  std::string why;                // "add alice to render", "amdml's own drop-in"
  bool changes() const { return !before || *before != after; }
};

struct Command {
  std::vector<std::string> argv;
  std::string why;
  std::chrono::milliseconds timeout{60000};
  std::string text() const;  // argv joined by spaces, for people
};

struct RecipePlan {
  const Recipe* recipe = nullptr;
  FixRef ref;                                   // the parameters it was asked for
  std::vector<Finding> findings;                // what it resolves (copies: a plan outlives re-diagnoses)
  std::vector<Finding> deferred;                // asking this recipe with other parameters (a note says so)
  std::vector<FileChange> files;
  std::vector<Command> commands;                // run only when a file changes
  std::vector<FollowUp> follow_ups;
  std::vector<std::string> follow_up_text;
  std::vector<std::string> notes;               // what the plan noticed (a person's file kept, ...)
  std::vector<std::string> resumes;             // interrupted transactions this recipe finishes
  std::optional<Error> refused;                 // nonsense parameters or a file amdml will not touch
  bool pending() const;                         // some file would change
};

struct Plan {
  std::vector<RecipePlan> recipes;
  bool pending() const;   // anything to write
  bool refused() const;   // any recipe refused
};

struct PlanInputs {
  const Host& host;
  platform::SafeTree& tree;                 // reads every file it may write (no symlinks followed)
  const Facts& facts;
  const std::vector<Finding>& findings;
  const std::vector<Recipe>& recipes;
  std::optional<std::string> only;          // --only RECIPE
};

// Every recipe a run that was killed had started (transactions still "applying", see
// interrupted_transactions) is planned again, from the files as they are now, so the
// next apply finishes it: a run killed between /etc/group and /etc/gshadow gets
// gshadow repaired, though /etc/group no longer asks for anything.
Plan plan_fixes(const PlanInputs& in);

// Parameter checks, exposed for tests: each returns an error for nonsense.
Status check_params(const Recipe& r, const nlohmann::json& params, const Facts& facts);

// A unified diff (---/+++ headers, 3 lines of context) of before -> after.
std::string unified_diff(const std::string& path, const std::optional<std::string>& before, const std::string& after);

// --- apply, rollback, undo --------------------------------------------------------

struct CommandRecord {
  std::vector<std::string> argv;
  bool ran = false;            // false under --root: recorded only
  std::string note;            // why it did not run, or how it ended
  std::optional<CommandResult> result;
};

struct ApplyOptions {
  bool run_commands = true;    // false with --root: commands are recorded, not run
  bool live = true;            // live host: take /etc/.pwd.lock as shadow-utils does
  int lock_timeout_ms = 10000;
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

// Applies every pending recipe of plan. targets writes the machine's files; journal
// holds the journal (normally the same tree; tests give either one faulty FsOps).
// Errors (lock, journal unusable) come back before anything was written.
Result<ApplyOutcome> apply_plan(const Plan& plan, const Host& host, platform::SafeTree& targets,
                                platform::SafeTree& journal, const ApplyOptions& options);

struct UndoOutcome {
  std::string txn;
  std::vector<std::string> restored;   // "/etc/group (restored)", "/etc/x (removed: did not exist)"
  std::vector<CommandRecord> commands;
  bool nothing = false;                // no transaction to undo
  std::string message;                 // why nothing
};

// Restores transaction txn (or the newest one applied, interrupted or not completely
// rolled back) byte for byte. A file whose bytes changed since amdml wrote it is not
// clobbered: the undo stops before writing anything. A later chmod or chown is kept
// (the bytes are restored, the newer mode and owner stay; the outcome says so).
Result<UndoOutcome> undo_transaction(const std::optional<std::string>& txn, const Host& host,
                                     platform::SafeTree& targets, platform::SafeTree& journal,
                                     const ApplyOptions& options);

// Transactions a killed run left in state "applying" that no later apply finished
// (newest last): the plan and --apply mention them, because --undo is what puts their
// files back.
std::vector<std::string> interrupted_transactions(platform::SafeTree& journal);

// What those transactions had been asked to do: (transaction, recipe and parameters).
std::vector<std::pair<std::string, FixRef>> interrupted_requests(platform::SafeTree& journal);

// --- text ----------------------------------------------------------------------------

std::string format_recipe_list(const std::vector<Recipe>& recipes);
std::string format_plan(const Plan& plan, bool rooted, const std::string& sudo_command);
std::string format_apply(const ApplyOutcome& out, const Plan& plan);
// Before/after findings of the re-probe: gone, waiting for a reboot or login, still there.
std::string format_verify(const Plan& plan, const ApplyOutcome& out, const std::vector<Finding>& before,
                          const std::vector<Finding>& after);
std::string format_undo(const UndoOutcome& out);

}  // namespace amdml::fix
