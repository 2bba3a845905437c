// The runtime probes: what the HSA runtime and libdrm_amdgpu see, beside what sysfs says.
//
// Live, each runs in a child (`amdml __probe-hsa`, `amdml __probe-drm`) started through
// Host::run with the --runtime-timeout limit; what the child printed, how it ended and
// the last progress marker on its stderr become HsaFacts. The result is handed to
// Host::record_fact so a snapshot can replay it. Under --root the recorded "hsa" and
// "libdrm" sections are read instead and nothing is executed. Finally HSA agents are
// joined to the GPU list and each GPU's memory numbers are lined up by source.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
#include <system_error>

#include <nlohmann/json.hpp>

#include "base/enum_names.hpp"
#include "formats/json.hpp"
#include "formats/runtime_record.hpp"
#include "probes/child.hpp"
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {
namespace {

// Fills the child-side fields that the JSON cannot carry.
template <class T>
void apply_child(T& facts, const ChildOutcome& c) {
  facts.outcome = c.outcome;
  if (!c.reason.empty()) facts.reason = c.reason;
}

HsaFacts hsa_from_child(const ChildOutcome& c, std::chrono::milliseconds timeout) {
  HsaFacts h;
  if (c.doc) {
    auto parsed = formats::parse_hsa_record(*c.doc);
    if (parsed) {
      h = std::move(*parsed);
    } else {
      h.outcome = HsaOutcome::bad_output;
      h.reason = "the child's JSON does not fit: " + parsed.error().message;
    }
  } else {
    apply_child(h, c);
  }
  h.signal = c.signal;
  if (!c.doc) h.exit_code = c.exit_code;
  if (c.outcome != HsaOutcome::ok || !c.doc || h.outcome != HsaOutcome::ok) h.last_step = c.last_step;
  h.stderr_tail = c.stderr_tail;
  h.elapsed_ms = c.elapsed_ms;
  h.timeout_ms = static_cast<std::uint64_t>(timeout.count());
  return h;
}

const DeviceAccess* kfd_node(const Facts& f) {
  for (const auto& d : f.identity.devices)
    if (d.path == "/dev/kfd") return &d;
  return nullptr;
}

// Live: is there anything for the runtime to talk to or anything to load? Without
// /dev/kfd (or with one this process cannot open) hsa_init can only fail, and loading
// ROCr alone costs 10-20 ms (its static initialiser calibrates a clock), so the child is
// not started and the finding says why (runtime.not-asked). AMDML_HSA_LIBRARY names a
// runtime to ask explicitly: it is always asked (docs/runtime.md).
std::optional<std::string> skip_reason(const ProbeContext& ctx, const Facts& f) {
  if (auto lib = ctx.host.env("AMDML_HSA_LIBRARY"); lib && !lib->empty()) return std::nullopt;
  // WSL2: no PCI device and no KFD; AMD's WSL runtime reaches the GPU through /dev/dxg,
  // so the HSA runtime is the only thing that can say which GPUs there are.
  if (f.os.dxg) return std::nullopt;
  const DeviceAccess* kfd = kfd_node(f);
  bool kfd_exists = kfd && kfd->exists;
  if (f.gpus.empty() && !kfd_exists && !f.rocm.hsa_library) return "no AMD GPU, no /dev/kfd and no libhsa-runtime64 found";
  if (!f.identity.devices_known) return std::nullopt;  // cannot tell: ask the runtime
  if (!kfd_exists) return "/dev/kfd does not exist, and the HSA runtime cannot start without it";
  if (kfd->open == OpenCheck::failed)
    return "/dev/kfd cannot be opened (" + std::string(std::strerror(kfd->open_errno)) +
           "), and the HSA runtime cannot start without it";
  return std::nullopt;
}

}  // namespace

// The HSA child started before the other probes, collected by run_live.
struct EarlyRuntime {
  std::future<ChildOutcome> hsa;
};

std::shared_ptr<EarlyRuntime> start_runtime_early(const ProbeContext& ctx) {
  if (!ctx.options.runtime || !ctx.host.live()) return nullptr;
  // skip_reason's cases in which the child runs whatever the other probes find.
  bool runs = false;
  if (auto lib = ctx.host.env("AMDML_HSA_LIBRARY"); lib && !lib->empty()) {
    runs = true;
  } else if (auto devs = ctx.host.devices()) {
    for (const auto& d : *devs)
      if (d.path == "/dev/kfd") runs = d.open != OpenCheck::failed;
  }
  if (!runs) return nullptr;
  auto early = std::make_shared<EarlyRuntime>();
  try {
    // ctx outlives the child: collect_facts owns both, and a future from std::async
    // waits for its thread when destroyed.
    early->hsa = std::async(std::launch::async,
                            [&ctx] { return run_child(ctx, {"__probe-hsa"}, ctx.options.runtime_timeout); });
  } catch (const std::system_error&) {
    return nullptr;  // no thread: the runtime probe runs the child itself
  }
  return early;
}

namespace {

void run_live(const ProbeContext& ctx, Facts& f) {
  auto& rt = f.runtime;
  if (ctx.early_runtime && ctx.early_runtime->hsa.valid()) {
    rt.hsa = hsa_from_child(ctx.early_runtime->hsa.get(), ctx.options.runtime_timeout);
  } else if (auto why = skip_reason(ctx, f)) {
    rt.hsa.outcome = HsaOutcome::skipped;
    rt.hsa.reason = *why;
  } else {
    rt.hsa = hsa_from_child(run_child(ctx, {"__probe-hsa"}, ctx.options.runtime_timeout), ctx.options.runtime_timeout);
  }
  ctx.host.record_fact("hsa", formats::hsa_record_json(rt.hsa));

  std::vector<std::string> nodes;
  for (const auto& g : f.gpus)
    if (g.render_node) nodes.push_back(*g.render_node);
  if (nodes.empty()) {
    rt.libdrm.outcome = HsaOutcome::skipped;
    rt.libdrm.reason = "no AMD render node";
  } else {
    std::vector<std::string> args = {"__probe-drm"};
    args.insert(args.end(), nodes.begin(), nodes.end());
    ChildOutcome c = run_child(ctx, args, ctx.options.runtime_timeout);
    if (c.doc) {
      if (auto parsed = formats::parse_libdrm_record(*c.doc)) {
        rt.libdrm = std::move(*parsed);
      } else {
        rt.libdrm.outcome = HsaOutcome::bad_output;
        rt.libdrm.reason = "the child's JSON does not fit: " + parsed.error().message;
      }
    } else {
      apply_child(rt.libdrm, c);
    }
  }
  ctx.host.record_fact("libdrm", formats::libdrm_record_json(rt.libdrm));
}

void replay(const ProbeContext& ctx, Facts& f) {
  auto& rt = f.runtime;
  if (auto j = ctx.host.recorded("hsa")) {
    if (auto parsed = formats::parse_hsa_record(*j)) {
      rt.hsa = std::move(*parsed);
      rt.hsa.recorded = true;
    } else {
      f.error("runtime", "amdml-host.json", parsed.error().message);
      rt.hsa.reason = "the recorded hsa section is unusable";
    }
  } else {
    rt.hsa.reason = "amdml-host.json has no hsa section";
  }
  if (auto j = ctx.host.recorded("libdrm")) {
    if (auto parsed = formats::parse_libdrm_record(*j)) {
      rt.libdrm = std::move(*parsed);
      rt.libdrm.recorded = true;
    } else {
      f.error("runtime", "amdml-host.json", parsed.error().message);
    }
  } else {
    rt.libdrm.reason = "amdml-host.json has no libdrm section";
  }
}

// GPU agents to Facts::gpus: PCI location first (HSA node numbers shift when libhsakmt
// skips a node it may not read), then the unique id, then the node index.
void join_agents(Facts& f) {
  for (auto& a : f.runtime.hsa.agents) {
    if (a.device != HsaDeviceType::gpu) continue;
    auto slot = a.pci_slot();
    for (std::size_t i = 0; i < f.gpus.size() && !a.gpu; ++i)
      if (slot && f.gpus[i].pci_slot == slot) a.gpu = static_cast<int>(i);
    if (!a.gpu && a.uuid && a.uuid->size() > 4 && *a.uuid != "GPU-XX") {
      std::string hex = a.uuid->substr(4);
      for (std::size_t i = 0; i < f.gpus.size() && !a.gpu; ++i)
        if (f.gpus[i].unique_id && *f.gpus[i].unique_id == hex) a.gpu = static_cast<int>(i);
    }
    for (std::size_t i = 0; i < f.gpus.size() && !a.gpu && a.node; ++i)
      if (f.gpus[i].kfd_node && static_cast<std::uint32_t>(*f.gpus[i].kfd_node) == *a.node) a.gpu = static_cast<int>(i);
  }
}

// Two sources that measure the same thing and differ by more than rounding.
void compare(std::vector<std::string>& out, const char* what, const std::optional<SourcedBytes>& a,
             const std::optional<SourcedBytes>& b) {
  if (!a || !b || a->value == b->value) return;
  std::uint64_t hi = std::max(a->value.value, b->value.value), lo = std::min(a->value.value, b->value.value);
  if (hi - lo <= hi / 1000) return;  // within 0.1 %
  out.push_back(std::string(what) + ": " + to_string(a->source) + " " + format_bytes(a->value) + ", " +
                to_string(b->source) + " " + format_bytes(b->value));
}

// libdrm's marketing name (amdgpu.ids) for GPUs no other layer named.
void name_from_libdrm(Facts& f) {
  for (auto& g : f.gpus) {
    if (g.marketing_name || !g.render_node) continue;
    for (const auto& d : f.runtime.libdrm.devices)
      if (d.opened && d.render_node == *g.render_node && d.marketing_name) g.marketing_name = d.marketing_name;
  }
}

void build_memory_views(Facts& f) {
  auto& rt = f.runtime;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    GpuMemoryView v;
    v.gpu = static_cast<int>(i);
    const DrmDeviceInfo* drm = nullptr;
    for (const auto& d : rt.libdrm.devices)
      if (d.opened && g.render_node && d.render_node == *g.render_node) drm = &d;
    auto pick = [](const std::optional<Bytes>& libdrm, const std::optional<Bytes>& sysfs) -> std::optional<SourcedBytes> {
      if (libdrm) return SourcedBytes{*libdrm, ValueSource::libdrm};
      if (sysfs) return SourcedBytes{*sysfs, ValueSource::sysfs};
      return std::nullopt;
    };
    auto sys = [](const std::optional<Bytes>& b) -> std::optional<SourcedBytes> {
      if (!b) return std::nullopt;
      return SourcedBytes{*b, ValueSource::sysfs};
    };
    auto lib = [](const std::optional<Bytes>& b) -> std::optional<SourcedBytes> {
      if (!b) return std::nullopt;
      return SourcedBytes{*b, ValueSource::libdrm};
    };
    v.vram_total = pick(drm ? drm->vram_total : std::nullopt, g.vram);
    v.vis_vram_total = pick(drm ? drm->vis_vram_total : std::nullopt, g.vis_vram);
    v.gtt_total = pick(drm ? drm->gtt_total : std::nullopt, g.gtt);
    if (drm) {
      v.vram_usable = lib(drm->vram_usable);
      v.gtt_usable = lib(drm->gtt_usable);
      compare(v.disagreements, "VRAM total", lib(drm->vram_total), sys(g.vram));
      compare(v.disagreements, "CPU-visible VRAM", lib(drm->vis_vram_total), sys(g.vis_vram));
      compare(v.disagreements, "GTT total", lib(drm->gtt_total), sys(g.gtt));
    }
    if (g.kfd_memory) v.kfd_memory = SourcedBytes{*g.kfd_memory, ValueSource::kfd};
    for (const auto& a : rt.hsa.agents) {
      if (a.gpu != v.gpu) continue;
      for (const auto& p : a.pools)
        if (p.segment == HsaSegment::global && (p.global_flags & kHsaPoolCoarseGrained) && p.size) {
          v.hsa_coarse_pool = SourcedBytes{*p.size, ValueSource::hsa};
          break;
        }
    }
    compare(v.disagreements, "GPU memory (HSA coarse-grained pool vs KFD memory banks)", v.hsa_coarse_pool, v.kfd_memory);
    if (v.vram_total || v.gtt_total || v.kfd_memory || v.hsa_coarse_pool) rt.memory.push_back(std::move(v));
  }
}

}  // namespace

void runtime(const ProbeContext& ctx, Facts& f) {
  auto& rt = f.runtime;
  if (!ctx.options.runtime) {
    rt.hsa.reason = rt.libdrm.reason = "--no-runtime";
  } else if (ctx.host.live()) {
    run_live(ctx, f);
    rt.probed = true;
  } else {
    replay(ctx, f);
    rt.probed = rt.hsa.recorded || rt.libdrm.recorded;
  }
  join_agents(f);
  name_from_libdrm(f);
  build_memory_views(f);
}

}  // namespace amdml::probes
