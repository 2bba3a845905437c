// The HSA half of the runtime probe's child: the same call sequence rocminfo makes
// (hsa_init, system info, agents, their pools and ISAs), through
// function pointers from dlopen so that amdml itself never links the runtime.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdlib>
#include <cstring>

#include "amdml/facts_runtime.hpp"
#include "platform/dl.hpp"
#include "platform/runtime_child.hpp"

namespace amdml::platform {
namespace {

// HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES (uint8_t[8], bit 0 = APU): newer than the
// headers amdml builds against; older runtimes answer INVALID_ARGUMENT.
constexpr auto kAgentInfoMemoryProperties = static_cast<hsa_agent_info_t>(0xA114);

struct Api {
  decltype(&hsa_init) init = nullptr;
  decltype(&hsa_status_string) status_string = nullptr;
  decltype(&hsa_system_get_info) system_get_info = nullptr;
  decltype(&hsa_iterate_agents) iterate_agents = nullptr;
  decltype(&hsa_agent_get_info) agent_get_info = nullptr;
  decltype(&hsa_agent_iterate_isas) iterate_isas = nullptr;
  decltype(&hsa_isa_get_info_alt) isa_get_info = nullptr;
  decltype(&hsa_amd_agent_iterate_memory_pools) iterate_pools = nullptr;
  decltype(&hsa_amd_memory_pool_get_info) pool_get_info = nullptr;
};

const Api* g_api = nullptr;  // for the C callbacks below; the child is single-threaded here

std::string info_string(hsa_agent_t agent, hsa_agent_info_t attr) {
  char buf[256] = {};
  if (g_api->agent_get_info(agent, attr, buf) != HSA_STATUS_SUCCESS) return {};
  buf[sizeof buf - 1] = '\0';
  return buf;
}

template <class T>
std::optional<T> info_value(hsa_agent_t agent, hsa_agent_info_t attr) {
  // Oversized and zeroed: a runtime that writes more than the documented width
  // lands in the padding.
  alignas(8) unsigned char buf[64] = {};
  if (g_api->agent_get_info(agent, attr, buf) != HSA_STATUS_SUCCESS) return std::nullopt;
  T v{};
  std::memcpy(&v, buf, sizeof v);
  return v;
}

hsa_status_t on_pool(hsa_amd_memory_pool_t pool, void* data) {
  auto& pools = *static_cast<std::vector<HsaPool>*>(data);
  HsaPool p;
  hsa_amd_segment_t seg{};
  if (g_api->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) == HSA_STATUS_SUCCESS) {
    switch (seg) {
      case HSA_AMD_SEGMENT_GLOBAL: p.segment = HsaSegment::global; break;
      case HSA_AMD_SEGMENT_READONLY: p.segment = HsaSegment::readonly; break;
      case HSA_AMD_SEGMENT_PRIVATE: p.segment = HsaSegment::private_; break;
      case HSA_AMD_SEGMENT_GROUP: p.segment = HsaSegment::group; break;
      default: p.segment = HsaSegment::unknown; break;
    }
  }
  std::uint32_t flags = 0;
  if (seg == HSA_AMD_SEGMENT_GLOBAL &&
      g_api->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) == HSA_STATUS_SUCCESS)
    p.global_flags = flags;
  std::size_t size = 0;
  if (g_api->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size) == HSA_STATUS_SUCCESS) p.size = Bytes{size};
  bool alloc = false;
  if (g_api->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc) == HSA_STATUS_SUCCESS)
    p.alloc_allowed = alloc;
  std::size_t granule = 0;
  if (alloc && g_api->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule) == HSA_STATUS_SUCCESS)
    p.alloc_granule = Bytes{granule};
  bool all = false;
  if (g_api->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, &all) == HSA_STATUS_SUCCESS)
    p.accessible_by_all = all;
  pools.push_back(p);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t on_isa(hsa_isa_t isa, void* data) {
  auto& isas = *static_cast<std::vector<std::string>*>(data);
  std::uint32_t len = 0;
  if (g_api->isa_get_info(isa, HSA_ISA_INFO_NAME_LENGTH, &len) != HSA_STATUS_SUCCESS || len == 0 || len > 1024)
    return HSA_STATUS_SUCCESS;
  std::string name(len + 1, '\0');
  if (g_api->isa_get_info(isa, HSA_ISA_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
  name.resize(std::strlen(name.c_str()));
  isas.push_back(name);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t on_agent(hsa_agent_t agent, void* data) {
  auto& agents = *static_cast<std::vector<HsaAgent>*>(data);
  HsaAgent a;
  a.name = info_string(agent, HSA_AGENT_INFO_NAME);
  if (auto s = info_string(agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_PRODUCT_NAME)); !s.empty())
    a.marketing_name = s;
  if (auto s = info_string(agent, HSA_AGENT_INFO_VENDOR_NAME); !s.empty()) a.vendor = s;
  if (auto t = info_value<hsa_device_type_t>(agent, HSA_AGENT_INFO_DEVICE)) {
    a.device = *t == HSA_DEVICE_TYPE_GPU   ? HsaDeviceType::gpu
               : *t == HSA_DEVICE_TYPE_CPU ? HsaDeviceType::cpu
               : *t == HSA_DEVICE_TYPE_DSP ? HsaDeviceType::dsp
                                           : HsaDeviceType::unknown;
  }
  a.node = info_value<std::uint32_t>(agent, HSA_AGENT_INFO_NODE);
  auto amd = [](hsa_amd_agent_info_t x) { return static_cast<hsa_agent_info_t>(x); };
  a.bdfid = info_value<std::uint32_t>(agent, amd(HSA_AMD_AGENT_INFO_BDFID));
  a.domain = info_value<std::uint32_t>(agent, amd(HSA_AMD_AGENT_INFO_DOMAIN));
  if (auto s = info_string(agent, amd(HSA_AMD_AGENT_INFO_UUID)); !s.empty()) a.uuid = s;
  a.chip_id = info_value<std::uint32_t>(agent, amd(HSA_AMD_AGENT_INFO_CHIP_ID));
  a.compute_units = info_value<std::uint32_t>(agent, amd(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT));
  a.simds_per_cu = info_value<std::uint32_t>(agent, amd(HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU));
  a.wavefront_size = info_value<std::uint32_t>(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE);
  if (auto v = info_value<std::uint8_t>(agent, kAgentInfoMemoryProperties)) a.apu = (*v & 1) != 0;
  g_api->iterate_isas(agent, on_isa, &a.isas);
  g_api->iterate_pools(agent, on_pool, &a.pools);
  agents.push_back(std::move(a));
  return HSA_STATUS_SUCCESS;
}

void set_failure(HsaFacts& out, const Api& api, const char* call, hsa_status_t st) {
  out.outcome = HsaOutcome::init_failed;
  out.failed_call = call;
  out.status_code = static_cast<std::uint32_t>(st);
  const char* text = nullptr;
  if (api.status_string && api.status_string(st, &text) == HSA_STATUS_SUCCESS && text) {
    out.status_text = std::string(text);
    std::string s = text;
    if (s.starts_with("HSA_STATUS_")) out.status_name = s.substr(0, s.find(':'));
  }
  if (!out.status_name) out.status_name = hsa_status_name(static_cast<std::uint32_t>(st));
}

}  // namespace

std::vector<std::string> hsa_library_candidates() {
  const char* soname = "libhsa-runtime64.so.1";
  if (const char* lib = std::getenv("AMDML_HSA_LIBRARY"); lib && *lib) return {lib};
  std::vector<std::string> out;
  if (const char* rp = std::getenv("ROCM_PATH"); rp && *rp == '/') out.push_back(std::string(rp) + "/lib/" + soname);
  out.push_back(std::string("/opt/rocm/lib/") + soname);
  out.push_back(soname);
  return out;
}

HsaFacts probe_hsa_in_child() {
  StdoutToStderr guard;
  HsaFacts out;
  probe_step("dlopen");
  LoadedLibrary lib = load_first_reporting(hsa_library_candidates(), out);
  if (!lib.handle) return out;
  Api api;
  std::vector<std::string> missing;
  lib.bind(api.init, "hsa_init", missing);
  lib.bind(api.status_string, "hsa_status_string", missing);
  lib.bind(api.system_get_info, "hsa_system_get_info", missing);
  lib.bind(api.iterate_agents, "hsa_iterate_agents", missing);
  lib.bind(api.agent_get_info, "hsa_agent_get_info", missing);
  lib.bind(api.iterate_isas, "hsa_agent_iterate_isas", missing);
  lib.bind(api.isa_get_info, "hsa_isa_get_info_alt", missing);
  lib.bind(api.iterate_pools, "hsa_amd_agent_iterate_memory_pools", missing);
  lib.bind(api.pool_get_info, "hsa_amd_memory_pool_get_info", missing);
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    out.outcome = HsaOutcome::init_failed;
    out.failed_call = "dlsym";
    out.status_text = lib.path + " lacks " + names + " (not an HSA runtime, or too old)";
    return out;
  }
  g_api = &api;
  probe_step("hsa_init");
  hsa_status_t st = api.init();
  if (st != HSA_STATUS_SUCCESS) {
    set_failure(out, api, "hsa_init", st);
    return out;
  }
  probe_step("hsa_system_get_info");
  std::uint16_t major = 0, minor = 0;
  if (api.system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS &&
      api.system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor) == HSA_STATUS_SUCCESS)
    out.runtime_version = std::to_string(major) + "." + std::to_string(minor);
  probe_step("hsa_iterate_agents");
  st = api.iterate_agents(on_agent, &out.agents);
  if (st != HSA_STATUS_SUCCESS) {
    set_failure(out, api, "hsa_iterate_agents", st);
  } else {
    out.outcome = HsaOutcome::ok;
  }
  // No hsa_shut_down: the child exits as soon as the answer is written (see
  // cmd_probe_child.cpp) and KFD releases everything with the process, while a runtime
  // wedged on a sick GPU hangs in shut-down as readily as in init -- after the answer.
  probe_step("done");
  return out;
}

}  // namespace amdml::platform
