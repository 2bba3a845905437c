// The deep steps (doctor --deep, docs/deep.md): for each GPU agent the runtime probe
// listed, allocate, copy and fill through the HSA runtime, each step in its own child
// (`amdml __deep-hsa STEP`) started through Host::run. The whole run has one time budget
// (--deep-timeout); each child gets what is left of it, at most kStepLimit, and a step
// the budget cannot start is `not-run`. Live, the result is handed to Host::record_fact
// ("deep"), so a snapshot replays it; under --root it is read back and nothing runs.
// Right after a discrete GPU's copy step, its PCIe path is read from sysfs
// (probes/deep_link.cpp) and recorded with the steps, so the bandwidth can be held
// against the link it crossed.
#include <algorithm>
#include <chrono>

#include "formats/deep_record.hpp"
#include "probes/child.hpp"
#include "probes/deep_link.hpp"
#include "probes/deep_ml.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kStepLimit{10000};  // one step, whatever the budget
constexpr milliseconds kMinStep{500};      // less than this left: the step is not started
constexpr milliseconds kAnswerTime{300};   // the child stops its own work this long before its limit

// What the GTT/TTM limit promises the GPU: the smaller of DRM's GTT size and the TTM
// pages_limit of the module amdgpu uses. 0 when neither is known (no system sweep).
std::uint64_t system_limit(const Facts& f, const Gpu* g) {
  std::uint64_t limit = 0;
  auto take = [&limit](std::uint64_t v) {
    if (v) limit = limit ? std::min(limit, v) : v;
  };
  if (g && g->gtt) take(g->gtt->value);
  const TtmModuleState& ttm = f.driver.ttm_in_use == TtmModule::amdttm ? f.driver.amdttm : f.driver.ttm;
  if (ttm.pages_limit) take(ttm.pages_limit->bytes().value);
  return limit;
}

// The last line the runtime printed to stderr: often the real reason ("no code object
// for ISA ...").
std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  auto nl = t.rfind('\n');
  std::string line = nl == std::string::npos ? t : t.substr(nl + 1);
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

DeepStep step_from_child(DeepStepKind kind, const ChildOutcome& c, milliseconds limit) {
  DeepStep s;
  if (c.doc) {
    if (auto parsed = formats::parse_deep_step(*c.doc)) {
      s = std::move(*parsed);
    } else {
      s.outcome = DeepOutcome::bad_output;
      s.message = "the child's JSON does not fit: " + parsed.error().message;
    }
  } else {
    s.outcome = c.outcome == HsaOutcome::timed_out ? DeepOutcome::timed_out
                : c.outcome == HsaOutcome::crashed ? DeepOutcome::crashed
                                                   : DeepOutcome::bad_output;
    s.message = c.reason;
    s.last_step = c.last_step;
  }
  s.kind = kind;
  s.elapsed_ms = c.elapsed_ms;
  s.timeout_ms = static_cast<std::uint64_t>(limit.count());
  if (s.outcome != DeepOutcome::ok) {
    std::string said = last_line(c.stderr_tail);
    if (!said.empty() && s.message.find(said) == std::string::npos)
      s.message += (s.message.empty() ? "" : "; the runtime said: ") + said;
  }
  return s;
}

