// A stand-in for libhsa-runtime64 that answers amdml's runtime probe from a JSON file.
//
// AMDML_FAKE_HSA names the file (see variants/). "init" says what hsa_init does:
// "ok" (enumerate "agents"), "error" (return "init_status"), "crash" (SIGSEGV), "hang"
// (sleep until killed). "stderr"/"stdout" are printed from hsa_init, as a real runtime's
// debug output would be. "strings": "latin1" answers strings in Latin-1 (see
// as_answered). "grandchild": "group" or "session" first forks a process that sleeps
// forever holding the child's pipes, in the child's process group or (setsid) out of
// it. AMDML_FAKE_HSA_PIDFILE, when set, gets a line "child PID" and "grandchild PID",
// so tests can check that nothing outlives amdml. Handles are indices, so nothing here
// allocates per call.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace {

nlohmann::json g_desc;
bool g_ready = false;

const nlohmann::json* agent_at(std::uint64_t handle) {
  if (!g_ready || handle == 0 || !g_desc.contains("agents")) return nullptr;
  const auto& a = g_desc["agents"];
  return handle <= a.size() ? &a[handle - 1] : nullptr;
}

// pool and ISA handles: agent index in the high 32 bits, item index + 1 in the low.
const nlohmann::json* item_at(std::uint64_t handle, const char* key) {
  const nlohmann::json* a = agent_at(handle >> 32);
  if (!a || !a->contains(key)) return nullptr;
  std::uint64_t i = handle & 0xffffffffu;
  return i >= 1 && i <= (*a)[key].size() ? &(*a)[key][i - 1] : nullptr;
}

