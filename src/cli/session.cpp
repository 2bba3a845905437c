// Opening a session: the host for --root / AMDML_ROOT and the knowledge base.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/cli.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "fix/fix.hpp"
#include "formats/recipe_toml.hpp"
#include "formats/system_files.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"
#include "platform/output_file.hpp"
#include "platform/terminal.hpp"

namespace amdml::cli {

Session open_session(const GlobalOptions& g) {
  Session s;
  std::string root = g.root;
  if (root.empty())
    if (auto env = platform::process_env("AMDML_ROOT")) root = *env;
  auto host = make_host(root.empty() ? "/" : root);
  if (!host) throw UsageError(host.error().message);
  s.host = std::move(*host);
  auto files = recipe_files(g.recipes);
  if (!files) throw UsageError(files.error().message);
  s.recipes = std::move(*files);
  auto kb = load_knowledge(s.recipes);
  if (!kb) throw UsageError(kb.error().message);
  s.kb = std::move(*kb);
  return s;
}

void add_runtime_timeout(CLI::App& sub, double& seconds) {
  // CLI::Range alone lets nan through: every comparison with it is false.
  auto seconds_in_range = [](std::string& text) -> std::string {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0.1 || v > 600.0)
      return "must be a number of seconds from 0.1 to 600, got '" + text + "'";
    return {};
  };
  sub.add_option("--runtime-timeout", seconds, "Seconds the runtime probe may take before it is killed (default 10)")
      ->check(CLI::Validator(seconds_in_range, "SECONDS"));
}

void ProbeFlags::add_to(CLI::App& sub) {
  sub.add_flag("--no-runtime", no_runtime, "Skip the HSA runtime and libdrm probes (sysfs and files only)");
  add_runtime_timeout(sub, runtime_timeout);
  sub.add_option("--python", python, "A Python interpreter or environment to inspect for PyTorch");
  sub.add_flag("--deep", deep, "Import torch in a child process and report what it sees (slower)");
}

ProbeOptions ProbeFlags::options() const {
  ProbeOptions po;
  po.runtime = !no_runtime;
  po.runtime_timeout = runtime_timeout_ms(runtime_timeout);
  if (!python.empty()) po.python = python;
  po.deep = deep;
  return po;
}

std::string ProbeFlags::args() const {
  std::string out;
  if (no_runtime) out += " --no-runtime";
  if (runtime_timeout != ProbeFlags{}.runtime_timeout) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", runtime_timeout);
    out += std::string(" --runtime-timeout ") + buf;
  }
  if (!python.empty()) out += " --python " + text::shell_word(python);
  if (deep) out += " --deep";
  return out;
}

std::chrono::milliseconds runtime_timeout_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
}

Report run_doctor(const Session& s, const ProbeOptions& options) {
  Report r;
  r.facts = collect_facts(*s.host, s.kb, options);
  r.findings = diagnose(r.facts, s.kb);
  // A finding a recipe fixes tells the person the recipe's own files and values by hand
  // (a broken recipe set is `amdml fix`'s error to report; the diagnosis stands without).
  if (auto recipes = load_recipes(s.recipes)) fix::derive_hand_commands(*recipes, r.findings);
  r.summary = summarize(r.findings);
  return r;
}

void emit(const std::string& output_path, const std::string& text) {
  if (output_path.empty() || output_path == "-") {
    write_stdout(text);
    return;
  }
  if (auto st = platform::write_output_file(output_path, text); !st)
    throw OutputError("--output " + output_path + ": " + st.error().message);
}

void emit_text(const std::string& output_path, const std::string& text, bool colour) {
  emit(output_path, terminal_text(text, colour));
}

void error_line(const std::string& message, const char* prefix) {
  std::string line = prefix + terminal_text(message, false) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace amdml::cli
