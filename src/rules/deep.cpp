// deep.*: where running on the GPU (doctor --deep, facts_deep.hpp) proves or contradicts
// what the other rules inferred from files. The runtime's answer is the evidence: the
// call that failed, its status, and the last line the runtime printed. For PyTorch, a
// matmul per device: the real error text, and "invalid device function" named as the
// wheel lacking the GPU's gfx.
#include <algorithm>
#include <cstdio>

#include "formats/pcie_link.hpp"
#include "rules/deep_apps.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {
namespace {

std::string agent_label(const Facts& f, const DeepGpu& g) {
  if (g.gpu) return gpu_label(f, *g.gpu);
  return "GPU agent " + std::to_string(g.agent) + (g.name.empty() ? "" : " (" + g.name + ")");
}

std::string gbps(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", v);
  return buf;
}

void tie(Finding& fd, const DeepGpu& g) {
  if (g.gpu) fd.gpus.push_back(*g.gpu);
}

void add_step_evidence(Finding& fd, const DeepStep& s) {
  std::string src = std::string("--deep ") + to_string(s.kind);
  if (s.call) fd.evidence.push_back({src, *s.call + " returned " + s.error.value_or("an error")});
  if (!s.message.empty()) fd.evidence.push_back({src, s.message});
  if (s.last_step) fd.evidence.push_back({src + " (last step)", *s.last_step});
}

// A sweep that the runtime stopped short of its target, and why that is likely.
void alloc_short(const RuleContext& ctx, const DeepGpu& g, const DeepAlloc& a, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const Gpu* gpu = g.gpu ? &f.gpus[static_cast<std::size_t>(*g.gpu)] : nullptr;
  bool apu = gpu && gpu->apu.value_or(false);
  auto fd = make_finding(FindingId::deep_alloc_short,
                         agent_label(f, g) + ": the runtime gave " + format_bytes(a.allocated) + " of the " +
                             format_bytes(a.target) + " the " + (a.pool == "vram" ? "GPU's memory" : "system") +
                             " pool promises",
                         "");
  std::string why;
  bool at_carve_out = gpu && gpu->vram && a.allocated.value <= gpu->vram->value + gpu->vram->value / 20;
  auto kernel = f.os.kernel;
  if (a.pool == "vram" && apu && at_carve_out) {
    why = "Allocation stopped at the BIOS carve-out (" + format_bytes(*gpu->vram) +
          "): KFD keeps this APU's GPU memory in the carve-out instead of GTT. Linux 6.10 lets KFD use GTT on APUs "
          "with a small carve-out, and Linux 6.15 (or a distribution kernel with its backport) whenever GTT is "
          "larger; before that, ROCm sees only the carve-out, whatever ttm.pages_limit says.";
    if (kernel && *kernel < Version{6, 10, 0}) why += " This kernel is " + kernel->str() + ".";
    else if (kernel && *kernel < Version{6, 15, 0})
      why += " This kernel is " + kernel->str() + ": a larger carve-out in the firmware setup, or a newer kernel, helps.";
  } else if (a.pool == "system") {
    why = "KFD limits pinned system memory to about the RAM minus 1/64 and a reserve, and TTM to its pages_limit; "
          "another program holding memory, or a limit lower than the configured one, stops the sweep.";
  } else {
    why = "The runtime refused memory its own pool size promises: another process holds GPU memory, or the driver's "
          "limit is lower than the pool reports.";
  }
  fd.detail = "amdml allocated in " + format_bytes(a.chunk) + " chunks and the runtime answered " +
              a.error.value_or("an error") + ". " + why;
  fd.evidence.push_back({std::string("--deep memory, ") + a.pool + " pool",
                         format_bytes(a.allocated) + " of " + format_bytes(a.target) + " (" + a.error.value_or("?") + ")"});
  if (gpu && gpu->vram) fd.evidence.push_back({"mem_info_vram_total", format_bytes(*gpu->vram)});
  if (f.os.kernel_release) fd.evidence.push_back({"uname -r", *f.os.kernel_release});
  tie(fd, g);
  out.push_back(std::move(fd));
}

void step_failed(const Facts& f, const DeepGpu& g, const DeepStep& s, std::vector<Finding>& out) {
  std::string what = to_string(s.kind);
  std::string title, detail;
  switch (s.outcome) {
    case DeepOutcome::timed_out:
      title = "the " + what + " step did not finish within " + std::to_string(s.timeout_ms) + " ms and was killed";
      detail = "A runtime call that never returns on a GPU is a wedged queue or driver: check `sudo dmesg` for "
               "amdgpu ring timeouts. When the budget was short, a larger --deep-timeout gives the step more time.";
      break;
    case DeepOutcome::crashed:
      title = "the " + what + " step's child crashed";
      detail = "The runtime died inside the call named by the last step; a runtime that crashes on a real GPU is "
               "usually a mismatch between the runtime and the kernel driver, or an HSA_OVERRIDE_GFX_VERSION the "
               "hardware cannot run.";
      break;
    case DeepOutcome::init_failed:
      title = "the " + what + " step could not start the runtime or find the GPU agent";
      detail = "The runtime probe saw this agent, but the step's own child could not: the evidence has the runtime's words.";
      break;
    case DeepOutcome::not_run:
      title = "the " + what + " step was not run: the --deep-timeout budget was spent";
      detail = "Earlier steps used the whole budget; run again with a larger --deep-timeout.";
      break;
    default:
      title = "the " + what + " step's child answered something that is not amdml's JSON";
      detail = "Something printed over the child's answer; the evidence has what was read.";
      break;
  }
  auto fd = make_finding(FindingId::deep_step_failed, agent_label(f, g) + ": " + title, detail);
  if (s.outcome == DeepOutcome::not_run) fd.severity = Severity::warning;
  add_step_evidence(fd, s);
  tie(fd, g);
  out.push_back(std::move(fd));
}

void copy_failed(const Facts& f, const DeepGpu& g, const DeepStep& s, std::vector<Finding>& out) {
  bool corrupt = s.data_ok && !*s.data_ok;
  auto fd = make_finding(
      FindingId::deep_copy_failed,
      agent_label(f, g) + (corrupt ? ": data copied to the GPU and back came back different"
                                   : ": a host<->device copy failed"),
      corrupt ? "The runtime reported success but the bytes differ" +
                    (s.mismatch_at ? " first at offset " + std::to_string(*s.mismatch_at) : std::string()) +
                    ". Silent corruption on the way through PCIe or the GPU's memory: check `sudo dmesg` for amdgpu "
                    "or PCIe (AER) errors, and test the memory with the vendor's tools."
              : "The runtime's copy engine (SDMA) or blit kernel could not move data for this GPU. Check `sudo dmesg` "
                "for amdgpu errors; HSA_ENABLE_SDMA=0 makes the runtime copy with kernels instead, which tells the "
                "two apart.");
  add_step_evidence(fd, s);
  tie(fd, g);
  out.push_back(std::move(fd));
}

void fill_failed(const Facts& f, const DeepGpu& g, const DeepStep& s, std::vector<Finding>& out) {
  bool isa = s.error && (*s.error == "HSA_STATUS_ERROR_INVALID_ISA" || *s.error == "HSA_STATUS_ERROR_INVALID_CODE_OBJECT");
  std::string detail;
  if (isa) {
    detail = "hsa_amd_memory_fill runs a kernel that the runtime carries for each ISA it supports. " + *s.error +
             " means this runtime has no code for the ISA the agent reports (\"" + g.name +
             "\"): whatever kernels ROCm's libraries ship, nothing will run on this GPU with this runtime. "
             "An HSA_OVERRIDE_GFX_VERSION naming an ISA this runtime lacks, or a runtime older than the GPU, does "
             "this; see gfx.* for the override that fits.";
  } else if (s.data_ok && !*s.data_ok) {
    detail = "The fill kernel ran but the memory read back does not hold the value it wrote: the kernel ran as "
             "another ISA (an override across ISA families) or the GPU's memory is faulty.";
  } else {
    detail = "The runtime could not run its own fill kernel on this GPU, so no compute kernel will run either. "
             "The evidence has the runtime's error; `sudo dmesg` may show the GPU side.";
  }
  auto fd = make_finding(FindingId::deep_fill_failed, agent_label(f, g) + ": the runtime's fill kernel did not run", detail);
  add_step_evidence(fd, s);
  for (const auto& [k, v] : f.env)
    if (k.starts_with("HSA_OVERRIDE_GFX_VERSION")) fd.evidence.push_back({"env " + k, v});
  tie(fd, g);
  out.push_back(std::move(fd));
}

// What the copy should reach: the PCIe path's slowest link (read right after the copy)
// against the knowledge's figure for its generation and width. Unset when there is
// nothing to compare with; `why` then says so, and `link` names what was read.
struct CopyExpectation {
  const PcieGen* gen = nullptr;  // the comparison holds when set
  std::uint32_t width = 0;
  double expected = 0;           // GB/s
  std::string link;              // "16 GT/s x16 at 0000:03:00.0 (the slowest of 3 links)"
  std::string below_max;         // "the link runs at 8 GT/s x4, the card can do 16 GT/s x16"
  std::string why;               // no comparison: why
  std::string name() const { return "PCIe " + std::to_string(gen->gen) + ".0 x" + std::to_string(width); }
};

std::string link_text(const PcieLink& l) {
  return (l.gts ? formats::pcie::speed_text(*l.gts) : std::string("unknown speed")) + " x" +
         (l.width ? std::to_string(*l.width) : std::string("?"));
}

CopyExpectation copy_expectation(const RuleContext& ctx, const DeepGpu& g, const DeepStep& s) {
  CopyExpectation e;
  const Facts& f = ctx.facts;
  const Gpu* gpu = g.gpu ? &f.gpus[static_cast<std::size_t>(*g.gpu)] : nullptr;
  if (gpu && gpu->apu.value_or(false)) {
    e.why = "none: an integrated GPU shares the system's memory, its copies cross no PCIe link, so there is no "
            "PCIe figure to compare with";
    return e;
  }
  if (!g.link || !g.link->current.gts || !g.link->current.width) {
    e.why = "not readable in sysfs (current_link_speed, current_link_width), so no expected figure";
    return e;
  }
  const DeepLink& l = *g.link;
  e.link = link_text(l.current) + " at " + l.limited_at +
           (l.links > 1 ? " (the slowest of " + std::to_string(l.links) + " links up to the CPU)" : std::string());
  if (l.max.gts && l.max.width && (*l.max.gts > *l.current.gts + 0.01 || *l.max.width > *l.current.width))
    e.below_max = "the link runs at " + link_text(l.current) + ", the card can do " + link_text(l.max);
  const PcieGen* gen = ctx.kb.find_pcie(*l.current.gts);
  if (!gen) {
    e.why = "the knowledge has no PCIe generation at " + formats::pcie::speed_text(*l.current.gts);
    return e;
  }
  // Faster than the link can carry at all: the speed was read after the link slowed down
  // again (ASPM, link power management), not the speed the copy ran at.
  double best = std::max(s.h2d_gbps.value_or(0), s.d2h_gbps.value_or(0));
  if (best > gen->lane_gbs * *l.current.width) {
    e.why = "the copy ran faster than " + link_text(l.current) + " carries: the link slowed down after the copy "
            "(power saving), so its speed then says nothing about the copy";
    return e;
  }
  e.gen = gen;
  e.width = *l.current.width;
  e.expected = gen->expected_gbs(e.width);
  return e;
}

std::string approx_gbps(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 10 ? "~%.0f GB/s" : "~%.1f GB/s", v);
  return buf;
}