// With "strings": "latin1" the characters U+0080..U+00FF of a string are answered as
// single bytes, as a runtime that read a Latin-1 file would: not UTF-8.
std::string as_answered(std::string s) {
  if (g_desc.value("strings", "utf-8") != "latin1") return s;
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto b = static_cast<unsigned char>(s[i]);
    if ((b == 0xC2 || b == 0xC3) && i + 1 < s.size()) {
      out += static_cast<char>(((b & 0x1F) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3F));
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

hsa_status_t copy_string(const nlohmann::json& obj, const char* key, void* out, std::size_t cap) {
  if (!obj.contains(key) || !obj[key].is_string()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::string s = as_answered(obj[key].get<std::string>());
  std::memset(out, 0, cap);
  std::memcpy(out, s.data(), std::min(s.size(), cap - 1));
  return HSA_STATUS_SUCCESS;
}

template <class T>
hsa_status_t copy_number(const nlohmann::json& obj, const char* key, void* out) {
  if (!obj.contains(key) || obj[key].is_null()) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  T v = obj[key].get<T>();
  std::memcpy(out, &v, sizeof v);
  return HSA_STATUS_SUCCESS;
}

void note_pid(const char* what, pid_t pid) {
  const char* path = std::getenv("AMDML_FAKE_HSA_PIDFILE");
  if (!path || !*path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s %d\n", what, static_cast<int>(pid));
    std::fclose(f);
  }
}

void start_grandchild(const std::string& how) {
  pid_t g = ::fork();
  if (g == 0) {
    if (how == "session") ::setsid();
    for (;;) ::pause();
  }
  if (g > 0) note_pid("grandchild", g);
}

}  // namespace

extern "C" {

hsa_status_t hsa_init() {
  const char* path = std::getenv("AMDML_FAKE_HSA");
  if (!path) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  g_desc = nlohmann::json::parse(ss.str(), nullptr, false);
  if (g_desc.is_discarded() || !g_desc.is_object()) return HSA_STATUS_ERROR_INVALID_FILE;
  if (g_desc.contains("stderr")) std::fprintf(stderr, "%s\n", g_desc["stderr"].get<std::string>().c_str());
  if (g_desc.contains("stdout")) {
    std::printf("%s\n", g_desc["stdout"].get<std::string>().c_str());
    std::fflush(stdout);
  }
  note_pid("child", ::getpid());
  if (g_desc.contains("grandchild")) start_grandchild(g_desc["grandchild"].get<std::string>());
  std::string init = g_desc.value("init", "ok");
  if (init == "crash") ::raise(SIGSEGV);
  if (init == "hang")
    for (;;) ::pause();
  if (init == "error") return static_cast<hsa_status_t>(g_desc.value("init_status", 0x1008));
  g_ready = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_status_string(hsa_status_t status, const char** text) {
  switch (status) {
    case HSA_STATUS_SUCCESS: *text = "HSA_STATUS_SUCCESS: The function has been executed successfully."; break;
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
      *text = "HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. (fake)";
      break;
    case HSA_STATUS_ERROR: *text = "HSA_STATUS_ERROR: A generic error has occurred. (fake)"; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_get_info(hsa_system_info_t attr, void* value) {
  if (!g_ready) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  auto v = g_desc.value("runtime_version", std::vector<int>{1, 14});
  std::uint16_t x = 0;
  if (attr == HSA_SYSTEM_INFO_VERSION_MAJOR) x = static_cast<std::uint16_t>(v.at(0));
  else if (attr == HSA_SYSTEM_INFO_VERSION_MINOR) x = static_cast<std::uint16_t>(v.at(1));
  else return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::memcpy(value, &x, sizeof x);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void*), void* data) {
  if (!g_ready) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  std::size_t n = g_desc.contains("agents") ? g_desc["agents"].size() : 0;
  for (std::size_t i = 0; i < n; ++i) {
    hsa_status_t st = cb(hsa_agent_t{i + 1}, data);
    if (st != HSA_STATUS_SUCCESS) return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attr, void* value) {
  const nlohmann::json* a = agent_at(agent.handle);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  switch (static_cast<int>(attr)) {
    case HSA_AGENT_INFO_NAME: return copy_string(*a, "name", value, 64);
    case HSA_AGENT_INFO_VENDOR_NAME: return copy_string(*a, "vendor", value, 64);
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME: return copy_string(*a, "marketing_name", value, 64);
    case HSA_AMD_AGENT_INFO_UUID: return copy_string(*a, "uuid", value, 21);
    case HSA_AGENT_INFO_DEVICE: {
      std::string d = a->value("device", "cpu");
      hsa_device_type_t t = d == "gpu" ? HSA_DEVICE_TYPE_GPU : d == "dsp" ? HSA_DEVICE_TYPE_DSP : HSA_DEVICE_TYPE_CPU;
      std::memcpy(value, &t, sizeof t);
      return HSA_STATUS_SUCCESS;
    }
    case HSA_AGENT_INFO_NODE: return copy_number<std::uint32_t>(*a, "node", value);
    case HSA_AGENT_INFO_WAVEFRONT_SIZE: return copy_number<std::uint32_t>(*a, "wavefront_size", value);
    case HSA_AMD_AGENT_INFO_BDFID: return copy_number<std::uint32_t>(*a, "bdfid", value);
    case HSA_AMD_AGENT_INFO_DOMAIN: return copy_number<std::uint32_t>(*a, "domain", value);
    case HSA_AMD_AGENT_INFO_CHIP_ID: return copy_number<std::uint32_t>(*a, "chip_id", value);
    case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: return copy_number<std::uint32_t>(*a, "compute_units", value);
    case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: return copy_number<std::uint32_t>(*a, "simds_per_cu", value);
    case 0xA114: {  // HSA_AMD_AGENT_INFO_MEMORY_PROPERTIES
      if (!a->contains("apu")) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      std::uint8_t props[8] = {static_cast<std::uint8_t>((*a)["apu"].get<bool>() ? 1 : 0)};
      std::memcpy(value, props, sizeof props);
      return HSA_STATUS_SUCCESS;
    }
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void*), void* data) {
  const nlohmann::json* a = agent_at(agent.handle);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  std::size_t n = a->contains("isas") ? (*a)["isas"].size() : 0;
  if (n == 0) return HSA_STATUS_ERROR_INVALID_AGENT;  // what ROCr says for CPU agents
  for (std::size_t i = 0; i < n; ++i) cb(hsa_isa_t{(agent.handle << 32) | (i + 1)}, data);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attr, void* value) {
  const nlohmann::json* s = item_at(isa.handle, "isas");
  if (!s) return HSA_STATUS_ERROR_INVALID_ISA;
  std::string name = s->get<std::string>();
  if (attr == HSA_ISA_INFO_NAME_LENGTH) {
    std::uint32_t len = static_cast<std::uint32_t>(name.size() + 1);
    std::memcpy(value, &len, sizeof len);
    return HSA_STATUS_SUCCESS;
  }
  if (attr == HSA_ISA_INFO_NAME) {
    std::memcpy(value, name.c_str(), name.size() + 1);
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void*),
                                                void* data) {
  const nlohmann::json* a = agent_at(agent.handle);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  std::size_t n = a->contains("pools") ? (*a)["pools"].size() : 0;
  for (std::size_t i = 0; i < n; ++i) cb(hsa_amd_memory_pool_t{(agent.handle << 32) | (i + 1)}, data);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t attr, void* value) {
  const nlohmann::json* p = item_at(pool.handle, "pools");
  if (!p) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (attr) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: {
      std::string s = p->value("segment", "global");
      hsa_amd_segment_t seg = s == "group" ? HSA_AMD_SEGMENT_GROUP : s == "private" ? HSA_AMD_SEGMENT_PRIVATE
                            : s == "readonly" ? HSA_AMD_SEGMENT_READONLY : HSA_AMD_SEGMENT_GLOBAL;
      std::memcpy(value, &seg, sizeof seg);
      return HSA_STATUS_SUCCESS;
    }
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: return copy_number<std::uint32_t>(*p, "global_flags", value);
    case HSA_AMD_MEMORY_POOL_INFO_SIZE: return copy_number<std::size_t>(*p, "size", value);
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: return copy_number<bool>(*p, "alloc_allowed", value);
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE: return copy_number<std::size_t>(*p, "alloc_granule", value);
    case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: return copy_number<bool>(*p, "accessible_by_all", value);
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

}  // extern "C"
