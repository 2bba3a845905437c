// Opening a session (the host for --root / AMDML_ROOT and the knowledge base), the
// doctor's run, and writing what a pipeline produced.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/text.hpp"
#include "engine/pipeline.hpp"
#include "fix/fix.hpp"
#include "formats/recipe_toml.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/embedded.hpp"
#include "platform/knowledge_store.hpp"
#include "platform/output_file.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/terminal.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"

namespace amdml::engine {

Session open_session(const GlobalOptions& g) {
  Session s;
  stage("host", [&] {
    std::string root = g.root;
    if (root.empty())
      if (auto env = platform::process_env("AMDML_ROOT")) root = *env;
    auto host = platform::make_host(root.empty() ? "/" : root);
    if (!host) throw UsageError(host.error().message);
    s.host = std::move(*host);
    if (verbosity() >= 2) log_debug("host: " + std::string(s.host->live() ? "this machine" : "--root " + s.host->root()));
  });
  open_knowledge(g, s);
  return s;
}

// A bundle `amdml update` installed replaces the built-in tables when it is newer (a
// package upgrade can bring newer built-in knowledge than an old bundle); the tables are
// then not built at all. One that cannot be read leaves the built-in tables in use, with
// a warning: the doctor still runs. Returns whether it took the installed bundle.
static bool use_installed_knowledge(Session& s) {
  auto installed = platform::read_installed_knowledge(*s.host);
  if (!installed) {
    error_line("the installed knowledge is unreadable, using the built-in knowledge: " + installed.error().message,
               "amdml: warning: ");
    return false;
  }
  if (!*installed || !((*installed)->meta.date > platform::builtin_knowledge_meta().date)) return false;
  s.kb = std::move(**installed);
  s.knowledge_source = "installed";
  return true;
}

void open_knowledge(const GlobalOptions& g, Session& s) {
  stage("knowledge", [&] {
    auto files = platform::recipe_files(g.recipes);
    if (!files) throw UsageError(files.error().message);
    s.recipes = std::move(*files);
    if (g.recipes.empty()) {
      if (!s.host || !use_installed_knowledge(s)) s.kb = platform::builtin_knowledge();  // the same files, compiled at build time
    } else {
      auto kb = formats::load_knowledge(s.recipes);
      if (!kb) throw UsageError(kb.error().message);
      s.kb = std::move(*kb);
      s.knowledge_source = "recipes";
    }
    if (verbosity() >= 2)
      log_debug("knowledge: " + std::to_string(s.recipes.size()) + " files" +
                (g.recipes.empty() ? std::string(" (built in)") : " from " + g.recipes));
  });
}

Facts run_probes(const platform::Host& host, const Knowledge& kb, const probes::ProbeOptions& options) {
  return stage("probes", [&] { return probes::collect_facts(host, kb, options, log_probe); });
}

void run_rules(Report& r, const Knowledge& kb) {
  stage("rules", [&] {
    r.findings = diagnose(r.facts, kb);
    r.summary = summarize(r.findings);
  });
  if (verbosity() >= 2)
    log_debug("findings: " + std::to_string(r.summary.errors) + " errors, " + std::to_string(r.summary.warnings) +
              " warnings, " + std::to_string(r.summary.infos) + " infos");
}

const Result<std::vector<Recipe>>& session_recipes(const Session& s) {
  if (!s.parsed) s.parsed = std::make_shared<const Result<std::vector<Recipe>>>(formats::load_recipes(s.recipes));
  return *s.parsed;
}

FixPlan run_advice(Report& r, const Session& s, const platform::Host& host, const AdviceOptions& o) {
  return stage("advice", [&]() -> FixPlan {
    // Parsed only when some finding has a recipe (most runs have none), or fix asked.
    // (Or a pending TTM limit: an interrupted apply may still owe its commands.)
    const bool any_fix = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
      return f.fix.has_value() || f.id == FindingId::memory_ttm_pending;
    });
    if (!any_fix && o.offline) return {};
    // A broken recipe set is `amdml fix`'s error to report; the diagnosis stands without.
    const auto& recipes = session_recipes(s);
    if (!recipes) return {};
    std::optional<platform::SafeTree> own;
    platform::SafeTree* tree = o.tree;
    if (!tree) tree = &own.emplace(host.root());
    fix::AdviceInputs in{host, *tree, r.facts, *recipes, o.only, o.offline};
    FixPlan plan = fix::advise(in, r.findings);
    r.summary = summarize(r.findings);
    return plan;
  });
}

KnowledgeFacts knowledge_facts(const Session& s) {
  KnowledgeFacts k{s.kb.meta.date, s.kb.meta.format, s.knowledge_source, std::nullopt};
  if (s.host) k.today = platform::host_today(*s.host);
  return k;
}

Report run_doctor(const Session& s, const probes::ProbeOptions& options) {
  Report r;
  r.facts = run_probes(*s.host, s.kb, options);
  r.facts.knowledge = knowledge_facts(s);
  run_rules(r, s.kb);
  (void)run_advice(r, s, *s.host);
  return r;
}

Report run_doctor(const Session& s, const probes::ProbeOptions& options, const AdviceOptions& o, FixPlan& plan) {
  Report r;
  r.facts = run_probes(*s.host, s.kb, options);
  r.facts.knowledge = knowledge_facts(s);
  run_rules(r, s.kb);
  plan = run_advice(r, s, *s.host, o);
  return r;
}

int doctor_exit_code(const Summary& s, bool strict) {
  if (s.errors > 0) return kExitFindings;
  if (strict && s.warnings > 0) return kExitFindings;
  return kExitOk;
}

bool want_color(ColorMode mode) {
  switch (mode) {
    case ColorMode::always: return true;
    case ColorMode::never: return false;
    case ColorMode::automatic: break;
  }
  return platform::stdout_wants_color();
}

probes::ProbeOptions ProbeFlags::options() const {
  probes::ProbeOptions po;
  po.runtime = !no_runtime;
  po.runtime_timeout = runtime_timeout_ms(runtime_timeout);
  if (!python.empty()) po.python = python;
  po.deep = deep;
  po.deep_timeout = runtime_timeout_ms(deep_timeout);
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
  if (deep && deep_timeout != ProbeFlags{}.deep_timeout) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", deep_timeout);
    out += std::string(" --deep-timeout ") + buf;
  }
  return out;
}

std::chrono::milliseconds runtime_timeout_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long>(seconds * 1000));
}

void emit(const std::string& output_path, const std::string& text) {
  if (output_path.empty() || output_path == "-") {
    render::write_stdout(text);
    return;
  }
  if (auto st = platform::write_output_file(output_path, text); !st)
    throw OutputError("--output " + output_path + ": " + st.error().message);
}

void emit_text(const std::string& output_path, const std::string& text, bool colour) {
  emit(output_path, render::terminal_text(text, colour));
}

void print(std::string_view text) { render::write_stdout(text); }

void error_line(const std::string& message, const char* prefix) {
  std::string line = prefix + render::line_text(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

int need_root_line(const std::string& what, const std::string& command) {
  error_line(what + " needs root. Run:");
  std::string line = "  " + render::line_text(command) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  return kExitNeedRoot;
}

}  // namespace amdml::engine