void add_link_evidence(Finding& fd, const CopyExpectation& e) {
  if (!e.link.empty()) fd.evidence.push_back({"PCIe link (sysfs, after the copy)", e.link});
  if (!e.below_max.empty()) fd.evidence.push_back({"PCIe link", e.below_max});
  if (e.gen) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s: %.4g GB/s per lane each way x %u lanes x %.2g for a pinned DMA copy",
                  approx_gbps(e.expected).c_str(), e.gen->lane_gbs, e.width, e.gen->practical);
    fd.evidence.push_back({"expected (knowledge pcie.toml)", buf});
  } else if (!e.why.empty()) {
    fd.evidence.push_back({"PCIe comparison", e.why});
  }
}

// Either direction below half of what the link should move: a slow path, not a broken one.
void copy_slow(const Facts& f, const DeepGpu& g, const DeepStep& s, const CopyExpectation& e,
               std::vector<Finding>& out) {
  double h2d = *s.h2d_gbps, d2h = *s.d2h_gbps;
  bool slow_h2d = h2d < e.expected / 2, slow_d2h = d2h < e.expected / 2;
  std::string dirs = slow_h2d && slow_d2h ? "copies ran at " + gbps(h2d) + " to the GPU and " + gbps(d2h) + " back"
                     : slow_h2d           ? "copies to the GPU ran at " + gbps(h2d)
                                          : "copies back from the GPU ran at " + gbps(d2h);
  auto fd = make_finding(FindingId::deep_copy_slow,
                         agent_label(f, g) + ": " + dirs + ", less than half of the " +
                             approx_gbps(e.expected) + " expected for " + e.name(),
                         "");
  std::string detail = "A large pinned copy reaches about " + std::to_string(static_cast<int>(e.gen->practical * 100 + 0.5)) +
                       "% of what the slowest PCIe link between the GPU and the CPU carries each way; this one did not "
                       "reach half of that. ";
  if (!e.below_max.empty())
    detail += "Also, " + e.below_max + ": a riser, a slot wired with fewer lanes or through the chipset, or power "
              "saving. The speed was read right after the copy, and some GPUs lower it when idle, so a lower speed "
              "alone proves little; `sudo lspci -vv -s " + text::shell_word(g.link->slot) + "` shows the link's state (LnkSta) next to "
              "what it can do (LnkCap). ";
  detail += "Other causes: another program copying at the same time, PCIe errors that retrain the link (`sudo dmesg` "
            "shows AER messages), or the copy engine: HSA_ENABLE_SDMA=0 makes the runtime copy with kernels instead, "
            "which tells the two apart.";
  fd.detail = detail;
  fd.evidence.push_back({"--deep copy", gbps(h2d) + " host->device, " + gbps(d2h) + " device->host, " +
                                            format_bytes(s.bytes.value_or(Bytes{0})) + " each way"});
  add_link_evidence(fd, e);
  tie(fd, g);
  out.push_back(std::move(fd));
}

