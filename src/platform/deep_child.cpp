// The deep steps in the child (platform/deep_child.hpp): allocate, copy, fill through
// the HSA runtime, loaded with dlopen like the runtime probe's child. Signatures and
// semantics are those of hsa.h and hsa_ext_amd.h (ROCr; Debian's libhsa-runtime-dev
// ships the same headers): hsa_amd_memory_pool_allocate rounds the size up to the pool's
// RUNTIME_ALLOC_GRANULE and answers OUT_OF_RESOURCES when no memory is left;
// hsa_amd_memory_async_copy decrements its completion signal when done and sets it
// negative on an error; hsa_amd_memory_fill sets `count` uint32 words at a 4-byte
// aligned pointer; hsa_signal_wait_scacquire may return before the condition holds, so
// every wait is a loop with its own deadline.
#include "platform/deep_child.hpp"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "amdml/facts_runtime.hpp"
#include "formats/system_files.hpp"
#include "platform/dl.hpp"
#include "platform/fs.hpp"
#include "platform/runtime_child.hpp"

namespace amdml::platform {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kGiB = 1ull << 30;
constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kChunk = kGiB;           // the allocation sweep's chunk
constexpr std::uint64_t kMinChunk = 64 * kMiB;   // ... halved on a refusal down to this
constexpr std::uint64_t kCopyBytes = 64 * kMiB;  // copied each way: milliseconds at PCIe speed, still far above the call overhead
constexpr std::uint64_t kFillBytes = 16 * kMiB;
constexpr std::uint32_t kFillWord = 0xA5C3E1F0u;

struct Api {
  decltype(&hsa_init) init = nullptr;
  decltype(&hsa_status_string) status_string = nullptr;
  decltype(&hsa_iterate_agents) iterate_agents = nullptr;
  decltype(&hsa_agent_get_info) agent_get_info = nullptr;
  decltype(&hsa_amd_agent_iterate_memory_pools) iterate_pools = nullptr;
  decltype(&hsa_amd_memory_pool_get_info) pool_get_info = nullptr;
  decltype(&hsa_amd_memory_pool_allocate) pool_allocate = nullptr;
  decltype(&hsa_amd_memory_pool_free) pool_free = nullptr;
  decltype(&hsa_amd_agents_allow_access) allow_access = nullptr;
  decltype(&hsa_amd_memory_async_copy) async_copy = nullptr;
  decltype(&hsa_amd_memory_fill) memory_fill = nullptr;
  decltype(&hsa_signal_create) signal_create = nullptr;
  decltype(&hsa_signal_destroy) signal_destroy = nullptr;
  decltype(&hsa_signal_wait_scacquire) signal_wait = nullptr;
};

// The step's failure: the call, its status name and text.
struct Failure {
  std::string call;
  hsa_status_t status = HSA_STATUS_SUCCESS;
};

class Step {
 public:
  Step(const Api& api, const DeepRequest& req, DeepStep& out)
      : api_(api), req_(req), out_(out), start_(Clock::now()) {}
  ~Step() {
    for (void* p : held_) api_.pool_free(p);
  }
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;

