// The hidden subcommands the runtime probes re-execute amdml with: `__probe-hsa` and
// `__probe-drm NODE...`. Each prints one JSON document, the runtime record
// (formats/runtime_record.hpp, docs/runtime.md), and exits 0;
// they are not for people, so --help does not list them.
#include <cstdlib>

#include "engine/engine.hpp"
#include "formats/deep_record.hpp"
#include "formats/runtime_record.hpp"
#include "platform/deep_child.hpp"
#include "platform/runtime_child.hpp"
#include "render/render.hpp"

namespace amdml::engine {

void probe_hsa_child() {
  render::write_stdout(render::json_text(formats::hsa_record_json(platform::probe_hsa_in_child()), -1) + "\n");
  // Skip static destructors and atexit handlers: the loaded runtime's would run
  // there, and one that hangs or crashes must not turn a good answer into a failure.
  std::_Exit(kExitOk);
}

void probe_drm_child(const std::vector<std::string>& nodes) {
  render::write_stdout(render::json_text(formats::libdrm_record_json(platform::probe_drm_in_child(nodes)), -1) + "\n");
  std::_Exit(kExitOk);
}

void deep_hsa_child(const DeepChildOptions& o) {
  platform::DeepRequest req;
  auto kind = parse_deep_step_kind(o.step);
  DeepStep step;
  if (!kind) {
    step.outcome = DeepOutcome::init_failed;
    step.message = "unknown step \"" + o.step + "\" (memory, copy or fill)";
  } else {
    req.step = *kind;
    req.agent = o.agent;
    req.system_limit = o.system_limit;
    req.apu = o.apu;
    req.timeout_ms = o.timeout_ms;
    req.meminfo = o.meminfo;
    step = platform::deep_step_in_child(req);
  }
  render::write_stdout(render::json_text(formats::deep_step_json(step), -1) + "\n");
  std::_Exit(kExitOk);
}

}  // namespace amdml::engine