// One info line per GPU that passed: what it proved.
void verified(const RuleContext& ctx, const DeepGpu& g, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  std::vector<std::string> parts;
  auto fd = make_finding(FindingId::deep_verified, "", "");
  std::string copy_detail;
  for (const auto& s : g.steps) {
    // A memory step fails when one pool refused; what the other pool gave is still proved.
    if (s.outcome != DeepOutcome::ok && !(s.kind == DeepStepKind::memory && s.outcome == DeepOutcome::failed)) continue;
    if (s.kind == DeepStepKind::memory) {
      for (const auto& a : s.allocs) {
        if (a.stop == DeepAllocStop::no_pool || a.stop == DeepAllocStop::error) continue;
        parts.push_back("allocated " + format_bytes(a.allocated) + " (" + a.pool + ")");
        std::string ev = format_bytes(a.allocated) + " of " + format_bytes(a.target) + ", stopped: " + to_string(a.stop);
        if (a.stop == DeepAllocStop::meminfo && a.bound)
          ev += " (MemAvailable minus the margin: " + format_bytes(*a.bound) + "; close programs to prove more)";
        fd.evidence.push_back({std::string("--deep memory, ") + a.pool + " pool", ev});
      }
    } else if (s.kind == DeepStepKind::copy && s.h2d_gbps && s.d2h_gbps) {
      CopyExpectation e = copy_expectation(ctx, g, s);
      if (e.gen)
        parts.push_back("copied host->device " + gbps(*s.h2d_gbps) + ", device->host " + gbps(*s.d2h_gbps) + " of " +
                        approx_gbps(e.expected) + " expected for " + e.name());
      else
        parts.push_back("copied at " + gbps(*s.h2d_gbps) + " to the GPU, " + gbps(*s.d2h_gbps) + " back");
      fd.evidence.push_back({"--deep copy", format_bytes(s.bytes.value_or(Bytes{0})) + " each way, checksum matched"});
      add_link_evidence(fd, e);
      copy_detail = e.gen ? " The expected figure is what a pinned DMA copy reaches over the slowest PCIe link between "
                            "the GPU and the CPU, read from sysfs right after the copy (recipes/knowledge/pcie.toml)."
                          : "";
      if (e.gen && (*s.h2d_gbps < e.expected / 2 || *s.d2h_gbps < e.expected / 2)) copy_slow(f, g, s, e, out);
    } else if (s.kind == DeepStepKind::fill) {
      parts.push_back("ran the runtime's fill kernel");
    }
  }
  if (parts.empty()) return;
  std::string line;
  for (const auto& p : parts) line += (line.empty() ? "" : ", ") + p;
  fd.title = agent_label(f, g) + ": " + line;
  fd.detail = "Proved by running, not inferred. The bandwidth is one pinned transfer each way through "
              "hsa_amd_memory_async_copy." + copy_detail;
  tie(fd, g);
  out.push_back(std::move(fd));
}