  bool find_agents() {
    struct Walk {
      const Api* api;
      std::vector<hsa_agent_t> cpus, gpus;
    } w{&api_, {}, {}};
    auto cb = [](hsa_agent_t a, void* data) -> hsa_status_t {
      auto& walk = *static_cast<Walk*>(data);
      hsa_device_type_t t{};
      if (walk.api->agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
      if (t == HSA_DEVICE_TYPE_CPU) walk.cpus.push_back(a);
      if (t == HSA_DEVICE_TYPE_GPU) walk.gpus.push_back(a);
      return HSA_STATUS_SUCCESS;
    };
    if (hsa_status_t st = api_.iterate_agents(cb, &w); st != HSA_STATUS_SUCCESS) return fail("hsa_iterate_agents", st);
    if (req_.agent < 0 || static_cast<std::size_t>(req_.agent) >= w.gpus.size() || w.cpus.empty()) {
      out_.outcome = DeepOutcome::init_failed;
      out_.message = "the runtime lists " + std::to_string(w.gpus.size()) + " GPU agent(s) and " +
                     std::to_string(w.cpus.size()) + " CPU agent(s); GPU agent " + std::to_string(req_.agent) +
                     " is not there";
      return false;
    }
    gpu_ = w.gpus[static_cast<std::size_t>(req_.agent)];
    cpu_ = w.cpus.front();
    vram_ = pool_of(gpu_, false);
    system_ = pool_of(cpu_, true);
    return true;
  }

  void memory() {
    if (vram_.handle) {
      // On an APU the GPU's "VRAM" allocations can reach the TTM limit (Linux 6.10+ on
      // small carve-outs, 6.15+ apu_prefer_gtt): that is what a memory fix promises, so
      // that is the target, not only the pool size the runtime reports.
      std::uint64_t size = pool_size(vram_);
      if (req_.apu) size = std::max(size, req_.system_limit);
      sweep("vram", vram_, size, req_.apu);
    } else {
      out_.allocs.push_back(no_pool("vram"));
    }
    if (req_.system_limit > 0 && system_.handle) sweep("system", system_, req_.system_limit, true);
    else if (req_.system_limit > 0) out_.allocs.push_back(no_pool("system"));
    bool refused = false;
    for (const auto& a : out_.allocs) refused = refused || a.stop == DeepAllocStop::error;
    out_.outcome = refused ? DeepOutcome::failed : DeepOutcome::ok;
  }

  void copy() {
    if (!need_pools()) return;
    std::uint64_t n = std::min<std::uint64_t>(kCopyBytes, pool_size(vram_) / 4) & ~std::uint64_t{4095};
    void *src = nullptr, *dev = nullptr, *back = nullptr;
    if (!(take(system_, n, src) && take(vram_, n, dev) && take(system_, n, back))) return;
    if (!allow_gpu(src) || !allow_gpu(back)) return;
    auto* s = static_cast<std::uint64_t*>(src);
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (std::uint64_t i = 0; i < n / 8; ++i) {  // xorshift: every word differs, so a dropped page shows
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      s[i] = x;
    }
    std::memset(back, 0, n);
    out_.bytes = Bytes{n};
    probe_step("copy host-to-device");
    auto h2d = timed_copy(dev, gpu_, src, cpu_, n);
    if (!h2d) return;
    probe_step("copy device-to-host");
    auto d2h = timed_copy(back, cpu_, dev, gpu_, n);
    if (!d2h) return;
    out_.h2d_gbps = static_cast<double>(n) / *h2d / 1e9;
    out_.d2h_gbps = static_cast<double>(n) / *d2h / 1e9;
    check_bytes(src, back, n);
  }

  void fill() {
    if (!need_pools()) return;
    std::uint64_t n = std::min<std::uint64_t>(kFillBytes, pool_size(vram_) / 4) & ~std::uint64_t{4095};
    void *dev = nullptr, *back = nullptr;
    if (!(take(vram_, n, dev) && take(system_, n, back))) return;
    if (!allow_gpu(back)) return;
    std::memset(back, 0, n);
    out_.bytes = Bytes{n};
    probe_step("hsa_amd_memory_fill");
    if (hsa_status_t st = api_.memory_fill(dev, kFillWord, n / 4); st != HSA_STATUS_SUCCESS) {
      fail("hsa_amd_memory_fill", st);
      return;
    }
    probe_step("copy device-to-host");
    if (!timed_copy(back, cpu_, dev, gpu_, n)) return;
    std::vector<std::uint32_t> expect(n / 4, kFillWord);
    check_bytes(expect.data(), back, n);
  }

  bool fail(const char* call, hsa_status_t st) {
    out_.outcome = DeepOutcome::failed;
    out_.call = call;
    out_.error = hsa_status_name(static_cast<std::uint32_t>(st)).value_or("status " + std::to_string(st));
    const char* text = nullptr;
    if (api_.status_string && api_.status_string(st, &text) == HSA_STATUS_SUCCESS && text) out_.message = text;
    return false;
  }

 private:
  std::uint64_t ms_left() const {
    auto used = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
    return used >= static_cast<long long>(req_.timeout_ms) ? 0 : req_.timeout_ms - static_cast<std::uint64_t>(used);
  }

  // The first global pool of the agent that allows allocation: coarse-grained for the
  // GPU (its VRAM), fine-grained and not kernarg-only for the CPU (system memory).
  hsa_amd_memory_pool_t pool_of(hsa_agent_t agent, bool system) {
    struct Walk {
      const Api* api;
      bool system;
      hsa_amd_memory_pool_t found;
    } w{&api_, system, {0}};
    auto cb = [](hsa_amd_memory_pool_t p, void* data) -> hsa_status_t {
      auto& walk = *static_cast<Walk*>(data);
      hsa_amd_segment_t seg{};
      std::uint32_t flags = 0;
      bool alloc = false;
      if (walk.api->pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) != HSA_STATUS_SUCCESS ||
          seg != HSA_AMD_SEGMENT_GLOBAL ||
          walk.api->pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS ||
          walk.api->pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc) != HSA_STATUS_SUCCESS ||
          !alloc)
        return HSA_STATUS_SUCCESS;
      bool fits = walk.system ? (flags & kHsaPoolFineGrained) && !(flags & kHsaPoolKernarg)
                              : (flags & kHsaPoolCoarseGrained) != 0;
      if (fits) {
        walk.found = p;
        return HSA_STATUS_INFO_BREAK;
      }
      return HSA_STATUS_SUCCESS;
    };
    api_.iterate_pools(agent, cb, &w);
    return w.found;
  }

