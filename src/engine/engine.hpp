// The engine: amdml's pipelines, one function per command, each a short narrated run of
// stages (doctor: host -> knowledge -> probes -> rules -> report) that `-v` times on
// stderr. The command line (src/cli) fills the plain option structs below and calls
// these; nothing here knows about CLI11.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Declared only: the command line sees no probes header (probes/collect.hpp has it).
namespace amdml::probes {
struct ProbeOptions;
}

namespace amdml::engine {

// Documented exit codes (README.md, "Exit codes").
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitNeedRoot = 4;

// A usage or bad-input error: main prints "amdml: error: <message>" and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// --output FILE refused or failed: a usage error that a JSON error document cannot
// follow, since it would go to the same place.
struct OutputError : UsageError {
  using UsageError::UsageError;
};

// --format and --color, parsed once at the command line's edge. Each command accepts a
// subset of the formats (cli/commands.cpp names it; the names come from here).
enum class Format { text, json, markdown, junit, prometheus, nfd };
enum class ColorMode { automatic, always, never };
std::string_view to_string(Format f);
std::string_view to_string(ColorMode c);
std::optional<Format> parse_format(std::string_view name);
std::optional<ColorMode> parse_color(std::string_view name);

struct GlobalOptions {
  std::string root;     // --root / AMDML_ROOT
  std::string recipes;  // --recipes DIR
  ColorMode color = ColorMode::automatic;
  int verbose = 0;      // -v: stages and probes with their times; -vv: details too
};

// The probe flags every command that diagnoses accepts, with the doctor's meaning
// (doctor, fix, snapshot, report): fix plans from what doctor saw.
struct ProbeFlags {
  bool no_runtime = false;
  double runtime_timeout = 10.0;  // seconds, 0.1 to 600 (the command line checks)
  std::string python;
  bool deep = false;
  double deep_timeout = 20.0;     // seconds, 0.1 to 600: the whole of the --deep steps
  probes::ProbeOptions options() const;
  // The flags again as command-line words (" --python /opt/env --deep"), for a command
  // printed to run later; each only when it is not the default.
  std::string args() const;
};
std::chrono::milliseconds runtime_timeout_ms(double seconds);

struct DoctorOptions {
  Format format = Format::text;
  bool strict = false;
  ProbeFlags probe;
  std::string output;
  bool list = false;
  bool ci = false;
};
// amdml doctor: exit 0/1 by findings (--strict: warnings count too).
int doctor(const GlobalOptions& g, const DoctorOptions& o);

struct FixOptions {
  bool apply = false;
  bool yes = false;
  bool list = false;
  std::string only;
  std::optional<std::string> undo;  // --undo [TXN]: "" is the last transaction
  ProbeFlags probe;
  Format format = Format::text;     // text or json (schema amdml.fix/1)
};
// amdml fix: plan, --apply (then verify), --undo, --list.
int fix(const GlobalOptions& g, const FixOptions& o);

struct SnapshotOptions {
  std::string out;
  bool force = false;
  bool no_redact = false;
  ProbeFlags probe;
};
int snapshot(const GlobalOptions& g, const SnapshotOptions& o);

struct ReportOptions {
  Format format = Format::markdown;
  std::string output;
  bool snapshot = false;
  std::string snapshot_file;
  bool no_redact = false;
  bool force = false;
  ProbeFlags probe;
};
int report(const GlobalOptions& g, const ReportOptions& o);

struct ExplainOptions {
  std::string subject;  // the words given, joined by blanks; "-": an error text on stdin
  Format format = Format::text;
  ProbeFlags probe;     // an error text is checked on the machine with the doctor's probes
};
int explain(const GlobalOptions& g, const ExplainOptions& o);

struct InfoOptions {
  Format format = Format::text;
  bool no_runtime = false;
  double runtime_timeout = 10.0;
  std::string output;
};
int info(const GlobalOptions& g, const InfoOptions& o);

struct CheckOptions {
  Format format = Format::text;
  std::string output;
  bool strict = false;
  bool no_runtime = false;
  double runtime_timeout = 10.0;
  std::optional<int> expect_gpus;
  std::vector<std::string> expect_gfx;
  std::string min_vram;
  std::string min_gtt;
  std::vector<std::string> require;
  std::string rocm;
  std::vector<std::string> targets;  // --target: the image gate
  bool quiet = false;
  bool deep = false;
  double deep_timeout = 20.0;
};
int check(const GlobalOptions& g, const CheckOptions& o);

struct UpdateOptions {
  std::string url;      // --url: else /etc/amdml/update.conf, else the build's AMDML_UPDATE_URL
  std::string keyring;  // --keyring: else update.conf, else the build's AMDML_UPDATE_KEYRING
  bool check = false;   // --check: download and verify, say whether it is newer, change nothing
  bool rollback = false;
};
// amdml update: 0 installed, up to date or rolled back; 1 failed (nothing changed, one
// line on stderr); 2 usage; 4 needs root (live, not --check).
int update(const GlobalOptions& g, const UpdateOptions& o);

// The hidden children of the runtime probes: one JSON document on stdout, then _Exit(0).
[[noreturn]] void probe_hsa_child();
[[noreturn]] void probe_drm_child(const std::vector<std::string>& nodes);

// `amdml __deep-hsa STEP`: one deep step in a child (docs/deep.md), printed as one JSON
// line (formats/deep_record.hpp), then _Exit(0). Bad arguments print a failed step.
struct DeepChildOptions {
  std::string step;                 // memory | copy | fill
  int agent = 0;                    // index among the runtime's GPU agents
  std::uint64_t system_limit = 0;   // bytes the GTT/TTM limit promises (memory)
  bool apu = false;
  std::uint64_t timeout_ms = 5000;
  std::string meminfo = "/proc/meminfo";
};
[[noreturn]] void deep_hsa_child(const DeepChildOptions& o);

// Text on stdout as it is (--help, --version).
void print(std::string_view text);
// "amdml: error: MESSAGE" (or another prefix) on stderr, the message made terminal-safe.
void error_line(const std::string& message, const char* prefix = "amdml: error: ");

// "WHAT needs root. Run:" and the command on its own line (already shell-quoted), on
// stderr; returns kExitNeedRoot so callers can `return need_root_line(...)`.
int need_root_line(const std::string& what, const std::string& command);

// -v / -vv (GlobalOptions::verbose): where the stage and probe times go (stderr).
void set_verbosity(int level);

}  // namespace amdml::engine
