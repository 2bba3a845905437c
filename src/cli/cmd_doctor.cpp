// amdml doctor: collect facts, diagnose, render; exit 0/1 by findings (--strict:
// warnings count too).
#include <ctime>

#include "render/render.hpp"
#include "rules/rules.hpp"
#include "cli/cli.hpp"
#include "platform/terminal.hpp"
#include "render/fleet.hpp"

namespace amdml::cli {

namespace {

struct DoctorOptions {
  std::string format = "text";
  bool strict = false;
  ProbeFlags probe;
  std::string output;
  bool list = false;
  bool ci = false;
};

std::string list_text() {
  std::string out = "Probes (in run order):\n";
  for (const auto& p : probe_table()) out += std::string("  ") + p.name + std::string(12 - std::min<std::size_t>(11, std::string(p.name).size()), ' ') + p.what + "\n";
  out += "\nFinding ids:\n";
  for (const auto& f : finding_catalog()) {
    std::string id(f.name);
    out += "  " + id + std::string(id.size() < 28 ? 28 - id.size() : 1, ' ') + std::string(to_string(f.severity)) +
           std::string(9 - to_string(f.severity).size(), ' ') + std::string(f.summary) + "\n";
  }
  return out;
}

// `--list --format json`: the same two tables as a document.
nlohmann::json list_json() {
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : probe_table()) probes.push_back({{"name", p.name}, {"what", p.what}});
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : finding_catalog())
    findings.push_back({{"id", std::string(f.name)}, {"severity", std::string(to_string(f.severity))}, {"summary", std::string(f.summary)}});
  return {{"schema", "amdml.list/1"}, {"probes", probes}, {"findings", findings}};
}


}  // namespace

int doctor_exit_code(const Summary& s, bool strict) {
  if (s.errors > 0) return kExitFindings;
  if (strict && s.warnings > 0) return kExitFindings;
  return kExitOk;
}

CommandRunner setup_doctor(CLI::App& sub, const GlobalOptions& g) {
  auto o = std::make_shared<DoctorOptions>();
  sub.add_option("--format,-f", o->format,
                 "Output format: text (default), json (schema amdml.doctor/1), markdown, junit, prometheus "
                 "(node_exporter textfile) or nfd (Kubernetes node labels, features.d)")
      ->check(CLI::IsMember({"text", "json", "markdown", "junit", "prometheus", "nfd"}));
  sub.add_flag("--strict", o->strict, "Exit 1 on warnings too, not only on errors");
  o->probe.add_to(sub);
  sub.add_option("--output,-o", o->output, "Write the report to FILE instead of stdout");
  sub.add_flag("--list", o->list, "List the probes and every finding id, then exit (--format json: a document)");
  sub.add_flag("--ci", o->ci, "The check gate without expectations: no colour, a Checks section, junit allowed");
  return [o, &g]() -> int {
    if (o->list) {
      if (o->format == "json") emit(o->output, json_text(list_json()) + "\n");
      else emit_text(o->output, list_text());
      return kExitOk;
    }
    if (o->ci || o->format == "junit") {
      if (o->format == "markdown") throw UsageError("--ci prints text, json or junit, not markdown");
      GateOptions go;
      go.format = o->format;
      go.output = o->output;
      go.no_color = true;
      go.expect.strict = o->strict;
      go.probe = o->probe.options();
      return run_gate(g, go);
    }
    if (o->format == "json") {
      // One JSON document on stdout even when amdml cannot start.
      try {
        Session s = open_session(g);
        Report r = run_doctor(s, o->probe.options());
        emit(o->output, json_text(report_json(r)) + "\n");
        return doctor_exit_code(r.summary, o->strict);
      } catch (const OutputError&) {
        throw;
      } catch (const UsageError& e) {
        emit(o->output, json_text(error_json(e.what())) + "\n");
        throw;
      } catch (const std::exception& e) {
        emit(o->output, json_text(error_json(std::string("internal: ") + e.what())) + "\n");
        throw;
      }
    }
    if (o->format == "prometheus") {
      // The collector shows a run that could not start, with the reason, instead of
      // keeping the last good file.
      std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
      try {
        Session s = open_session(g);
        Report r = run_doctor(s, o->probe.options());
        emit(o->output, render::prometheus_text(r, now));
        return doctor_exit_code(r.summary, o->strict);
      } catch (const UsageError& e) {
        emit(o->output, render::prometheus_error_text(e.what(), now));
        throw;
      }
    }
    Session s = open_session(g);
    Report r = run_doctor(s, o->probe.options());
    if (o->format == "markdown") {
      emit_text(o->output, render_markdown(r));
    } else if (o->format == "nfd") {
      emit(o->output, render::nfd_text(r, s.kb));
    } else {
      TextStyle style;
      style.color = o->output.empty() && platform::want_color(g.color);
      emit_text(o->output, render_text(r, style), style.color);
    }
    return doctor_exit_code(r.summary, o->strict);
  };
}

}  // namespace amdml::cli