  std::uint64_t pool_size(hsa_amd_memory_pool_t p) const {
    std::size_t size = 0;
    api_.pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size);
    return size;
  }
  std::uint64_t granule(hsa_amd_memory_pool_t p) const {
    std::size_t g = 0;
    api_.pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &g);
    return g == 0 || (g & (g - 1)) ? 4096 : g;
  }

  static DeepAlloc no_pool(const char* name) {
    DeepAlloc a;
    a.pool = name;
    a.stop = DeepAllocStop::no_pool;
    return a;
  }

  // MemAvailable and MemTotal now, from /proc/meminfo (or the request's file).
  std::pair<std::uint64_t, std::uint64_t> meminfo() const {
    auto text = read_real_file(req_.meminfo, req_.meminfo, 1 << 16);
    if (!text) return {0, 0};
    auto m = meminfo_values(*text);
    return {m.count("MemAvailable") ? m["MemAvailable"] : 0, m.count("MemTotal") ? m["MemTotal"] : 0};
  }
  static std::map<std::string, std::uint64_t> meminfo_values(const std::string& text) { return formats::parse::meminfo(text); }

  // Allocates `target` from pool in chunks and frees it all. With `bounded`, never
  // holds more than MemAvailable (at the start) minus the margin, and stops when the
  // next chunk would leave less than the margin of MemAvailable as it is now.
  void sweep(const char* name, hsa_amd_memory_pool_t pool, std::uint64_t target, bool bounded) {
    probe_step(name[0] == 'v' ? "allocate vram" : "allocate system");
    DeepAlloc a;
    a.pool = name;
    a.target = Bytes{target};
    std::uint64_t g = granule(pool);
    std::uint64_t chunk = std::max<std::uint64_t>(std::min(kChunk, target) / g * g, g);
    a.chunk = Bytes{chunk};
    std::uint64_t limit = target / g * g, margin = 0;
    if (bounded) {
      auto [avail, total] = meminfo();
      margin = deep_meminfo_margin(total);
      a.mem_available = Bytes{avail};
      std::uint64_t bound = avail > margin ? (avail - margin) / g * g : 0;
      a.bound = Bytes{bound};
      limit = std::min(limit, bound);
    }
    std::vector<void*> taken;
    std::uint64_t held = 0;
    a.stop = DeepAllocStop::target;
    // Sweeps stop with a fifth of the child's time left, for the frees and the answer.
    const std::uint64_t reserve = req_.timeout_ms / 5;
    while (held < target / g * g) {
      std::uint64_t next = std::min(chunk, limit > held ? limit - held : 0);
      if (next == 0) {
        a.stop = DeepAllocStop::meminfo;
        break;
      }
      if (bounded) {
        auto [now, total] = meminfo();
        (void)total;
        if (now < margin + next) {
          a.stop = DeepAllocStop::meminfo;
          break;
        }
      }
      if (ms_left() <= reserve) {
        a.stop = DeepAllocStop::deadline;
        break;
      }
      void* p = nullptr;
      hsa_status_t st = api_.pool_allocate(pool, next, 0, &p);
      if (st != HSA_STATUS_SUCCESS || !p) {
        // Refused: halve the chunk down to kMinChunk, so the answer says how much the
        // runtime does give rather than where the first large chunk failed.
        if (chunk / 2 >= std::max(kMinChunk, g)) {
          chunk = chunk / 2 / g * g;
          continue;
        }
        a.stop = DeepAllocStop::error;
        a.error = hsa_status_name(static_cast<std::uint32_t>(st)).value_or("status " + std::to_string(st));
        break;
      }
      taken.push_back(p);
      held += next;
    }
    a.allocated = Bytes{held};
    probe_step("free");
    for (void* p : taken) api_.pool_free(p);
    out_.allocs.push_back(std::move(a));
  }

  bool need_pools() {
    if (vram_.handle && system_.handle) return true;
    out_.outcome = DeepOutcome::failed;
    out_.message = vram_.handle ? "the CPU agent has no fine-grained system pool" : "the GPU agent has no coarse-grained pool";
    return false;
  }

  bool take(hsa_amd_memory_pool_t pool, std::uint64_t n, void*& p) {
    hsa_status_t st = api_.pool_allocate(pool, n, 0, &p);
    if (st != HSA_STATUS_SUCCESS || !p) return fail("hsa_amd_memory_pool_allocate", st == HSA_STATUS_SUCCESS ? HSA_STATUS_ERROR : st);
    held_.push_back(p);
    return true;
  }

  bool allow_gpu(void* p) {
    hsa_status_t st = api_.allow_access(1, &gpu_, nullptr, p);
    return st == HSA_STATUS_SUCCESS || fail("hsa_amd_agents_allow_access", st);
  }

  // One async copy, waited for with the time that is left; seconds, or nullopt (failed).
  std::optional<double> timed_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                                   std::uint64_t n) {
    hsa_signal_t sig{};
    if (hsa_status_t st = api_.signal_create(1, 0, nullptr, &sig); st != HSA_STATUS_SUCCESS) {
      fail("hsa_signal_create", st);
      return std::nullopt;
    }
    auto t0 = Clock::now();
    hsa_status_t st = api_.async_copy(dst, dst_agent, src, src_agent, n, 0, nullptr, sig);
    if (st != HSA_STATUS_SUCCESS) {
      api_.signal_destroy(sig);
      fail("hsa_amd_memory_async_copy", st);
      return std::nullopt;
    }
    hsa_signal_value_t v = 1;
    while (v > 0 && ms_left() > 0)  // the timeout is a hint in ns at the runtime's usual 1 GHz timestamp; looped anyway
      v = api_.signal_wait(sig, HSA_SIGNAL_CONDITION_LT, 1, std::min<std::uint64_t>(ms_left(), 100) * 1000000ull,
                           HSA_WAIT_STATE_BLOCKED);
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    if (v > 0) {
      // The copy may still be running into our buffers: leave them and the signal alone;
      // the process ends right after the answer.
      held_.clear();
      out_.outcome = DeepOutcome::failed;
      out_.call = "hsa_signal_wait_scacquire";
      out_.message = "the copy did not complete within the step's time";
      return std::nullopt;
    }
    api_.signal_destroy(sig);
    if (v < 0) {
      out_.outcome = DeepOutcome::failed;
      out_.call = "hsa_amd_memory_async_copy";
      out_.message = "the copy's completion signal went negative (" + std::to_string(v) + "): the runtime reported an error";
      return std::nullopt;
    }
    return std::max(secs, 1e-9);
  }

  void check_bytes(const void* want, const void* got, std::uint64_t n) {
    const auto* a = static_cast<const unsigned char*>(want);
    const auto* b = static_cast<const unsigned char*>(got);
    out_.data_ok = std::memcmp(a, b, n) == 0;
    if (*out_.data_ok) {
      out_.outcome = DeepOutcome::ok;
      return;
    }
    std::uint64_t i = 0;
    while (i < n && a[i] == b[i]) ++i;
    out_.mismatch_at = i;
    out_.outcome = DeepOutcome::failed;
    out_.message = "the data read back differs from what was written, first at byte " + std::to_string(i);
  }

  const Api& api_;
  const DeepRequest& req_;
  DeepStep& out_;
  Clock::time_point start_;
  hsa_agent_t gpu_{0}, cpu_{0};
  hsa_amd_memory_pool_t vram_{0}, system_{0};
  std::vector<void*> held_;
};

