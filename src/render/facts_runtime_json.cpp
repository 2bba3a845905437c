// Runtime facts -> JSON (facts.runtime in the doctor document): the recorded form of
// the HSA and libdrm results, plus what amdml derived from them (the GPU each agent
// joined to, and each GPU's memory by source).
#include "render/facts_json.hpp"
#include "formats/runtime_record.hpp"

namespace amdml {

using nlohmann::json;

static json sourced(const std::optional<SourcedBytes>& v) {
  if (!v) return nullptr;
  return {{"bytes", v->value.value}, {"source", to_string(v->source)}};
}

json gpu_memory_json(const std::vector<GpuMemoryView>& memory) {
  json out = json::array();
  for (const auto& m : memory)
    out.push_back({{"gpu", m.gpu},
                   {"vram_total", sourced(m.vram_total)},
                   {"vram_usable", sourced(m.vram_usable)},
                   {"vis_vram_total", sourced(m.vis_vram_total)},
                   {"gtt_total", sourced(m.gtt_total)},
                   {"gtt_usable", sourced(m.gtt_usable)},
                   {"hsa_coarse_pool", sourced(m.hsa_coarse_pool)},
                   {"kfd_memory", sourced(m.kfd_memory)},
                   {"disagreements", m.disagreements}});
  return out;
}

json runtime_facts_json(const RuntimeFacts& r) {
  json hsa = hsa_record_json(r.hsa);
  hsa["recorded"] = r.hsa.recorded;
  if (hsa.contains("agents"))
    for (std::size_t i = 0; i < r.hsa.agents.size(); ++i)
      hsa["agents"][i]["gpu"] = r.hsa.agents[i].gpu ? json(*r.hsa.agents[i].gpu) : json(nullptr);
  json libdrm = libdrm_record_json(r.libdrm);
  libdrm["recorded"] = r.libdrm.recorded;
  return {{"probed", r.probed}, {"hsa", hsa}, {"libdrm", libdrm}, {"memory", gpu_memory_json(r.memory)}};
}

}  // namespace amdml