// torch's device N as a GPU of the report: the one GPU of the gfx torch named for it.
std::optional<int> torch_gpu(const Facts& f, const TorchRuntime& t, int device) {
  if (device < 0 || static_cast<std::size_t>(device) >= t.device_archs.size()) return std::nullopt;
  const std::string& arch = t.device_archs[static_cast<std::size_t>(device)];
  auto gfx = GfxTarget::parse_name(arch.substr(0, arch.find(':')));  // "gfx90a:sramecc+:xnack-"
  if (!gfx) return std::nullopt;
  std::optional<int> found;
  int n = 0;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (f.gpus[i].gfx == *gfx) found = static_cast<int>(i), ++n;
  return n == 1 ? found : std::nullopt;
}

std::string torch_device(const Facts& f, const TorchRuntime& t, int device) {
  if (auto g = torch_gpu(f, t, device)) return gpu_label(f, *g);
  std::string label = "cuda:" + std::to_string(device);
  auto at = static_cast<std::size_t>(device);
  std::string arch = device >= 0 && at < t.device_archs.size() ? t.device_archs[at] : "";
  std::string name = device >= 0 && at < t.device_names.size() ? t.device_names[at] : "";
  if (!name.empty() || !arch.empty()) label += " (" + name + (name.empty() || arch.empty() ? "" : ", ") + arch + ")";
  return label;
}

