// The doctor's JSON document (schema amdml.doctor/1). Pinned keys keep their meaning;
// everything else amdml knows is added beside them. Unknown values are null.
#include <cstdio>
#include <string>

#include "formats/fix_params_json.hpp"
#include "render/render.hpp"
#include "render/facts_json.hpp"
#include "render/format.hpp"

namespace amdml::render {

using render::opt;
using render::opt_bytes;

using nlohmann::json;


json gpu_json(const Gpu& g) {
  json j;
  j["kfd_node"] = opt(g.kfd_node);
  j["gfx_target"] = g.gfx ? json(g.gfx->name()) : json(nullptr);
  j["gfx_target_version"] = opt(g.gfx_target_version);
  j["pci_id"] = g.pci_id().empty() ? json(nullptr) : json(g.pci_id());
  j["pci_slot"] = opt(g.pci_slot);
  j["marketing_name"] = opt(g.marketing_name);
  j["apu"] = opt(g.apu);
  j["compute_units"] = opt(g.compute_units);
  j["vram_bytes"] = opt_bytes(g.vram);
  j["gtt_bytes"] = opt_bytes(g.gtt);
  j["kfd_memory_bytes"] = opt_bytes(g.kfd_memory);
  j["render_node"] = opt(g.render_node);
  j["card"] = opt(g.card);
  j["driver"] = opt(g.driver);
  j["revision"] = g.revision ? json(*g.revision) : json(nullptr);
  j["wave_size"] = opt(g.wave_size);
  j["vis_vram_bytes"] = opt_bytes(g.vis_vram);
  j["unique_id"] = opt(g.unique_id);
  return j;
}

json finding_json(const Finding& f) {
  json j;
  j["id"] = std::string(to_string(f.id));
  j["severity"] = std::string(to_string(f.severity));
  j["title"] = f.title;
  j["detail"] = f.detail;
  j["gpus"] = f.gpus;
  if (f.fix) j["fix"] = {{"recipe", f.fix->recipe}, {"params", formats::fix_params_json(f.fix->params)}};
  else j["fix"] = nullptr;
  json ev = json::array();
  for (const auto& e : f.evidence) ev.push_back({{"source", e.source}, {"value", e.value}});
  j["evidence"] = std::move(ev);
  j["commands"] = f.commands;
  // The same commands with their roles ("run", "then", "or"): alternatives are not steps.
  json steps = json::array();
  for (std::size_t i = 0; i < f.commands.size(); ++i)
    steps.push_back({{"command", f.commands[i]}, {"role", to_string(f.command_role(i))}});
  j["steps"] = std::move(steps);
  j["notes"] = f.notes;
  return j;
}

json report_json(const Report& r) {
  const Facts& f = r.facts;
  json j;
  j["schema"] = "amdml.doctor/1";
  j["amdml_version"] = f.amdml_version;
  j["knowledge"] = {{"date", f.knowledge.date.empty() ? json(nullptr) : json(f.knowledge.date)},
                    {"format", f.knowledge.format},
                    {"source", f.knowledge.source},
                    {"today", opt(f.knowledge.today)}};
  json host;
  host["kernel"] = opt(f.os.kernel_release);
  host["os"] = {{"id", opt(f.os.id)}, {"version_id", opt(f.os.version_id)}, {"pretty_name", opt(f.os.pretty_name)}};
  host["memory_bytes"] = opt_bytes(f.memory.total);
  host["container"] = f.container.kind ? json(to_string(*f.container.kind)) : json(nullptr);
  host["machine"] = opt(f.os.machine);
  host["wsl"] = f.os.wsl;
  j["host"] = std::move(host);
  j["rocm"] = {{"version", f.rocm.version ? json(f.rocm.version->str()) : json(nullptr)},
               {"path", opt(f.rocm.path)},
               {"resolved_path", opt(f.rocm.resolved_path)},
               {"source", f.rocm.source == RocmSource::none ? json(nullptr) : json(to_string(f.rocm.source))},
               {"hsa_library", opt(f.rocm.hsa_library)},
               {"installs", rocm_installs_json(f.rocm.installs)}};
  json gpus = json::array();
  for (const auto& g : f.gpus) gpus.push_back(gpu_json(g));
  j["gpus"] = std::move(gpus);
  json findings = json::array();
  for (const auto& fd : r.findings) findings.push_back(finding_json(fd));
  j["findings"] = std::move(findings);
  j["summary"] = {{"errors", r.summary.errors}, {"warnings", r.summary.warnings}, {"infos", r.summary.infos}};
  j["facts"] = facts_json(f);
  return j;
}

std::string json_text(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

json error_json(const std::string& message) {
  json j;
  j["schema"] = "amdml.doctor/1";
  j["error"] = message;
  j["gpus"] = json::array();
  j["findings"] = json::array();
  j["summary"] = {{"errors", 0}, {"warnings", 0}, {"infos", 0}};
  return j;
}

}  // namespace amdml::render