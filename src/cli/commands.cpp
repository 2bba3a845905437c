// amdml's command line: the global options, the table of subcommands and each one's
// flags, parsed into the engine's option structs; then the engine runs the command.
// The one translation unit that includes CLI11 (costly to compile).
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>

#include "cli/cli.hpp"
#include "cli/version.hpp"
#include "engine/engine.hpp"

namespace amdml::cli {

using namespace amdml::engine;

namespace {

// Every command's options, filled by the parse; a command's runner reads its own.
struct Options {
  GlobalOptions global;
  DoctorOptions doctor;
  FixOptions fix;
  std::string undo_txn;
  CLI::Option* undo = nullptr;
  SnapshotOptions snapshot;
  ReportOptions report;
  ExplainOptions explain;
  std::vector<std::string> explain_words;  // explain's subject, word by word (unquoted text)
  InfoOptions info;
  CheckOptions check;
  UpdateOptions update;
  std::vector<std::string> drm_nodes;
  DeepChildOptions deep_child;
};

using Runner = std::function<int()>;

// --format: a string on the command line (its help lists the names), an enum after it.
CLI::Option* add_format(CLI::App& sub, Format& out, std::initializer_list<Format> allowed, const std::string& help) {
  std::vector<std::string> names;
  for (Format f : allowed) names.emplace_back(to_string(f));
  return sub
      .add_option_function<std::string>(
          "--format,-f", [&out](const std::string& name) { out = *parse_format(name); }, help)
      ->check(CLI::IsMember(names));
}

// --runtime-timeout SECONDS, the same for every command that probes: a finite number
// from 0.1 to 600 (nan, inf, 0 and negatives are one-line usage errors, exit 2).
CLI::Validator seconds_validator() {
  // CLI::Range alone lets nan through: every comparison with it is false.
  auto seconds_in_range = [](std::string& text) -> std::string {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0.1 || v > 600.0)
      return "must be a number of seconds from 0.1 to 600, got '" + text + "'";
    return {};
  };
  return CLI::Validator(seconds_in_range, "SECONDS");
}

void add_runtime_timeout(CLI::App& sub, double& seconds) {
  sub.add_option("--runtime-timeout", seconds, "Seconds the runtime probe may take before it is killed (default 10)")
      ->check(seconds_validator());
}

// --deep and --deep-timeout SECONDS (the same range as --runtime-timeout).
void add_deep(CLI::App& sub, bool& deep, double& seconds, const char* help) {
  sub.add_flag("--deep", deep, help);
  sub.add_option("--deep-timeout", seconds,
                 "Seconds all --deep steps may take together; each runs in a child killed when it is spent (default 20)")
      ->check(seconds_validator());
}

// The probe flags of doctor, fix, snapshot and report.
void add_probe_flags(CLI::App& sub, ProbeFlags& p) {
  sub.add_flag("--no-runtime", p.no_runtime, "Skip the HSA runtime and libdrm probes (sysfs and files only)");
  add_runtime_timeout(sub, p.runtime_timeout);
  sub.add_option("--python", p.python, "A Python interpreter or environment to inspect for PyTorch");
  add_deep(sub, p.deep, p.deep_timeout,
           "Prove by running: allocate, copy and fill on each GPU through the HSA runtime, a matmul in each ROCm "
           "PyTorch and --list-devices of each llama.cpp build, each in a child process, and ask a running ollama "
           "on loopback (slower; writes nothing)");
}

// --no-redact of snapshot and report.
void add_no_redact(CLI::App& sub, bool& no_redact) {
  sub.add_flag("--no-redact", no_redact,
               "Keep user names, host names, serial numbers and UUIDs (secrets are dropped regardless)");
}

Runner setup_doctor(CLI::App& sub, Options& all) {
  DoctorOptions& o = all.doctor;
  add_format(sub, o.format,
             {Format::text, Format::json, Format::markdown, Format::junit, Format::prometheus, Format::nfd},
             "Output format: text (default), json (schema amdml.doctor/1), markdown, junit, prometheus "
             "(node_exporter textfile) or nfd (Kubernetes node labels, features.d)");
  sub.add_flag("--strict", o.strict, "Exit 1 on warnings too, not only on errors");
  add_probe_flags(sub, o.probe);
  sub.add_option("--output,-o", o.output, "Write the report to FILE instead of stdout");
  sub.add_flag("--list", o.list, "List the probes and every finding id, then exit (--format json: a document)");
  sub.add_flag("--ci", o.ci, "The check gate without expectations: no colour, a Checks section, junit allowed");
  return [&all] { return doctor(all.global, all.doctor); };
}

Runner setup_snapshot(CLI::App& sub, Options& all) {
  SnapshotOptions& o = all.snapshot;
  sub.add_option("OUT", o.out, "Directory to create, or a file name ending in .tar.gz")->required();
  sub.add_flag("--force", o.force, "Replace OUT when it is an earlier snapshot (or an existing tarball)");
  add_no_redact(sub, o.no_redact);
  add_probe_flags(sub, o.probe);
  return [&all] { return snapshot(all.global, all.snapshot); };
}

Runner setup_report(CLI::App& sub, Options& all) {
  ReportOptions& o = all.report;
  add_format(sub, o.format, {Format::markdown, Format::json},
             "Output format: markdown (default) or json (the doctor's schema plus \"report\")");
  sub.add_option("--output,-o", o.output, "Write the report to FILE instead of stdout");
  sub.add_flag("--snapshot", o.snapshot, "Also write a snapshot tarball (amdml-snapshot-<time>.tar.gz) and name it in the report");
  sub.add_option("--snapshot-file", o.snapshot_file, "Write the snapshot tarball to FILE.tar.gz (implies --snapshot)");
  sub.add_flag("--force", o.force, "Replace an existing snapshot tarball");
  add_no_redact(sub, o.no_redact);
  add_probe_flags(sub, o.probe);
  return [&all] { return report(all.global, all.report); };
}

Runner setup_explain(CLI::App& sub, Options& all) {
  ExplainOptions& o = all.explain;
  sub.add_option("subject", all.explain_words,
                 "A gfx target (gfx1103, 11.0.3), a PCI id (1002:15bf, 15bf), a product name (\"7900 XTX\", 780M), a "
                 "finding id, an error message (\"Memory access fault by GPU node-1\"), or - to read a pasted log on stdin")
      ->required();
  add_format(sub, o.format, {Format::text, Format::json}, "Output format: text (default) or json (schema amdml.explain/1)");
  add_probe_flags(sub, o.probe);
  return [&all] {
    std::string subject;
    for (const auto& w : all.explain_words) subject += (subject.empty() ? "" : " ") + w;
    all.explain.subject = subject;
    return explain(all.global, all.explain);
  };
}

Runner setup_info(CLI::App& sub, Options& all) {
  InfoOptions& o = all.info;
  add_format(sub, o.format, {Format::text, Format::json}, "Output format: text (default) or json (schema amdml.info/1)");
  sub.add_flag("--no-runtime", o.no_runtime, "Do not ask the HSA runtime or libdrm; list what KFD sysfs shows");
  add_runtime_timeout(sub, o.runtime_timeout);
  sub.add_option("--output,-o", o.output, "Write to FILE instead of stdout");
  return [&all] { return info(all.global, all.info); };
}

Runner setup_probe_hsa(CLI::App& sub, Options&) {
  sub.group("");
  return []() -> int { probe_hsa_child(); };
}

Runner setup_probe_drm(CLI::App& sub, Options& all) {
  sub.group("");
  sub.add_option("nodes", all.drm_nodes, "Render nodes to query");
  return [&all]() -> int { probe_drm_child(all.drm_nodes); };
}

Runner setup_deep_hsa(CLI::App& sub, Options& all) {
  sub.group("");
  DeepChildOptions& o = all.deep_child;
  sub.add_option("step", o.step, "memory, copy or fill")->required();
  sub.add_option("--agent", o.agent, "Index among the runtime's GPU agents");
  sub.add_option("--system-limit", o.system_limit, "Bytes the GTT/TTM limit promises");
  sub.add_flag("--apu", o.apu, "The VRAM pool is system memory (bounded by MemAvailable)");
  sub.add_option("--timeout-ms", o.timeout_ms, "The child's time");
  sub.add_option("--meminfo", o.meminfo, "The meminfo file to bound system allocations by");
  return [&all]() -> int { deep_hsa_child(all.deep_child); };
}

Runner setup_fix(CLI::App& sub, Options& all) {
  FixOptions& o = all.fix;
  sub.add_flag("--apply", o.apply, "Make the changes (needs root): journaled, atomic, re-diagnosed afterwards");
  sub.add_flag("--yes,-y", o.yes, "Do not ask for confirmation on a terminal");
  sub.add_option("--only", o.only, "Plan or apply this recipe only (see --list)");
  sub.add_flag("--list", o.list, "List the fix recipes, then exit");
  all.undo = sub.add_option("--undo", all.undo_txn, "Restore the last transaction (or TXN) byte for byte (needs root)")
                 ->expected(0, 1);
  add_probe_flags(sub, o.probe);
  add_format(sub, o.format, {Format::text, Format::json},
             "Output format: text (default) or json (schema amdml.fix/1: the plan, or what --apply or --undo did)");
  return [&all] {
    if (all.undo->count() > 0) all.fix.undo = all.undo_txn;
    return fix(all.global, all.fix);
  };
}

Runner setup_check(CLI::App& sub, Options& all) {
  CheckOptions& c = all.check;
  sub.add_option("--expect-gpus", c.expect_gpus, "Exactly N GPUs must be usable by ROCm")->check(CLI::NonNegativeNumber);
  sub.add_option("--expect-gfx", c.expect_gfx,
                 "A gfx target that must be present (repeatable); together they must cover every usable GPU");
  sub.add_option("--min-vram", c.min_vram, "Every usable GPU has at least SIZE of VRAM (64GiB, 512MiB)");
  sub.add_option("--min-gtt", c.min_gtt, "Every usable GPU has a GTT limit of at least SIZE");
  sub.add_option("--require", c.require,
                 "runtime: the HSA runtime must initialise and enumerate every expected GPU; compute: every GPU "
                 "allocated, copied and ran the runtime's fill kernel (implies --deep)")
      ->check(CLI::IsMember({"runtime", "compute"}));
  sub.add_option("--rocm", c.rocm, "ROCm version constraint: \">=6.4\", \">=6.2,<7\", \"==6.4\"");
  sub.add_flag("--strict", c.strict, "Warnings fail too, not only errors");
  add_format(sub, c.format, {Format::text, Format::json, Format::junit},
             "Output format: text (default), json (amdml.doctor/1 plus \"check\") or junit");
  sub.add_option("--output,-o", c.output, "Write the report to FILE instead of stdout");
  sub.add_flag("--no-runtime", c.no_runtime, "Skip the HSA runtime and libdrm probes (sysfs and files only)");
  add_runtime_timeout(sub, c.runtime_timeout);
  sub.add_option("--target", c.targets,
                 "Check the image, not the hardware (no GPU needed, e.g. in docker build): ROCm, rocBLAS/hipBLASLt/MIOpen "
                 "kernels, PyTorch and ollama have this gfx target, and HSA_OVERRIDE_GFX_VERSION fits it (repeatable)");
  sub.add_flag("--quiet,-q", c.quiet, "Print only the failed checks, one line each (nothing when all pass)");
  add_deep(sub, c.deep, c.deep_timeout,
           "Import torch in a child process for its arch list (--target); on hardware, also allocate, copy and fill "
           "on each GPU (--require compute needs it)");
  return [&all] { return check(all.global, all.check); };
}

Runner setup_update(CLI::App& sub, Options& all) {
  UpdateOptions& o = all.update;
  sub.add_option("--url", o.url,
                 "Download the bundle from URL (its signature from URL.sig); default: url in /etc/amdml/update.conf, "
                 "else the build's");
  sub.add_option("--keyring", o.keyring,
                 "Verify with the OpenPGP keys in FILE (gpg --export; a private mirror, tests); default: the project's "
                 "key in /usr/share/amdml");
  sub.add_flag("--check", o.check, "Download and verify, say whether it is newer than the knowledge in use, change nothing");
  sub.add_flag("--rollback", o.rollback, "Go back to the knowledge installed before the last update");
  return [&all] { return update(all.global, all.update); };
}

struct CommandSpec {
  const char* name;
  const char* help;
  // Declares the subcommand's flags on sub; returns what runs it.
  Runner (*setup)(CLI::App& sub, Options& options);
};

// The subcommand table: dispatch, --help and the README's command list come from it.
const CommandSpec kCommands[] = {
    {"doctor", "Diagnose this machine for ML on AMD GPUs (the default command)", setup_doctor},
    {"snapshot", "Record what the doctor reads into a --root tree (DIR or FILE.tar.gz), redacted", setup_snapshot},
    {"report", "Print a Markdown bug report for a GitHub issue (--snapshot attaches a snapshot)", setup_report},
    {"explain", "What amdml knows about a gfx target, a PCI id, a finding id or an error message (- : a pasted log)", setup_explain},
    {"info", "List GPU agents and memory pools as ROCm sees them (a rocminfo that says why)", setup_info},
    {"__probe-hsa", "", setup_probe_hsa},  // hidden: the runtime probe's child
    {"__probe-drm", "", setup_probe_drm},  // hidden: the libdrm probe's child
    {"__deep-hsa", "", setup_deep_hsa},    // hidden: one --deep step's child
    {"fix", "Show the fixes for what doctor found; --apply makes them (root), --undo reverts", setup_fix},
    {"check", "Gate for CI and container images: the doctor plus expectations (GPUs, gfx, memory, ROCm)", setup_check},
    {"update", "Download signed, current knowledge (ROCm releases, GPUs, wheels) into /var/lib/amdml (root)", setup_update},
};

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"amdml: the doctor and fixer for machine learning on AMD GPUs under Linux"};
  app.set_version_flag("--version,-V", version_text, "Print the version, the git commit, the newest ROCm release amdml knows and its knowledge date");
  app.require_subcommand(0, 1);
  app.fallthrough();
  Options all;
  GlobalOptions& g = all.global;
  app.add_option("--root", g.root, "Probe a recorded machine: every path resolves inside DIR (also AMDML_ROOT)");
  app.add_option("--recipes", g.recipes, "Use the knowledge base and fix recipes under DIR instead of the built-in ones");
  std::vector<std::string> colors;
  for (ColorMode c : {ColorMode::automatic, ColorMode::always, ColorMode::never}) colors.emplace_back(to_string(c));
  app.add_option_function<std::string>(
         "--color", [&g](const std::string& name) { g.color = *parse_color(name); },
         "Colour: auto (on a terminal, honouring NO_COLOR), always or never")
      ->check(CLI::IsMember(colors));
  app.add_flag("-v,--verbose", g.verbose, "Log what amdml does to stderr (repeat for more)");

  // Every subcommand is declared (for --help and dispatch), but only those named on the
  // command line get their flags: doctor when none is, all for --help-all.
  auto named = [&](std::string_view word) {
    for (int i = 1; i < argc; ++i)
      if (word == argv[i]) return true;
    return false;
  };
  bool any_named = false;
  for (const auto& spec : kCommands) any_named = any_named || named(spec.name);
  const bool all_flags = named("--help-all");
  std::vector<std::pair<CLI::App*, Runner>> subs;
  for (const auto& spec : kCommands) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    if (!*spec.help) sub->group("");  // hidden (a child's entry point)
    const bool wanted = all_flags || named(spec.name) || (!any_named && std::string_view(spec.name) == "doctor");
    subs.emplace_back(sub, wanted ? spec.setup(*sub, all) : Runner());
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    print(app.help());
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    print(app.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    print(version_text());
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // A subcommand's --help arrives here as CallForHelp on the subcommand.
    if (e.get_name() == "CallForHelp") {
      for (auto& [sub, run] : subs)
        if (sub->parsed()) {
          print(sub->help());
          return kExitOk;
        }
      print(app.help());
      return kExitOk;
    }
    error_line(e.what());
    return kExitUsage;
  }
  set_verbosity(g.verbose);

  try {
    for (auto& [sub, run] : subs)
      if (sub->parsed()) return run();
    // No subcommand: doctor with its defaults.
    for (auto& [sub, run] : subs)
      if (std::string(sub->get_name()) == "doctor") return run();
    return kExitInternal;
  } catch (const UsageError& e) {
    error_line(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    error_line(std::string("internal: ") + e.what());
    return kExitInternal;
  }
}

}  // namespace amdml::cli