// What HIP, rocBLAS and torch say when a wheel has no code object for the GPU.
bool no_code_for_gfx(const std::string& e) {
  for (const char* s : {"invalid device function", "hipErrorInvalidDeviceFunction", "hipErrorNoBinaryForGpu",
                        "No compatible code objects", "Cannot read TensileLibrary", "no kernel image"})
    if (e.find(s) != std::string::npos) return true;
  return false;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

void add_torch_evidence(Finding& fd, const PythonEnv& env, const TorchMatmul& m) {
  std::string src = env.interpreter.value_or(env.prefix) + " (--deep matmul, cuda:" + std::to_string(m.device) + ")";
  if (m.error) fd.evidence.push_back({src, std::string(text::trim(text::one_line(*m.error)))});  // the whole text, one line
  if (env.torch_version) fd.evidence.push_back({"torch", *env.torch_version});
  if (env.runtime && !env.runtime->arch_list.empty())
    fd.evidence.push_back({"torch.cuda.get_arch_list()", text::join(env.runtime->arch_list, " ")});
}

void torch_no_gfx(const Facts& f, const PythonEnv& env, const TorchMatmul& m, std::vector<Finding>& out) {
  const TorchRuntime& t = *env.runtime;
  auto at = static_cast<std::size_t>(m.device);
  std::string arch = at < t.device_archs.size() ? t.device_archs[at] : "";
  std::string gfx = arch.substr(0, arch.find(':'));
  bool listed = !gfx.empty() && std::find(t.arch_list.begin(), t.arch_list.end(), gfx) != t.arch_list.end();
  auto fd = make_finding(FindingId::deep_torch_no_gfx,
                         "PyTorch in " + env.prefix + " has no kernels for " + (gfx.empty() ? "this GPU" : gfx) +
                             ": a matmul on " + torch_device(f, t, m.device) + " raised \"" + first_line(*m.error) + "\"",
                         "");
  std::string detail = "torch imported and torch.cuda.is_available() said True, so every file-based check passes; but "
                       "the first kernel it launched on this GPU failed because the wheel carries no code object for " +
                       (gfx.empty() ? std::string("the GPU's gfx target") : gfx) + ".";
  if (listed)
    detail += " torch's arch list names " + gfx + ", so the missing code is in a library it loads (rocBLAS, "
              "hipBLASLt, MIOpen) or HSA_OVERRIDE_GFX_VERSION makes the GPU report another target.";
  else if (!t.arch_list.empty())
    detail += " Its arch list (" + text::join(t.arch_list, ", ") + ") does not include it.";
  detail += " Install a wheel built for this GPU, or set HSA_OVERRIDE_GFX_VERSION to a same-family target the wheel "
            "has (torch.gfx and gfx.* say which).";
  fd.detail = detail;
  add_torch_evidence(fd, env, m);
  for (const auto& [k, v] : f.env)
    if (k.starts_with("HSA_OVERRIDE_GFX_VERSION")) fd.evidence.push_back({"env " + k, v});
  if (auto g = torch_gpu(f, t, m.device)) fd.gpus.push_back(*g);
  out.push_back(std::move(fd));
}

void torch_failed(const Facts& f, const PythonEnv& env, const TorchMatmul& m, std::vector<Finding>& out) {
  const TorchRuntime& t = *env.runtime;
  std::string on = torch_device(f, t, m.device);
  std::string e = m.error.value_or("");
  std::string title, detail;
  if (m.timed_out) {
    title = "a matmul in PyTorch (" + env.prefix + ") on " + on + " never finished";
    detail = "The child was killed at its limit" +
             (t.timeout_ms ? " (" + std::to_string(t.timeout_ms / 1000) + " s)" : std::string()) +
             " while the GPU had not finished a 2048x2048 multiplication that takes milliseconds: a wedged queue "
             "or driver (check `sudo dmesg` for amdgpu ring timeouts), or, when the --deep-timeout budget was short, "
             "a slow first start of torch; a larger --deep-timeout tells them apart.";
  } else if (e.find("OutOfMemoryError") != std::string::npos || e.find("out of memory") != std::string::npos) {
    title = "PyTorch in " + env.prefix + " ran out of GPU memory on " + on + " for a 2048x2048 matmul";
    detail = "Three 16 MiB matrices did not fit: another program holds the GPU's memory (ollama keeps a model "
             "loaded for minutes after its last request; `rocm-smi --showpids` lists them), or the memory ROCm may "
             "use is tiny (an APU's carve-out or GTT limit: see the memory findings).";
  } else if (m.ok && m.data_ok == false) {
    title = "a matmul in PyTorch (" + env.prefix + ") on " + on + " gave a wrong result";
    detail = "The GPU's result differs from the CPU's for the same matrices: the kernels ran as another ISA (an "
             "HSA_OVERRIDE_GFX_VERSION across families) or the GPU's memory is faulty.";
  } else {
    title = "a matmul in PyTorch (" + env.prefix + ") on " + on + " failed: " + first_line(e).substr(0, 120);
    detail = "torch imported and saw the GPU, but running on it failed with the error in the evidence; `sudo dmesg` "
             "may show the GPU side.";
  }
  auto fd = make_finding(FindingId::deep_torch_failed, title, detail);
  add_torch_evidence(fd, env, m);
  if (auto g = torch_gpu(f, t, m.device)) fd.gpus.push_back(*g);
  out.push_back(std::move(fd));
}

void torch_verified(const Facts& f, const PythonEnv& env, const TorchMatmul& m, std::vector<Finding>& out) {
  const TorchRuntime& t = *env.runtime;
  std::string size = m.size ? std::to_string(*m.size) + "x" + std::to_string(*m.size) + " " : std::string();
  std::string rate;
  if (m.tflops) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " at %.2f TFLOP/s", *m.tflops);
    rate = buf;
  }
  auto fd = make_finding(FindingId::deep_torch_verified,
                         "PyTorch in " + env.prefix + " multiplied " + size + "float32 matrices on " +
                             torch_device(f, t, m.device) + rate,
                         "Proved by running: torch " + env.torch_version.value_or("") +
                             " launched its kernels on this GPU, synchronised, and a block of the result matched the "
                             "CPU's. The rate is one small matmul after a warm-up, not the GPU's peak.");
  if (m.ms) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f ms per multiplication", *m.ms);
    fd.evidence.push_back({env.interpreter.value_or(env.prefix) + " (--deep matmul, cuda:" + std::to_string(m.device) + ")", buf});
  }
  if (auto g = torch_gpu(f, t, m.device)) fd.gpus.push_back(*g);
  out.push_back(std::move(fd));
}

