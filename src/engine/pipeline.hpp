// What the pipelines share (inside the engine): the session every command opens, the
// doctor's run, the stage timers -v prints, and writing the finished document.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "amdml/check.hpp"
#include "amdml/knowledge.hpp"
#include "amdml/plan.hpp"
#include "amdml/recipe.hpp"
#include "amdml/report.hpp"
#include "engine/engine.hpp"
#include "platform/host.hpp"
#include "platform/safe_tree.hpp"
#include "probes/collect.hpp"

namespace amdml::engine {

// One stage of a pipeline, timed: when it ends, -v prints "amdml: info: stage NAME: T ms".
class Stage {
 public:
  explicit Stage(const char* name);
  ~Stage();
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

// Runs fn() as the stage NAME and returns its result.
template <class Fn>
auto stage(const char* name, Fn&& fn) {
  Stage timer(name);
  return fn();
}

// -v: one line per stage and probe; -vv adds details (verbosity() >= 2).
int verbosity();
void log_info(const std::string& line);
void log_debug(const std::string& line);
// A probe has run: "amdml: info: probe NAME: T ms".
void log_probe(const probes::ProbeSpec& probe, std::chrono::nanoseconds took);

struct Session {
  std::unique_ptr<platform::Host> host;
  Knowledge kb;
  std::string knowledge_source = "built-in";  // "installed" (amdml update) or "recipes" (--recipes DIR)
  std::vector<RecipeFile> recipes;
  // The recipes parsed from `recipes`, once (session_recipes): the advice stage's plan
  // points into them, and `fix` applies that plan.
  mutable std::shared_ptr<const Result<std::vector<Recipe>>> parsed;
};

// The session's recipes, parsed the first time they are asked for.
const Result<std::vector<Recipe>>& session_recipes(const Session& s);

// Stages host and knowledge: opens the host for --root / AMDML_ROOT and loads the
// knowledge base; throws UsageError on bad input.
Session open_session(const GlobalOptions& g);
// Stage knowledge alone: s.recipes and s.kb from --recipes DIR, else the bundle `amdml
// update` installed on the host when it is newer than the built-in tables, else those.
void open_knowledge(const GlobalOptions& g, Session& s);

// Stage probes: every probe in table order on host, each timed.
Facts run_probes(const platform::Host& host, const Knowledge& kb, const probes::ProbeOptions& options);
// Stage rules: the findings on r.facts and their summary (fix references, no plans).
void run_rules(Report& r, const Knowledge& kb);

// How the advice stage plans: the doctor's way (offline, every recipe), or fix's (its
// --only, the initramfs listed, apt's simulation, interrupted transactions resumed).
struct AdviceOptions {
  bool offline = true;
  std::optional<std::string> only;
  platform::SafeTree* tree = nullptr;  // fix's tree; nullptr: one over the host's root
};
// Stage advice: each fixable finding's recipe planned once (fix::advise) through host
// (a recording host for `snapshot`); the findings get their hand commands, a refused
// recipe no `fix:` line. Returns the plan (`fix` applies it).
FixPlan run_advice(Report& r, const Session& s, const platform::Host& host, const AdviceOptions& o = {});
// The knowledge in use and today's date, for the report and `knowledge.stale`.
KnowledgeFacts knowledge_facts(const Session& s);
// The doctor's run: probes, rules, then advice (the session's recipes planned offline;
// with plan, as o says, and the plan kept there).
Report run_doctor(const Session& s, const probes::ProbeOptions& options);
Report run_doctor(const Session& s, const probes::ProbeOptions& options, const AdviceOptions& o, FixPlan& plan);

int doctor_exit_code(const Summary& s, bool strict);
// Whether text on stdout is coloured: --color, then the terminal's policy.
bool want_color(ColorMode mode);

// Writes a document (JSON, JUnit) to --output FILE ("" or "-": stdout) exactly: a regular
// file is replaced atomically, a device or FIFO written through, anything else refused
// (platform/output_file.hpp); throws OutputError.
void emit(const std::string& output_path, const std::string& text);
// Writes text for people (text, Markdown) the same way, through terminal_text: nothing
// from the machine reaches the terminal as a control character; paint()'s colour codes
// survive only when colour is on.
void emit_text(const std::string& output_path, const std::string& text, bool colour = false);

// The gate `amdml check` and `amdml doctor --ci` share (check.cpp): run the doctor,
// evaluate the expectations, print text (never coloured when no_color), JSON or JUnit,
// exit 0 when every check holds and 1 otherwise.
struct GateOptions {
  Format format = Format::text;  // text | json | junit
  std::string output;            // --output FILE ("" or "-": stdout)
  bool no_color = false;         // doctor --ci
  bool quiet = false;            // check --quiet: text is only the failed checks' lines
  probes::ProbeOptions probe;
  Expectations expect;
};
int run_gate(const GlobalOptions& g, const GateOptions& o);

}  // namespace amdml::engine
