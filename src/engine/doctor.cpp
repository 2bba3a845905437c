// amdml doctor: host -> knowledge -> probes -> rules -> report; exit 0/1 by findings
// (--strict: warnings count too).
#include <ctime>

#include "engine/pipeline.hpp"
#include "render/fleet.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"

namespace amdml::engine {

namespace {

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

// --format json: one JSON document on stdout even when amdml cannot start.
int doctor_json(const GlobalOptions& g, const DoctorOptions& o) {
  try {
    Session s = open_session(g);
    Report r = run_doctor(s, o.probe.options());
    stage("report", [&] { emit(o.output, json_text(report_json(r)) + "\n"); });
    return doctor_exit_code(r.summary, o.strict);
  } catch (const OutputError&) {
    throw;
  } catch (const UsageError& e) {
    emit(o.output, json_text(error_json(e.what())) + "\n");
    throw;
  } catch (const std::exception& e) {
    emit(o.output, json_text(error_json(std::string("internal: ") + e.what())) + "\n");
    throw;
  }
}

// --format prometheus: the collector shows a run that could not start, with the reason,
// instead of keeping the last good file.
int doctor_prometheus(const GlobalOptions& g, const DoctorOptions& o) {
  std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
  try {
    Session s = open_session(g);
    Report r = run_doctor(s, o.probe.options());
    stage("report", [&] { emit(o.output, render::prometheus_text(r, now)); });
    return doctor_exit_code(r.summary, o.strict);
  } catch (const UsageError& e) {
    emit(o.output, render::prometheus_error_text(e.what(), now));
    throw;
  }
}

}  // namespace

int doctor(const GlobalOptions& g, const DoctorOptions& o) {
  if (o.list) {
    if (o.format == Format::json) emit(o.output, json_text(list_json()) + "\n");
    else emit_text(o.output, list_text());
    return kExitOk;
  }
  if (o.ci || o.format == Format::junit) {
    if (o.format == Format::markdown) throw UsageError("--ci prints text, json or junit, not markdown");
    GateOptions go;
    go.format = o.format;
    go.output = o.output;
    go.no_color = true;
    go.expect.strict = o.strict;
    go.probe = o.probe.options();
    return run_gate(g, go);
  }
  if (o.format == Format::json) return doctor_json(g, o);
  if (o.format == Format::prometheus) return doctor_prometheus(g, o);

  Session s = open_session(g);                  // stages host, knowledge
  Report r = run_doctor(s, o.probe.options());  // stages probes, rules
  stage("report", [&] {
    if (o.format == Format::markdown) {
      emit_text(o.output, render_markdown(r));
    } else if (o.format == Format::nfd) {
      emit(o.output, render::nfd_text(r, s.kb));
    } else {
      TextStyle style;
      style.color = o.output.empty() && want_color(g.color);
      emit_text(o.output, render_text(r, style), style.color);
    }
  });
  return doctor_exit_code(r.summary, o.strict);
}

}  // namespace amdml::engine