void deep_torch_rules(const Facts& f, std::vector<Finding>& out) {
  for (const auto& env : f.ml.python) {
    if (!env.runtime || !env.runtime->ran) continue;
    for (const auto& m : env.runtime->matmuls) {
      if (m.ok && m.data_ok != false) torch_verified(f, env, m, out);
      else if (!m.ok && m.error && !m.timed_out && no_code_for_gfx(*m.error)) torch_no_gfx(f, env, m, out);
      else torch_failed(f, env, m, out);
    }
  }
}

}  // namespace

void deep_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  for (const auto& g : f.deep.gpus) {
    for (const auto& s : g.steps) {
      if (s.outcome == DeepOutcome::ok && s.kind != DeepStepKind::memory) continue;
      if (s.outcome != DeepOutcome::ok && s.outcome != DeepOutcome::failed) {
        step_failed(f, g, s, out);
      } else if (s.kind == DeepStepKind::memory) {
        for (const auto& a : s.allocs)
          if (a.stop == DeepAllocStop::error && a.allocated.value < a.target.value) alloc_short(ctx, g, a, out);
      } else if (s.kind == DeepStepKind::copy) {
        copy_failed(f, g, s, out);
      } else {
        fill_failed(f, g, s, out);
      }
    }
    verified(ctx, g, out);
  }
  deep_torch_rules(f, out);
  deep_llamacpp_rules(f, out);
  deep_ollama_rules(f, out);
}

}  // namespace amdml::rules