void run_live(const ProbeContext& ctx, Facts& f, Clock::time_point deadline) {
  DeepFacts& d = f.deep;
  d.budget_ms = static_cast<std::uint64_t>(ctx.options.deep_timeout.count());
  const HsaFacts& h = f.runtime.hsa;
  if (!ctx.options.runtime) {
    d.reason = "--no-runtime: the deep steps run through the HSA runtime";
    return;
  }
  if (h.outcome != HsaOutcome::ok) {
    d.reason = std::string("the HSA runtime did not start (") + to_string(h.outcome) + "), so nothing ran on a GPU";
    return;
  }
  if (h.gpu_agents() == 0) {
    d.reason = "the HSA runtime lists no GPU agent";
    return;
  }
  int index = 0;
  for (const auto& a : h.agents) {
    if (a.device != HsaDeviceType::gpu) continue;
    DeepGpu g;
    g.gpu = a.gpu;
    g.agent = index++;
    g.name = a.name;
    const Gpu* gpu = a.gpu ? &f.gpus[static_cast<std::size_t>(*a.gpu)] : nullptr;
    bool apu = (gpu && gpu->apu.value_or(false)) || a.apu.value_or(false);
    for (DeepStepKind kind : {DeepStepKind::memory, DeepStepKind::copy, DeepStepKind::fill}) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left < kMinStep) {
        DeepStep s;
        s.kind = kind;
        s.outcome = DeepOutcome::not_run;
        s.message = "the --deep-timeout budget was spent before this step";
        d.budget_spent = true;
        g.steps.push_back(std::move(s));
        continue;
      }
      milliseconds limit = std::min(left, kStepLimit);
      std::vector<std::string> args = {"__deep-hsa", to_string(kind), "--agent", std::to_string(g.agent),
                                       "--timeout-ms", std::to_string((limit - kAnswerTime).count())};
      if (kind == DeepStepKind::memory) {
        args.push_back("--system-limit");
        args.push_back(std::to_string(system_limit(f, gpu)));
        if (apu) args.push_back("--apu");
      }
      DeepStep s = step_from_child(kind, run_child(ctx, args, limit), limit);
      if (s.outcome == DeepOutcome::timed_out && limit < kStepLimit) d.budget_spent = true;
      g.steps.push_back(std::move(s));
      // The link as the copy left it: read at once, before it idles down to a lower speed.
      if (kind == DeepStepKind::copy && !apu && gpu && gpu->pci_slot) g.link = read_pcie_link(ctx.host, *gpu->pci_slot);
    }
    d.gpus.push_back(std::move(g));
  }
}

void replay(const ProbeContext& ctx, Facts& f) {
  auto j = ctx.host.recorded("deep");
  if (!j) {
    f.deep.reason = "amdml-host.json has no deep section";
    return;
  }
  auto parsed = formats::parse_deep_record(*j);
  if (!parsed) {
    f.error("deep", "amdml-host.json", parsed.error().message);
    f.deep.reason = "the recorded deep section is unusable";
    return;
  }
  f.deep = std::move(*parsed);
  f.deep.recorded = true;
}

// Recorded GPU agents are joined to Facts::gpus the way the runtime probe joined them:
// the agent index counts GPU agents in the runtime's order. A recorded discrete GPU whose
// record has no link (written before amdml read it) gets the link from the tree's sysfs.
void join(const ProbeContext& ctx, Facts& f) {
  for (auto& g : f.deep.gpus) {
    if (g.gpu) continue;
    int index = 0;
    const HsaAgent* agent = nullptr;
    for (const auto& a : f.runtime.hsa.agents) {
      if (a.device != HsaDeviceType::gpu) continue;
      if (index++ == g.agent) g.gpu = a.gpu, agent = &a;
    }
    const Gpu* gpu = g.gpu ? &f.gpus[static_cast<std::size_t>(*g.gpu)] : nullptr;
    bool apu = (gpu && gpu->apu.value_or(false)) || (agent && agent->apu.value_or(false));
    if (!g.link && !apu && gpu && gpu->pci_slot) g.link = read_pcie_link(ctx.host, *gpu->pci_slot);
  }
}

}  // namespace

void deep(const ProbeContext& ctx, Facts& f) {
  if (!ctx.options.deep) return;
  f.deep.asked = true;
  // One budget for the HSA steps and the frameworks' children after them.
  const auto start = Clock::now();
  const auto deadline = start + ctx.options.deep_timeout;
  if (ctx.host.live()) {
    run_live(ctx, f, deadline);
    deep_torch(ctx, f, deadline);
    deep_llamacpp(ctx, f, deadline);
    deep_ollama(ctx, f, deadline);
    f.deep.elapsed_ms = static_cast<std::uint64_t>(std::chrono::duration_cast<milliseconds>(Clock::now() - start).count());
    ctx.host.record_fact("deep", formats::deep_record_json(f.deep));
  } else {
    replay(ctx, f);
    deep_torch(ctx, f, deadline);  // replayed from the recorded commands
    deep_llamacpp(ctx, f, deadline);
    deep_ollama(ctx, f, deadline);
  }
  join(ctx, f);
}

}  // namespace amdml::probes
