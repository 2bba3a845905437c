// amdml info: the GPU agents and memory pools ROCm programs will see (rocminfo's
// content, with the source of each value), in text or JSON. Exit 0 when at least one
// GPU agent is usable, 1 when none is, 2 on usage errors -- so a script can gate on it.
#include <string_view>

#include "render/render.hpp"
#include "rules/rules.hpp"
#include "cli/cli.hpp"
#include "platform/terminal.hpp"
#include "render/info.hpp"

namespace amdml::cli {

namespace {

struct InfoOptions {
  std::string format = "text";
  bool no_runtime = false;
  double runtime_timeout = 10.0;
  std::string output;
};

// The probes info needs: everything up to the runtime, not the ML stack (which may
// start interpreters and services and says nothing about agents).
Report collect_info(const Session& s, const ProbeOptions& po) {
  Report r;
  r.facts.amdml_version = AMDML_VERSION;
  r.facts.root = s.host->root();
  ProbeContext ctx{*s.host, s.kb, po};
  for (const auto& p : probe_table())
    if (std::string_view(p.name) != "ml") p.fn(ctx, r.facts);
  r.findings = diagnose(r.facts, s.kb);
  r.summary = summarize(r.findings);
  return r;
}

}  // namespace

CommandRunner setup_info(CLI::App& sub, const GlobalOptions& g) {
  auto o = std::make_shared<InfoOptions>();
  sub.add_option("--format,-f", o->format, "Output format: text (default) or json (schema amdml.info/1)")
      ->check(CLI::IsMember({"text", "json"}));
  sub.add_flag("--no-runtime", o->no_runtime, "Do not ask the HSA runtime or libdrm; list what KFD sysfs shows");
  add_runtime_timeout(sub, o->runtime_timeout);
  sub.add_option("--output,-o", o->output, "Write to FILE instead of stdout");
  return [o, &g]() -> int {
    auto run = [&]() {
      Session s = open_session(g);
      ProbeOptions po;
      po.runtime = !o->no_runtime;
      po.runtime_timeout = runtime_timeout_ms(o->runtime_timeout);
      return collect_info(s, po);
    };
    if (o->format == "json") {
      try {
        Report r = run();
        emit(o->output, json_text(info_json(r)) + "\n");
        return usable_gpu_agents(r.facts) > 0 ? kExitOk : kExitFindings;
      } catch (const OutputError&) {
        throw;
      } catch (const UsageError& e) {
        emit(o->output, json_text(error_json(e.what())) + "\n");
        throw;
      }
    }
    Report r = run();
    TextStyle style;
    style.color = o->output.empty() && platform::want_color(g.color);
    emit_text(o->output, render_info_text(r, style), style.color);
    return usable_gpu_agents(r.facts) > 0 ? kExitOk : kExitFindings;
  };
}

}  // namespace amdml::cli
