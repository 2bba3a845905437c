// amdml info: the GPU agents and memory pools ROCm programs will see (rocminfo's
// content, with the source of each value), in text or JSON. Exit 0 when at least one
// GPU agent is usable, 1 when none is, 2 on usage errors -- so a script can gate on it.
// Stages: host, knowledge, probes (all but ml), rules, report.
#include <string_view>

#include "engine/pipeline.hpp"
#include "render/info.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"

namespace amdml::engine {

namespace {

// The probes info needs: everything up to the runtime, not the ML stack (which may
// start interpreters and services and says nothing about agents).
Report collect_info(const Session& s, const probes::ProbeOptions& po) {
  Report r;
  r.facts.amdml_version = AMDML_VERSION;
  r.facts.root = s.host->root();
  probes::ProbeContext ctx{*s.host, s.kb, po};
  stage("probes", [&] {
    for (const auto& p : probes::probe_table()) {
      if (std::string_view(p.name) == "ml") continue;
      const auto start = std::chrono::steady_clock::now();
      p.fn(ctx, r.facts);
      log_probe(p, std::chrono::steady_clock::now() - start);
    }
  });
  run_rules(r, s.kb);
  return r;
}

Report run_info(const GlobalOptions& g, const InfoOptions& o) {
  Session s = open_session(g);
  probes::ProbeOptions po;
  po.runtime = !o.no_runtime;
  po.runtime_timeout = runtime_timeout_ms(o.runtime_timeout);
  return collect_info(s, po);
}

int exit_code(const Report& r) { return render::usable_gpu_agents(r.facts) > 0 ? kExitOk : kExitFindings; }

}  // namespace

int info(const GlobalOptions& g, const InfoOptions& o) {
  if (o.format == Format::json) {
    try {
      Report r = run_info(g, o);
      stage("report", [&] { emit(o.output, render::json_text(render::info_json(r)) + "\n"); });
      return exit_code(r);
    } catch (const OutputError&) {
      throw;
    } catch (const UsageError& e) {
      emit(o.output, render::json_text(render::error_json(e.what())) + "\n");
      throw;
    }
  }
  Report r = run_info(g, o);
  stage("report", [&] {
    render::TextStyle style;
    style.color = o.output.empty() && want_color(g.color);
    emit_text(o.output, render::render_info_text(r, style), style.color);
  });
  return exit_code(r);
}

}  // namespace amdml::engine
