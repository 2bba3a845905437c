// amdml check: the doctor as a gate. Expectations come as flags and are parsed before
// anything is probed, so a bad value is a usage error (exit 2) and never a half report.
// Exit 0 only when every doctor check and every expectation holds, else 1; each failed
// one is one line (in the text report, or on stderr when stdout carries JSON or JUnit).
#include <algorithm>
#include <cstdio>
#include <functional>

#include "engine/pipeline.hpp"
#include "model/knowledge_search.hpp"
#include "platform/terminal.hpp"
#include "probes/probes.hpp"
#include "render/render.hpp"
#include "rules/image_check.hpp"

namespace amdml::engine {

namespace {

Bytes size_flag(const char* flag, const std::string& text) {
  Bytes b;
  if (!parse_bytes(text, b)) throw UsageError(std::string(flag) + " " + text + ": not a size like 64GiB, 512MiB or 1.5TiB");
  return b;
}

Expectations expectations(const CheckOptions& c) {
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
  for (const auto& r : c.require) {
    if (r == "runtime") e.require_runtime = true;
    if (r == "compute") e.require_compute = true;
  }
  if (e.require_runtime && c.no_runtime) throw UsageError("--require runtime needs the runtime probe: drop --no-runtime");
  if (e.require_compute && c.no_runtime) throw UsageError("--require compute runs on the GPU through the runtime: drop --no-runtime");
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
  if (o.format == Format::json) emit(o.output, render::json_text(render::error_json(message)) + "\n");
  else if (o.format == Format::junit) emit(o.output, render::render_junit_error(message));
}

// --quiet: one line per failed case and nothing else (an image's ENTRYPOINT prints
// nothing when all is well).
std::string failure_lines(const CheckReport& check) {
  std::string out;
  for (const auto& c : check.cases)
    if (c.status == CheckStatus::failed) out += "amdml: check failed: " + render::line_text(c.name + ": " + c.message) + "\n";
  return out;
}

// Writes the gate's document (JSON, JUnit, --quiet lines, or the text `text` renders)
// and returns the exit code. The one-line reasons also go to stderr when stdout is a
// document or the report goes to a file.
int emit_gate(const GlobalOptions& g, const GateOptions& o, const Report& r, const CheckReport& check,
              const std::function<std::string(const render::TextStyle&)>& text) {
  bool to_stdout = o.output.empty() || o.output == "-";
  if (o.format == Format::json) {
    auto j = render::report_json(r);
    j["check"] = render::check_json(check);
    emit(o.output, render::json_text(j) + "\n");
  } else if (o.format == Format::junit) {
    emit(o.output, render::render_junit(r, check));
  } else if (o.quiet) {
    emit_text(o.output, failure_lines(check));
  } else {
    render::TextStyle style;
    style.color = !o.no_color && to_stdout && want_color(g.color);
    emit_text(o.output, text(style), style.color);
  }
  if ((o.format != Format::text && !o.quiet) || !to_stdout)
    for (const auto& c : check.cases)
      if (c.status == CheckStatus::failed)
        error_line(c.name + ": " + c.message, "amdml: check failed: ");
  return check.passed() ? kExitOk : kExitFindings;
}

std::string image_check_text(const std::vector<GfxTarget>& targets, const CheckReport& check, const render::TextStyle& s) {
  std::string list;
  for (const auto& t : targets) list += (list.empty() ? "" : ", ") + t.name();
  std::string out = render::paint(s, render::Color::bold, "Image checks for " + list) + " (no GPU needed)\n";
  std::string ok = paint(s, render::Color::green, s.unicode ? "✓" : "ok");
  std::string bad = paint(s, render::Color::red, s.unicode ? "✗" : "x");
  for (const auto& c : check.cases) {
    if (c.status == CheckStatus::failed) out += "  " + bad + " " + render::line_text(c.name + ": " + c.message) + "\n";
    else if (c.status == CheckStatus::skipped) out += "  - " + render::line_text(c.name + ": skipped, " + c.message) + "\n";
    else out += "  " + ok + " " + render::line_text(c.name) + "\n";
  }
  int failed = check.count(CheckStatus::failed);
  out += "\n" + (failed ? paint(s, render::Color::red, "check: FAILED") + " (" + std::to_string(failed) + " failed, "
                         : paint(s, render::Color::green, "check: passed") + " (") +
         std::to_string(check.count(CheckStatus::passed)) + " passed";
  if (int sk = check.count(CheckStatus::skipped)) out += ", " + std::to_string(sk) + " skipped";
  return out + ")\n";
}

// `check --target`: the image itself, not the hardware (rules/image_check.hpp).
int run_image_gate(const GlobalOptions& g, const CheckOptions& c) {
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
  probes::ProbeOptions po;
  po.runtime = false;  // no GPU in an image build; the runtime has nothing to enumerate
  po.deep = c.deep;
  po.deep_timeout = runtime_timeout_ms(c.deep_timeout);  // the torch child runs within it (docs/deep.md)
  Report r = run_doctor(s, po);
  ImageFacts image = stage("image", [&] { return probes::image(*s.host, r.facts); });
  CheckReport check = stage("checks", [&] { return evaluate_image(r.facts, image, s.kb, targets); });
  Stage timer("report");
  return emit_gate(g, o, r, check, [&](const render::TextStyle& style) { return image_check_text(targets, check, style); });
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
  CheckReport check = stage("checks", [&] { return evaluate_checks(r, o.expect); });
  Stage timer("report");
  return emit_gate(g, o, r, check,
                   [&](const render::TextStyle& style) { return render_text(r, style) + render_check_text(check, style); });
}

int check(const GlobalOptions& g, const CheckOptions& c) {
  if (!c.targets.empty()) {
    if (c.expect_gpus || !c.expect_gfx.empty() || !c.min_vram.empty() || !c.min_gtt.empty() || !c.require.empty() ||
        !c.rocm.empty())
      throw UsageError(
          "--target checks an image without a GPU: it does not combine with --expect-*, --min-*, --require or --rocm");
    return run_image_gate(g, c);
  }
  GateOptions o;
  o.expect = expectations(c);
  o.format = c.format;
  o.output = c.output;
  o.probe.runtime = !c.no_runtime;
  o.probe.runtime_timeout = runtime_timeout_ms(c.runtime_timeout);
  o.probe.deep = c.deep || o.expect.require_compute;
  o.probe.deep_timeout = runtime_timeout_ms(c.deep_timeout);
  o.quiet = c.quiet;
  return run_gate(g, o);
}

}  // namespace amdml::engine
