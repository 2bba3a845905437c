// The gate `amdml check` (and `amdml doctor --ci`) applies: the doctor's findings plus
// the expectations a CI job or a Dockerfile states on the command line (how many GPUs,
// which gfx targets, how much memory, which ROCm, whether the HSA runtime sees them).
//
// Evaluation is a pure function of a Report and the Expectations; it yields one
// CheckCase per doctor check (every finding id in the catalog) and per expectation, in
// a stable order, which the text, JSON and JUnit renderers print. Parsing the flag values
// lives here too so a bad value is a one-line usage error before anything is probed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/gfx.hpp"
#include "amdml/report.hpp"
#include "base/result.hpp"
#include "amdml/units.hpp"
#include "amdml/version.hpp"

namespace amdml {

// One comparison of a version constraint: ">=6.4", "<7". The version is compared at the
// precision it was written with: "==6.4" holds for 6.4.0 and 6.4.3, "<=6" for any 6.x.
struct VersionConstraint {
  enum class Op { ge, gt, le, lt, eq };
  Op op = Op::ge;
  Version version;
  int parts = 3;  // how many of major.minor.patch were written (1..3)
  bool holds(const Version& v) const;
  std::string str() const;  // ">=6.4"
};

// ">=6.4", ">= 6.2, <7", "==6.4.1". Every constraint needs an operator.
Result<std::vector<VersionConstraint>> parse_version_spec(std::string_view spec);

struct Expectations {
  std::optional<int> gpus;                 // --expect-gpus N: exactly N GPUs usable by ROCm
  std::vector<GfxTarget> gfx;              // --expect-gfx (repeatable)
  std::optional<Bytes> min_vram;           // --min-vram: every usable GPU
  std::optional<Bytes> min_gtt;            // --min-gtt: every usable GPU
  bool require_runtime = false;            // --require runtime: HSA enumerates every expected GPU
  bool require_compute = false;            // --require compute: every usable GPU passed the --deep steps
  std::vector<VersionConstraint> rocm;     // --rocm
  std::string rocm_text;                   // the spec as given, for messages
  bool strict = false;                     // --strict: warnings fail too
};

enum class CheckStatus { passed, failed, skipped };
const char* to_string(CheckStatus s);

struct CheckCase {
  std::string suite;    // "doctor" (a finding id) or "expect" (a flag)
  std::string name;     // "gpu.none", "expect-gpus 8"
  CheckStatus status = CheckStatus::passed;
  std::string message;  // one line: why it failed or was skipped ("" when it passed)
  std::string output;   // more lines worth showing (the findings' detail, warnings that did not fail)
};

struct CheckReport {
  std::vector<CheckCase> cases;
  int count(CheckStatus s) const;
  bool passed() const { return count(CheckStatus::failed) == 0; }
};

// Every case, doctor checks first (finding catalog order), then expectations in flag
// order: GPUs, gfx, VRAM, GTT, runtime, compute, ROCm.
CheckReport evaluate_checks(const Report& report, const Expectations& e);

// A GPU ROCm can use here: KFD has a node for it and, when the device nodes are known,
// its render node exists (a container may have been given only some GPUs).
bool gpu_usable(const Facts& f, std::size_t index);

}  // namespace amdml