bool bind_all(const LoadedLibrary& lib, Api& api, std::vector<std::string>& missing) {
  lib.bind(api.init, "hsa_init", missing);
  lib.bind(api.status_string, "hsa_status_string", missing);
  lib.bind(api.iterate_agents, "hsa_iterate_agents", missing);
  lib.bind(api.agent_get_info, "hsa_agent_get_info", missing);
  lib.bind(api.iterate_pools, "hsa_amd_agent_iterate_memory_pools", missing);
  lib.bind(api.pool_get_info, "hsa_amd_memory_pool_get_info", missing);
  lib.bind(api.pool_allocate, "hsa_amd_memory_pool_allocate", missing);
  lib.bind(api.pool_free, "hsa_amd_memory_pool_free", missing);
  lib.bind(api.allow_access, "hsa_amd_agents_allow_access", missing);
  lib.bind(api.async_copy, "hsa_amd_memory_async_copy", missing);
  lib.bind(api.memory_fill, "hsa_amd_memory_fill", missing);
  lib.bind(api.signal_create, "hsa_signal_create", missing);
  lib.bind(api.signal_destroy, "hsa_signal_destroy", missing);
  lib.bind(api.signal_wait, "hsa_signal_wait_scacquire", missing);
  return missing.empty();
}

}  // namespace

