// amdml check: the doctor as a gate. Expectations come as flags and are parsed before
// anything is probed, so a bad value is a usage error (exit 2) and never a half report.
// Exit 0 only when every doctor check and every expectation holds, else 1; each failed
// one is one line (in the text report, or on stderr when stdout carries JSON or JUnit).
#include <cstdio>

#include "amdml/render.hpp"
#include "cli/cli.hpp"
#include "platform/terminal.hpp"

namespace amdml::cli {

namespace {

struct CheckFlags {
  std::string format = "text";
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
};

Bytes size_flag(const char* flag, const std::string& text) {
  Bytes b;
  if (!parse_bytes(text, b)) throw UsageError(std::string(flag) + " " + text + ": not a size like 64GiB, 512MiB or 1.5TiB");
  return b;
}

Expectations expectations(const CheckFlags& c) {
  Expectations e;
  e.strict = c.strict;
  e.gpus = c.expect_gpus;
  for (const auto& name : c.expect_gfx) {
    auto t = GfxTarget::parse_name(name);
    if (!t) throw UsageError("--expect-gfx " + name + ": not a gfx target like gfx942 or gfx1100");
    e.gfx.push_back(*t);
  }
  if (!c.min_vram.empty()) e.min_vram = size_flag("--min-vram", c.min_vram);
  if (!c.min_gtt.empty()) e.min_gtt = size_flag("--min-gtt", c.min_gtt);
  for (const auto& r : c.require)
    if (r == "runtime") e.require_runtime = true;
  if (e.require_runtime && c.no_runtime) throw UsageError("--require runtime needs the runtime probe: drop --no-runtime");
  if (!c.rocm.empty()) {
    auto spec = parse_version_spec(c.rocm);
    if (!spec) throw UsageError("--rocm " + spec.error().message);
    e.rocm = std::move(*spec);
    e.rocm_text = c.rocm;
  }
  return e;
}

// The run could not start (bad --root, broken manifest): the document CI expects still
// appears, saying so, and the usage error propagates to exit 2.
void emit_start_failure(const GateOptions& o, const std::string& message) {
  if (o.format == "json") emit(o.output, json_text(error_json(message)) + "\n");
  else if (o.format == "junit") emit(o.output, render_junit_error(message));
}

}  // namespace

int run_gate(const GlobalOptions& g, const GateOptions& o) {
  Report r;
  try {
    Session s = open_session(g);
    r = run_doctor(s, o.probe);
  } catch (const UsageError& e) {
    emit_start_failure(o, e.what());
    throw;
  }
  CheckReport check = evaluate_checks(r, o.expect);
  bool to_stdout = o.output.empty() || o.output == "-";
  if (o.format == "json") {
    auto j = report_json(r);
    j["check"] = check_json(check);
    emit(o.output, json_text(j) + "\n");
  } else if (o.format == "junit") {
    emit(o.output, render_junit(r, check));
  } else {
    TextStyle style;
    style.color = !o.no_color && to_stdout && platform::want_color(g.color);
    emit_text(o.output, render_text(r, style) + render_check_text(check, style), style.color);
  }
  // The one-line reasons go where a CI log shows them when stdout is a document or a file.
  if (o.format != "text" || !to_stdout)
    for (const auto& c : check.cases)
      if (c.status == CheckStatus::failed)
        error_line(c.name + ": " + c.message, "amdml: check failed: ");
  return check.passed() ? kExitOk : kExitFindings;
}

CommandRunner setup_check(CLI::App& sub, const GlobalOptions& g) {
  auto c = std::make_shared<CheckFlags>();
  sub.add_option("--expect-gpus", c->expect_gpus, "Exactly N GPUs must be usable by ROCm")->check(CLI::NonNegativeNumber);
  sub.add_option("--expect-gfx", c->expect_gfx,
                 "A gfx target that must be present (repeatable); together they must cover every usable GPU");
  sub.add_option("--min-vram", c->min_vram, "Every usable GPU has at least SIZE of VRAM (64GiB, 512MiB)");
  sub.add_option("--min-gtt", c->min_gtt, "Every usable GPU has a GTT limit of at least SIZE");
  sub.add_option("--require", c->require, "runtime: the HSA runtime must initialise and enumerate every expected GPU")
      ->check(CLI::IsMember({"runtime"}));
  sub.add_option("--rocm", c->rocm, "ROCm version constraint: \">=6.4\", \">=6.2,<7\", \"==6.4\"");
  sub.add_flag("--strict", c->strict, "Warnings fail too, not only errors");
  sub.add_option("--format,-f", c->format, "Output format: text (default), json (amdml.doctor/1 plus \"check\") or junit")
      ->check(CLI::IsMember({"text", "json", "junit"}));
  sub.add_option("--output,-o", c->output, "Write the report to FILE instead of stdout");
  sub.add_flag("--no-runtime", c->no_runtime, "Skip the HSA runtime and libdrm probes (sysfs and files only)");
  add_runtime_timeout(sub, c->runtime_timeout);
  return [c, &g]() -> int {
    GateOptions o;
    o.expect = expectations(*c);
    o.format = c->format;
    o.output = c->output;
    o.probe.runtime = !c->no_runtime;
    o.probe.runtime_timeout = runtime_timeout_ms(c->runtime_timeout);
    return run_gate(g, o);
  };
}

}  // namespace amdml::cli
