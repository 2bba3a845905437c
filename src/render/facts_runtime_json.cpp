// Runtime facts -> JSON (facts.runtime in the doctor document): the recorded form of
// the HSA and libdrm results, plus what amdml derived from them (the GPU each agent
// joined to, and each GPU's memory by source).
#include "render/facts_json.hpp"
#include "formats/runtime_record.hpp"

namespace amdml::render {

using nlohmann::json;

static json sourced(const std::optional<SourcedBytes>& v) {
  if (!v) return nullptr;
  json j;
  j["bytes"] = v->value.value;
  j["source"] = to_string(v->source);
  return j;
}

// One object per GPU, built key by key (an initializer list builds a [key, value] array
// for every member first).
json gpu_memory_json(const std::vector<GpuMemoryView>& memory) {
  json out = json::array();
  for (const auto& m : memory) {
    json& o = out.emplace_back();
    o["gpu"] = m.gpu;
    o["vram_total"] = sourced(m.vram_total);
    o["vram_usable"] = sourced(m.vram_usable);
    o["vis_vram_total"] = sourced(m.vis_vram_total);
    o["gtt_total"] = sourced(m.gtt_total);
    o["gtt_usable"] = sourced(m.gtt_usable);
    o["hsa_coarse_pool"] = sourced(m.hsa_coarse_pool);
    o["kfd_memory"] = sourced(m.kfd_memory);
    o["disagreements"] = m.disagreements;
  }
  return out;
}

json runtime_facts_json(const RuntimeFacts& r) {
  json hsa = formats::hsa_record_json(r.hsa);
  hsa["recorded"] = r.hsa.recorded;
  if (hsa.contains("agents"))
    for (std::size_t i = 0; i < r.hsa.agents.size(); ++i)
      hsa["agents"][i]["gpu"] = r.hsa.agents[i].gpu ? json(*r.hsa.agents[i].gpu) : json(nullptr);
  json libdrm = formats::libdrm_record_json(r.libdrm);
  libdrm["recorded"] = r.libdrm.recorded;
  return {{"probed", r.probed}, {"hsa", std::move(hsa)}, {"libdrm", std::move(libdrm)}, {"memory", gpu_memory_json(r.memory)}};
}

}  // namespace amdml::render