std::uint64_t deep_meminfo_margin(std::uint64_t mem_total) { return std::max<std::uint64_t>(2 * kGiB, mem_total / 10); }

DeepStep deep_step_in_child(const DeepRequest& req) {
  StdoutToStderr guard;
  DeepStep out;
  out.kind = req.step;
  out.timeout_ms = req.timeout_ms;
  auto start = Clock::now();
  probe_step("dlopen");
  HsaFacts loaded;
  LoadedLibrary lib = load_first_reporting(hsa_library_candidates(), loaded);
  Api api;
  std::vector<std::string> missing;
  if (!lib.handle) {
    out.outcome = DeepOutcome::init_failed;
    out.message = "no HSA runtime could be loaded";
    for (const auto& a : loaded.attempts)
      if (!a.error.empty()) out.message = a.path + ": " + a.error;
  } else if (!bind_all(lib, api, missing)) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    out.outcome = DeepOutcome::init_failed;
    out.call = "dlsym";
    out.message = lib.path + " lacks " + names + " (not an HSA runtime, or too old)";
  } else {
    probe_step("hsa_init");
    Step step(api, req, out);
    if (hsa_status_t st = api.init(); st != HSA_STATUS_SUCCESS) {
      step.fail("hsa_init", st);
      out.outcome = DeepOutcome::init_failed;
    } else if (step.find_agents()) {
      if (req.step == DeepStepKind::memory) step.memory();
      else if (req.step == DeepStepKind::copy) step.copy();
      else step.fill();
    }
  }
  out.elapsed_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
  probe_step("done");
  return out;
}

}  // namespace amdml::platform
