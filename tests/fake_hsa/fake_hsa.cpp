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
//
// The deep steps (doctor --deep) call the memory and copy entry points too; they follow
// the doc comments of hsa.h and hsa_ext_amd.h (ROCr, as Debian's libhsa-runtime-dev
// ships them): hsa_amd_memory_pool_allocate answers HSA_STATUS_ERROR_OUT_OF_RESOURCES
// when "no memory is available" -- here once a pool's "accepts" bytes (default: its
// "size") are held; hsa_amd_memory_async_copy decrements the completion signal when the
// copy is done; hsa_amd_memory_fill sets `count` uint32 words; hsa_signal_wait_scacquire
// returns the observed value and may return before the condition holds. Scenario keys:
// "copy": "corrupt" flips the byte at "corrupt_at" of every device-to-host copy, "hang"
// never completes one; "fill": "no-code-object" fails with HSA_STATUS_ERROR_INVALID_ISA
// (what a runtime without a blit kernel for the agent's ISA reports), "hang" never
// returns. Allocations are MAP_NORESERVE mappings: untouched, they cost no memory, so a
// sweep of tens of GiB is cheap. AMDML_FAKE_HSA_LOG, when set, gets a line
// "held <pool handle> <bytes>" after every allocation, so tests can check the bounds.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
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

struct Allocation {
  std::uint64_t pool = 0;
  std::size_t size = 0;
};
std::map<void*, Allocation> g_allocations;
std::map<std::uint64_t, std::size_t> g_held;  // per pool handle

bool is_cpu_agent(std::uint64_t handle) {
  const nlohmann::json* a = agent_at(handle);
  return a && a->value("device", "cpu") == "cpu";
}

void hang_forever() {
  for (;;) ::pause();
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
  if (init == "hang") hang_forever();
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
    case HSA_STATUS_ERROR_INVALID_ISA:
      *text = "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. (fake)";
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_system_get_info(hsa_system_info_t attr, void* value) {
  if (!g_ready) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  auto v = g_desc.value("runtime_version", std::vector<int>{1, 14});
  std::uint16_t x = 0;
  if (attr == HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) {
    std::uint64_t hz = 1000000000;  // what ROCr reports on current hardware (rocminfo: 1000 MHz)
    std::memcpy(value, &hz, sizeof hz);
    return HSA_STATUS_SUCCESS;
  }
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

hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr) {
  const nlohmann::json* p = item_at(pool.handle, "pools");
  if (!p) return static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL);
  if (!ptr || size == 0 || flags != 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!p->value("alloc_allowed", false)) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  std::size_t granule = p->value("alloc_granule", std::size_t{4096});
  size = (size + granule - 1) / granule * granule;
  std::size_t accepts = p->value("accepts", p->value("size", std::size_t{0}));
  std::size_t& held = g_held[pool.handle];
  if (held + size > accepts) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  void* m = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  held += size;
  g_allocations[m] = {pool.handle, size};
  if (const char* log = std::getenv("AMDML_FAKE_HSA_LOG"); log && *log)
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "held %llu %zu\n", static_cast<unsigned long long>(pool.handle), held);
      std::fclose(f);
    }
  *ptr = m;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_pool_free(void* ptr) {
  auto it = g_allocations.find(ptr);
  if (it == g_allocations.end()) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  g_held[it->second.pool] -= it->second.size;
  ::munmap(ptr, it->second.size);
  g_allocations.erase(it);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents, const uint32_t*, const void* ptr) {
  if (num_agents == 0 || !agents || !ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return g_allocations.count(const_cast<void*>(ptr)) ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ALLOCATION;
}

// A signal is a heap-allocated value; its handle is the address.
hsa_status_t hsa_signal_create(hsa_signal_value_t initial, uint32_t, const hsa_agent_t*, hsa_signal_t* signal) {
  if (!signal) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  signal->handle = reinterpret_cast<std::uint64_t>(new hsa_signal_value_t(initial));
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_signal_destroy(hsa_signal_t signal) {
  if (signal.handle == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  delete reinterpret_cast<hsa_signal_value_t*>(signal.handle);
  return HSA_STATUS_SUCCESS;
}

hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                             hsa_signal_value_t compare, uint64_t timeout_hint, hsa_wait_state_t) {
  auto* v = reinterpret_cast<hsa_signal_value_t*>(signal.handle);
  bool met = condition == HSA_SIGNAL_CONDITION_LT ? *v < compare : condition == HSA_SIGNAL_CONDITION_EQ ? *v == compare
                                                                                                          : *v != compare;
  if (!met) {  // nothing will change it here: wait out the hint (at most 100 ms), then report the value
    std::uint64_t ns = std::min<std::uint64_t>(timeout_hint, 100000000);
    ::usleep(static_cast<useconds_t>(ns / 1000));
  }
  return *v;
}

hsa_status_t hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                                       size_t size, uint32_t, const hsa_signal_t*, hsa_signal_t completion) {
  if (!dst || !src || completion.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!agent_at(dst_agent.handle) || !agent_at(src_agent.handle)) return HSA_STATUS_ERROR_INVALID_AGENT;
  std::string how = g_desc.value("copy", "ok");
  if (how == "hang") return HSA_STATUS_SUCCESS;  // the signal is never decremented
  std::memcpy(dst, src, size);
  std::size_t at = g_desc.value("corrupt_at", std::size_t{0});
  if (how == "corrupt" && is_cpu_agent(dst_agent.handle) && at < size) static_cast<unsigned char*>(dst)[at] ^= 0x40;
  *reinterpret_cast<hsa_signal_value_t*>(completion.handle) -= 1;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count) {
  if (!g_ready) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!ptr || reinterpret_cast<std::uintptr_t>(ptr) % 4) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::string how = g_desc.value("fill", "ok");
  if (how == "hang") hang_forever();
  if (how == "no-code-object") {
    std::fprintf(stderr, "fake runtime: no code object for ISA %s\n", g_desc.value("fill_isa", "gfx1103").c_str());
    return HSA_STATUS_ERROR_INVALID_ISA;
  }
  auto* words = static_cast<std::uint32_t*>(ptr);
  for (std::size_t i = 0; i < count; ++i) words[i] = value;
  return HSA_STATUS_SUCCESS;
}

}  // extern "C"
