// The CLI layer: global options, the session every command opens (host + knowledge),
// and the table of subcommands. Each command lives in its own cmd_<name>.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "amdml/check.hpp"
#include "platform/host.hpp"
#include "amdml/knowledge.hpp"
#include "probes/collect.hpp"
#include "amdml/report.hpp"

namespace amdml::cli {

// Documented exit codes (DESIGN.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitNeedRoot = 4;

struct GlobalOptions {
  std::string root;     // --root / AMDML_ROOT
  std::string recipes;  // --recipes DIR
  std::string color = "auto";
  int verbose = 0;
};

// A usage or bad-input error: main prints "amdml: error: <message>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// --output FILE refused or failed: a usage error that a JSON error document cannot
// follow, since it would go to the same place.
struct OutputError : UsageError {
  using UsageError::UsageError;
};

struct Session {
  std::unique_ptr<Host> host;
  Knowledge kb;
  std::vector<RecipeFile> recipes;
};

// Opens the host and loads the knowledge base; throws UsageError on bad input.
Session open_session(const GlobalOptions& g);

// Collects facts and diagnoses them.
Report run_doctor(const Session& s, const ProbeOptions& options);

// Writes a document (JSON, JUnit) to --output FILE ("" or "-": stdout) exactly: a regular
// file is replaced atomically, a device or FIFO written through, anything else refused
// (platform/output_file.hpp); throws UsageError.
void emit(const std::string& output_path, const std::string& text);
// Writes text for people (text, Markdown) the same way, through terminal_text: nothing
// from the machine reaches the terminal as a control character; paint()'s colour codes
// survive only when colour is on.
void emit_text(const std::string& output_path, const std::string& text, bool colour = false);
// "amdml: error: MESSAGE" (or another prefix) on stderr, the message made terminal-safe.
void error_line(const std::string& message, const char* prefix = "amdml: error: ");

// --runtime-timeout SECONDS, the same for every command that probes: a finite number
// from 0.1 to 600 (nan, inf, 0 and negatives are one-line usage errors, exit 2).
void add_runtime_timeout(CLI::App& sub, double& seconds);
std::chrono::milliseconds runtime_timeout_ms(double seconds);

// The probe flags every command that diagnoses accepts, with the doctor's meaning
// (doctor, fix, snapshot, report): fix plans from what doctor saw.
struct ProbeFlags {
  bool no_runtime = false;
  double runtime_timeout = 10.0;
  std::string python;
  bool deep = false;
  void add_to(CLI::App& sub);
  ProbeOptions options() const;
  // The flags again as command-line words (" --python /opt/env --deep"), for a command
  // printed to run later; each only when it is not the default.
  std::string args() const;
};

using CommandRunner = std::function<int()>;

struct CommandSpec {
  const char* name;
  const char* help;
  // Declares the subcommand's flags on sub; returns what runs it.
  CommandRunner (*setup)(CLI::App& sub, const GlobalOptions& g);
};

const std::vector<CommandSpec>& command_table();

// Per-command setup functions (one file each).
CommandRunner setup_doctor(CLI::App& sub, const GlobalOptions& g);
CommandRunner setup_snapshot(CLI::App& sub, const GlobalOptions& g);  // cmd_snapshot.cpp
CommandRunner setup_report(CLI::App& sub, const GlobalOptions& g);    // cmd_report.cpp
CommandRunner setup_explain(CLI::App& sub, const GlobalOptions& g);  // cmd_explain.cpp
CommandRunner setup_info(CLI::App& sub, const GlobalOptions& g);        // cmd_info.cpp
CommandRunner setup_probe_hsa(CLI::App& sub, const GlobalOptions& g);   // cmd_probe_child.cpp (hidden)
CommandRunner setup_probe_drm(CLI::App& sub, const GlobalOptions& g);   // cmd_probe_child.cpp (hidden)
CommandRunner setup_fix(CLI::App& sub, const GlobalOptions& g);
CommandRunner setup_check(CLI::App& sub, const GlobalOptions& g);

// The gate `amdml check` and `amdml doctor --ci` share (cmd_check.cpp): run the doctor,
// evaluate the expectations, print text (never coloured when no_color), JSON or JUnit,
// exit 0 when every check holds and 1 otherwise.
struct GateOptions {
  std::string format = "text";  // text | json | junit
  std::string output;           // --output FILE ("" or "-": stdout)
  bool no_color = false;        // doctor --ci
  bool quiet = false;           // check --quiet: text is only the failed checks' lines
  ProbeOptions probe;
  Expectations expect;
};
int run_gate(const GlobalOptions& g, const GateOptions& o);

}  // namespace amdml::cli
