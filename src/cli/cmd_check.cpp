// amdml check: the doctor as a gate. Expectations come as flags and are parsed before
// anything is probed, so a bad value is a usage error (exit 2) and never a half report.
// Exit 0 only when every doctor check and every expectation holds, else 1; each failed
// one is one line (in the text report, or on stderr when stdout carries JSON or JUnit).
#include <algorithm>
#include <cstdio>
#include <functional>

#include "probes/probes.hpp"
#include "rules/image_check.hpp"
#include "model/knowledge_search.hpp"
#include "render/render.hpp"
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
  std::vector<std::string> targets;  // --target: the image gate
  bool quiet = false;
  bool deep = false;
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

// --quiet: one line per failed case and nothing else (an image's ENTRYPOINT prints
// nothing when all is well).
std::string failure_lines(const CheckReport& check) {
  std::string out;
  for (const auto& c : check.cases)
    if (c.status == CheckStatus::failed) out += "amdml: check failed: " + c.name + ": " + c.message + "\n";
  return out;
}

// Writes the gate's document (JSON, JUnit, --quiet lines, or the text `text` renders)
// and returns the exit code. The one-line reasons also go to stderr when stdout is a
// document or the report goes to a file.
int emit_gate(const GlobalOptions& g, const GateOptions& o, const Report& r, const CheckReport& check,
              const std::function<std::string(const TextStyle&)>& text) {
  bool to_stdout = o.output.empty() || o.output == "-";
  if (o.format == "json") {
    auto j = report_json(r);
    j["check"] = check_json(check);
    emit(o.output, json_text(j) + "\n");
  } else if (o.format == "junit") {
    emit(o.output, render_junit(r, check));
  } else if (o.quiet) {
    emit_text(o.output, failure_lines(check));
  } else {
    TextStyle style;
    style.color = !o.no_color && to_stdout && platform::want_color(g.color);
    emit_text(o.output, text(style), style.color);
  }
  if ((o.format != "text" && !o.quiet) || !to_stdout)
    for (const auto& c : check.cases)
      if (c.status == CheckStatus::failed)
        error_line(c.name + ": " + c.message, "amdml: check failed: ");
  return check.passed() ? kExitOk : kExitFindings;
}

std::string image_check_text(const std::vector<GfxTarget>& targets, const CheckReport& check, const TextStyle& s) {
  std::string list;
  for (const auto& t : targets) list += (list.empty() ? "" : ", ") + t.name();
  std::string out = paint(s, Color::bold, "Image checks for " + list) + " (no GPU needed)\n";
  std::string ok = paint(s, Color::green, s.unicode ? "✓" : "ok");
  std::string bad = paint(s, Color::red, s.unicode ? "✗" : "x");
  for (const auto& c : check.cases) {
    if (c.status == CheckStatus::failed) out += "  " + bad + " " + c.name + ": " + c.message + "\n";
    else if (c.status == CheckStatus::skipped) out += "  - " + c.name + ": skipped, " + c.message + "\n";
    else out += "  " + ok + " " + c.name + "\n";
  }
  int failed = check.count(CheckStatus::failed);
  out += "\n" + (failed ? paint(s, Color::red, "check: FAILED") + " (" + std::to_string(failed) + " failed, "
                         : paint(s, Color::green, "check: passed") + " (") +
         std::to_string(check.count(CheckStatus::passed)) + " passed";
  if (int sk = check.count(CheckStatus::skipped)) out += ", " + std::to_string(sk) + " skipped";
  return out + ")\n";
}

// `check --target`: the image itself, not the hardware (rules/image_check.hpp).
int run_image_gate(const GlobalOptions& g, const CheckFlags& c) {
  GateOptions o;
  o.format = c.format;
  o.output = c.output;
  o.quiet = c.quiet;
  Session s;
  try {
    s = open_session(g);
  } catch (const UsageError& e) {
    emit_start_failure(o, e.what());
    throw;
  }
  std::vector<GfxTarget> targets;
  for (const auto& name : c.targets) {
    auto t = GfxTarget::parse_name(name);
    if (!t || !s.kb.find_gfx(*t)) {
      std::vector<std::string> known;
      for (const auto& gi : s.kb.gfx) known.push_back(gi.target.name());
      auto near = nearest(name, known);
      std::string msg = "--target " + name + ": not a gfx target amdml knows";
      if (!near.empty()) msg += " (did you mean " + near.front() + "?)";
      throw UsageError(msg);
    }
    if (std::find(targets.begin(), targets.end(), *t) == targets.end()) targets.push_back(*t);
  }
  ProbeOptions po;
  po.runtime = false;  // no GPU in an image build; the runtime has nothing to enumerate
  po.deep = c.deep;
  Report r = run_doctor(s, po);
  ImageFacts image = probes::image(*s.host, r.facts);
  CheckReport check = evaluate_image(r.facts, image, s.kb, targets);
  return emit_gate(g, o, r, check, [&](const TextStyle& style) { return image_check_text(targets, check, style); });
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
  return emit_gate(g, o, r, check,
                   [&](const TextStyle& style) { return render_text(r, style) + render_check_text(check, style); });
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
  sub.add_option("--target", c->targets,
                 "Check the image, not the hardware (no GPU needed, e.g. in docker build): ROCm, rocBLAS/hipBLASLt/MIOpen "
                 "kernels, PyTorch and ollama have this gfx target, and HSA_OVERRIDE_GFX_VERSION fits it (repeatable)");
  sub.add_flag("--quiet,-q", c->quiet, "Print only the failed checks, one line each (nothing when all pass)");
  sub.add_flag("--deep", c->deep, "Import torch in a child process for its arch list (--target) and what it sees");
  return [c, &g]() -> int {
    if (!c->targets.empty()) {
      if (c->expect_gpus || !c->expect_gfx.empty() || !c->min_vram.empty() || !c->min_gtt.empty() ||
          !c->require.empty() || !c->rocm.empty())
        throw UsageError(
            "--target checks an image without a GPU: it does not combine with --expect-*, --min-*, --require or --rocm");
      return run_image_gate(g, *c);
    }
    GateOptions o;
    o.expect = expectations(*c);
    o.format = c->format;
    o.output = c->output;
    o.probe.runtime = !c->no_runtime;
    o.probe.runtime_timeout = runtime_timeout_ms(c->runtime_timeout);
    o.probe.deep = c->deep;
    o.quiet = c->quiet;
    return run_gate(g, o);
  };
}

}  // namespace amdml::cli
