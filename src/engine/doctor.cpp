// amdml doctor: host -> knowledge -> probes -> rules -> report; exit 0/1 by findings
// (--strict: warnings count too).
#include <ctime>

#include "engine/pipeline.hpp"
#include "render/fleet.hpp"
#include "render/list.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"

namespace amdml::engine {

namespace {

// The probe table as `--list` shows it.
std::vector<render::ListedProbe> listed_probes() {
  std::vector<render::ListedProbe> out;
  for (const auto& p : probes::probe_table()) out.push_back({p.name, p.what});
  return out;
}

// --format json: one JSON document on stdout even when amdml cannot start.
int doctor_json(const GlobalOptions& g, const DoctorOptions& o) {
  try {
    Session s = open_session(g);
    Report r = run_doctor(s, o.probe.options());
    stage("report", [&] { emit(o.output, render::json_text(render::report_json(r)) + "\n"); });
    return doctor_exit_code(r.summary, o.strict);
  } catch (const OutputError&) {
    throw;
  } catch (const UsageError& e) {
    emit(o.output, render::json_text(render::error_json(e.what())) + "\n");
    throw;
  } catch (const std::exception& e) {
    emit(o.output, render::json_text(render::error_json(std::string("internal: ") + e.what())) + "\n");
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

// --format nfd: a run that could not start still replaces the labels file, withdrawing
// the usable label a stale file would keep publishing.
int doctor_nfd(const GlobalOptions& g, const DoctorOptions& o) {
  try {
    Session s = open_session(g);
    Report r = run_doctor(s, o.probe.options());
    stage("report", [&] { emit(o.output, render::nfd_text(r, s.kb)); });
    return doctor_exit_code(r.summary, o.strict);
  } catch (const UsageError& e) {
    emit(o.output, render::nfd_error_text(e.what()));
    throw;
  }
}

}  // namespace

int doctor(const GlobalOptions& g, const DoctorOptions& o) {
  if (o.list) {
    if (o.format == Format::json) emit(o.output, render::json_text(render::list_json(listed_probes())) + "\n");
    else emit_text(o.output, render::render_list_text(listed_probes()));
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
  if (o.format == Format::nfd) return doctor_nfd(g, o);

  Session s = open_session(g);                  // stages host, knowledge
  Report r = run_doctor(s, o.probe.options());  // stages probes, rules
  stage("report", [&] {
    if (o.format == Format::markdown) {
      emit_text(o.output, render::render_markdown(r));
    } else {
      render::TextStyle style;
      style.color = o.output.empty() && want_color(g.color);
      emit_text(o.output, render::render_text(r, style), style.color);
    }
  });
  return doctor_exit_code(r.summary, o.strict);
}

}  // namespace amdml::engine
