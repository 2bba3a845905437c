// doctor --deep for the ML frameworks (probes/deep_ml.hpp). Each child runs through
// Host::run with a time limit: its whole process group is killed at the limit, and what it
// printed until then is kept (the torch program flushes a line per stage, so a matmul
// that hangs is named). llama.cpp's --list-devices runs the same way, one child per build.
#include <algorithm>

#include "base/paths.hpp"
#include "formats/llama_devices.hpp"
#include "formats/ml_outputs.hpp"
#include "probes/deep_ml.hpp"

namespace amdml::probes {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kTorchLimit{60000};  // one environment, whatever the budget: import + matmuls
constexpr milliseconds kMinChild{500};      // less than this left: the child is not started
constexpr milliseconds kLlamaLimit{15000};  // one --list-devices: loads ggml's backends, lists, exits

bool worth_running(const PythonEnv& env) {
  // CPU and CUDA builds cannot see an AMD GPU whatever happens; importing them proves nothing.
  bool rocm_or_unknown = env.torch_build == TorchBuild::rocm || env.torch_build == TorchBuild::unknown;
  return env.torch_path && env.interpreter && rocm_or_unknown;
}

}  // namespace

void deep_torch(const ProbeContext& ctx, Facts& f, Clock::time_point deadline) {
  const bool live = ctx.host.live();
  for (auto& env : f.ml.python) {
    if (!worth_running(env)) continue;
    TorchRuntime t;
    milliseconds limit = kTorchLimit;
    if (live) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left < kMinChild) {
        t.ran = false;  // nothing ran: no verdict on torch, only the reason
        t.error = "not run: the --deep-timeout budget was spent before this environment";
        f.deep.budget_spent = true;
        env.runtime = std::move(t);
        continue;
      }
      limit = std::min(left, kTorchLimit);
    }
    auto r = ctx.host.run({*env.interpreter, "-c", formats::mlparse::torch_probe_program()}, limit);
    if (r) {
      t = formats::mlparse::torch_runtime(*r);
      if (live) {
        t.timeout_ms = static_cast<std::uint64_t>(limit.count());
        if (r->timed_out && limit < kTorchLimit) f.deep.budget_spent = true;
      }
    } else {
      t.ran = false;
      t.error = "could not run " + *env.interpreter + ": " + r.error().message;
    }
    env.runtime = std::move(t);
  }
}

namespace {

// One llama.cpp build per directory: its llama-cli, else its llama-server (the two share
// common/arg.cpp, so either lists the same devices).
bool first_of_its_build(const std::vector<LlamaBinary>& all, std::size_t i) {
  auto dir = paths::dirname(all[i].path);
  bool cli = paths::basename(all[i].path) == "llama-cli";
  for (std::size_t j = 0; j < all.size(); ++j) {
    if (j == i || paths::dirname(all[j].path) != dir) continue;
    bool other_cli = paths::basename(all[j].path) == "llama-cli";
    if (other_cli && !cli) return false;
    if (other_cli == cli && j < i) return false;
  }
  return true;
}

}  // namespace

void deep_llamacpp(const ProbeContext& ctx, Facts& f, Clock::time_point deadline) {
  const bool live = ctx.host.live();
  for (std::size_t i = 0; i < f.ml.llama.size(); ++i) {
    LlamaBinary& b = f.ml.llama[i];
    if (!first_of_its_build(f.ml.llama, i)) continue;
    milliseconds limit = kLlamaLimit;
    if (live) {
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left < kMinChild) {
        LlamaDeviceList d;
        d.error = "not run: the --deep-timeout budget was spent before this build";
        f.deep.budget_spent = true;
        b.devices = std::move(d);
        continue;
      }
      limit = std::min(left, kLlamaLimit);
    }
    auto r = ctx.host.run({b.path, "--list-devices"}, limit);
    if (!r && !live) continue;  // a snapshot without this answer (taken before amdml asked): nothing known
    LlamaDeviceList d;
    if (r) {
      d = formats::llama::device_list(*r);
      if (live) {
        d.timeout_ms = static_cast<std::uint64_t>(limit.count());
        if (r->timed_out && limit < kLlamaLimit) f.deep.budget_spent = true;
      }
    } else {
      d.error = "could not run " + b.path + " --list-devices: " + r.error().message;
    }
    b.devices = std::move(d);
  }
}

}  // namespace amdml::probes
