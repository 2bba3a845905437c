// The fix engine: the plan recipes (amdml/recipe.hpp) make for a diagnosed host, and
// applying, rolling back and undoing that plan through one journaled atomic writer.
//
// plan_fixes() reads the tree and decides every byte it would write; it writes
// nothing, so `amdml fix` without --apply needs no root. apply_plan() takes the lock,
// journals each file's previous bytes before touching it, writes through SafeTree,
// runs the recipe's commands (argv, time limit; with --root they are recorded, never
// run) and rolls back everything it wrote when a step fails. undo_transaction()
// restores a journaled transaction byte for byte. Everything comes back as data
// (amdml/plan.hpp); src/render/fix_text.hpp draws it for people.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "amdml/facts.hpp"
#include "amdml/finding.hpp"
#include "amdml/plan.hpp"
#include "amdml/recipe.hpp"
#include "platform/host.hpp"
#include "base/result.hpp"

namespace amdml::platform {
class SafeTree;
}

namespace amdml::fix {

// --- recipes (amdml/recipe.hpp; read by formats/recipe_toml.hpp) ------------------

const Recipe* find_recipe(const std::vector<Recipe>& recipes, const std::string& id);

// The commands that do by hand what recipe r does with these parameters: the same
// files with the same bytes, the same systemctl calls. Empty for recipes that edit a
// person's files (groups, modprobe options) and for nonsense parameters.
std::vector<std::string> hand_commands(const Recipe& r, const FixParams& params);
// Replaces each finding's hand commands with those derived from its fix's recipe, where
// hand_commands gives any: advice and recipe never disagree.
void derive_hand_commands(const std::vector<Recipe>& recipes, std::vector<Finding>& findings);
// The recipes whose hand commands come from their plan (they merge into the machine's
// files: modprobe.d, the boot loader, the initramfs, a person's login files).
bool planned_by_hand(const Recipe& r);
// The step a person takes for a planned-by-hand recipe's request when no plan gives its
// commands (the plan is refused, or has nothing of its own to write): what to set where,
// from the request's parameters. The rules write none of their own.
std::vector<std::string> by_hand_steps(const FixRef& fix);
// A recipe plan as hand commands with their roles (nothing when it changes no file).
std::vector<std::pair<std::string, CommandRole>> hand_commands(const RecipePlan& rp);

// --- plan ----------------------------------------------------------------------------

struct PlanRequest {
  const platform::Host& host;
  platform::SafeTree& tree;                 // reads every file it may write (no symlinks followed)
  const Facts& facts;
  const std::vector<Finding>& findings;
  const std::vector<Recipe>& recipes;
  std::optional<std::string> only;          // --only RECIPE
  bool list_initramfs = true;               // false: regenerate whenever an image exists (no lister run)
  bool resume_interrupted = true;           // plan again what a killed run had started
  // The doctor's advice: no package-manager simulation (apt-get -s) and no child
  // process at all. Keys are never fetched while planning (see FileChange::fetch_url).
  bool offline = false;
};

// --- advice ---------------------------------------------------------------------------

// The advice stage (probes -> rules -> advice -> render): every fixable finding's recipe
// planned once. The doctor's advice is offline: no network, no package-manager
// simulation, no child process (PlanRequest::offline; a key is fetched only by --apply);
// `fix` asks for its own plan (online, with --only) and uses the one this returns.
struct AdviceInputs {
  const platform::Host& host;
  platform::SafeTree& tree;
  const Facts& facts;
  const std::vector<Recipe>& recipes;
  std::optional<std::string> only;  // fix --only RECIPE: nothing else is planned
  bool offline = true;              // the doctor's advice; false: fix's own plan
};
// Plans the findings' recipes and returns the plan. Each finding gets the hand commands
// derived from its recipe (the same files, the same bytes); offline, a finding whose
// recipe the plan refuses loses its fix reference and says why, so no doctor output
// names a `fix --only` recipe that fix would refuse.
Plan advise(const AdviceInputs& in, std::vector<Finding>& findings);

// Fetches every signing key the plan writes (FileChange::fetch_url), checks its primary
// fingerprint against the one pinned in the knowledge, and fills in the bytes: done by
// `fix --apply` after the confirmation and before anything is written. A key that cannot
// be fetched, is not an OpenPGP key or has another fingerprint is an error, and the
// apply does not start.
Status fetch_keys(Plan& plan, const platform::Host& host);

// Every recipe a run that was killed had started (transactions still "applying", see
// interrupted_transactions) is planned again, from the files as they are now, so the
// next apply finishes it: a run killed between /etc/group and /etc/gshadow gets
// gshadow repaired, though /etc/group no longer asks for anything.
Plan plan_fixes(const PlanRequest& in);

// rp's aftercare (amdml/plan.hpp): reboot, new login or service restart, and the check
// that proves it worked; plan_fixes fills it for every recipe it plans.
void fill_aftercare(RecipePlan& rp, const Facts& facts);

// A repository rocm-install adds: its URI and suite, and the list that will hold it.
struct AptRepo {
  std::string uri, suite, list;
};

// Every entry of apt's sources (sources.list, sources.list.d/*.list and *.sources; not
// the files in `own`, which the recipe replaces) that configures one of repos already:
// the changes that turn each off in its file (every other byte kept), and a note per
// file. apt refuses all sources when one URI and suite carry two Signed-By values, so
// the recipe's entry replaces the old one rather than being added beside it.
std::vector<FileChange> disable_duplicate_sources(platform::SafeTree& tree, const std::vector<std::string>& own,
                                                  const std::vector<AptRepo>& repos, const std::string& recipe,
                                                  std::vector<std::string>& notes);

// Parameter checks, exposed for tests: each returns an error for nonsense.
Status check_params(const Recipe& r, const FixParams& params, const Facts& facts);

// --- apply, rollback, undo --------------------------------------------------------

struct ApplyOptions {
  bool run_commands = true;    // false with --root: commands are recorded, not run
  bool live = true;            // live host: take /etc/.pwd.lock as shadow-utils does
  int lock_timeout_ms = 10000;
};

// Applies every pending recipe of plan. targets writes the machine's files; journal
// holds the journal (normally the same tree; tests give either one faulty FsOps).
// Errors (lock, journal unusable) come back before anything was written.
Result<ApplyOutcome> apply_plan(const Plan& plan, const platform::Host& host, platform::SafeTree& targets,
                                platform::SafeTree& journal, const ApplyOptions& options);

// Restores transaction txn (or the newest one applied, interrupted or not completely
// rolled back) byte for byte, change by change. A change that drifted since amdml made
// it (a file edited, a set-aside directory deleted or its old name taken) is not
// clobbered: it is skipped and reported (UndoOutcome::skipped), and every other change
// is still restored. A later chmod or chown is kept (the bytes are restored, the newer
// mode and owner stay; the outcome says so).
Result<UndoOutcome> undo_transaction(const std::optional<std::string>& txn, const platform::Host& host,
                                     platform::SafeTree& targets, platform::SafeTree& journal,
                                     const ApplyOptions& options);

// What became of each finding of the applied recipes (and which findings the change
// brought up), judged from the doctor's findings before and after the apply; nothing
// when the apply failed or wrote nothing.
std::vector<VerifyLine> classify_verify(const Plan& plan, const ApplyOutcome& out, const std::vector<Finding>& before,
                                        const std::vector<Finding>& after);

// Transactions a killed run left in state "applying" that no later apply finished
// (newest last): the plan and --apply mention them, because --undo is what puts their
// files back.
std::vector<std::string> interrupted_transactions(platform::SafeTree& journal);

// What those transactions had been asked to do: (transaction, recipe and parameters).
std::vector<std::pair<std::string, FixRef>> interrupted_requests(platform::SafeTree& journal);

// The commands of rp's recipe that the interrupted transactions it resumes still owe
// (journaled, never finished: killed before or while they ran), added to rp so the
// plan shows them and the apply runs them (RecipePlan::pending() is then true). When
// rp has no file to write, its other commands (which that run did) are dropped.
void add_owed_commands(RecipePlan& rp, platform::SafeTree& journal);

}  // namespace amdml::fix
