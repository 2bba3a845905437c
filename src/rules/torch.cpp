// torch.*: the PyTorch in each Python environment doctor looked at -- a ROCm build, with
// kernels for the GPU's gfx, for a ROCm the driver supports, with the rocm wheels it
// loads ROCm from (rocm7.14 and later, AMD's TheRock builds), and (with --deep) working
// when imported in a child process.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

// The pytorch.org ROCm index for this host: the knowledge base's release matching the
// installed ROCm when it covers the GPUs, else Knowledge::pytorch_for (what `explain`
// recommends) over the GPUs' targets, skipping releases the running driver is too old for.
const RocmRelease* wheel_release(const RuleContext& ctx) {
  const Facts& f = ctx.facts;
  std::vector<GfxTarget> targets;
  for (int i : ml::gpus_with_gfx(f)) targets.push_back(*f.gpus[i].gfx);
  auto usable = [&](const RocmRelease& r) { return !ml::driver_too_old_for(f, r); };
  if (f.rocm.version)
    if (const auto* r = ctx.kb.find_rocm(*f.rocm.version); r && !r->pytorch_index.empty() && usable(*r)) {
      bool covers = true;
      for (const auto& g : targets) {
        const auto* info = ctx.kb.find_gfx(g);
        covers &= r->has_kernels(g) || (info && info->override_to && r->has_kernels(*info->override_to));
      }
      if (covers) return r;
    }
  auto pc = ctx.kb.pytorch_for(targets, usable);
  return pc.wheel ? ctx.kb.wheel_release(*pc.wheel) : nullptr;
}

std::string pip_line(const PythonEnv& env, const RocmRelease* r) {
  std::string py = text::shell_word(env.interpreter.value_or("python3"));
  if (!r) return py + " -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/rocmX.Y   "
                      "# pick the ROCm index for your GPU on pytorch.org";
  return py + " -m pip install --force-reinstall torch --index-url " + r->pytorch_index;
}

void torch_build_rule(const RuleContext& ctx, const PythonEnv& env, std::vector<Finding>& out) {
  if (env.torch_build != TorchBuild::cpu && env.torch_build != TorchBuild::cuda) return;
  const bool cuda = env.torch_build == TorchBuild::cuda;
  std::string what = cuda ? "a CUDA build (for NVIDIA GPUs)" : "a CPU-only build";
  auto fd = make_finding(FindingId::torch_build, "PyTorch in " + env.prefix + " is " + what,
                         "torch " + env.torch_version.value_or("?") + " in " + env.prefix + " is " + what +
                             ": torch.cuda.is_available() is False on this AMD GPU whatever the driver does. "
                             "Install a ROCm wheel.");
  fd.evidence.push_back({*env.torch_path + "/version.py",
                         "__version__=" + env.torch_version.value_or("?") + ", hip=None" +
                             (cuda ? ", cuda=" + env.torch_cuda.value_or("?") : ", cuda=None")});
  const auto* r = wheel_release(ctx);
  fd.commands.push_back(pip_line(env, r));
  if (r) fd.notes.push_back("ROCm wheels bring their own ROCm libraries; they need only the amdgpu driver and access "
                            "to /dev/kfd.");
  fd.gpus = amd_gpu_indices(ctx.facts);
  out.push_back(std::move(fd));
}

// pytorch.org's rocm7.14 wheels and AMD's TheRock builds carry no ROCm in torch/lib: they
// load it from the rocm, rocm-sdk-core and rocm-sdk-libraries wheels, which pip installs
// beside them. Without those, import torch fails on libamdhip64.
void torch_wheels_rule(const RuleContext& ctx, const PythonEnv& env, std::vector<Finding>& out) {
  if (env.torch_rocm != TorchRocm::rocm_wheels && env.torch_rocm != TorchRocm::amd_device) return;
  const auto& w = env.rocm_wheels;
  if (w.core_path || w.core_version) return;
  const Facts& f = ctx.facts;
  const std::string ver = env.torch_version.value_or("?");
  const bool amd = env.torch_rocm == TorchRocm::amd_device;
  auto fd = make_finding(FindingId::torch_rocm_wheels,
                         "PyTorch in " + env.prefix + " needs TheRock's rocm wheels, which are not installed",
                         "torch " + ver + (amd ? " is AMD's TheRock build" : " is a pytorch.org ROCm 7.14-or-later wheel") +
                             ": it carries no ROCm in torch/lib and loads it from the rocm, rocm-sdk-core and "
                             "rocm-sdk-libraries wheels, which are missing from " + env.prefix +
                             ", so import torch fails to load libamdhip64.");
  fd.evidence.push_back({*env.torch_path + "/lib", "no libamdhip64.so"});
  for (const auto& s : env.site_packages) fd.evidence.push_back({s, "no rocm_sdk_core dist-info or _rocm_sdk_core"});
  // The ROCm series from torch's local version tag: "+rocm7.14" (pytorch.org), "+rocm7.14.0" (AMD).
  std::string series;
  if (auto at = ver.find("+rocm"); at != std::string::npos)
    if (auto v = Version::parse(ver.substr(at + 5))) series = std::to_string(v->major) + "." + std::to_string(v->minor);
  std::string extras = "libraries";
  for (int i : ml::gpus_with_gfx(f)) extras += ",device-" + f.gpus[i].gfx->name();
  const std::string py = text::shell_word(env.interpreter.value_or("python3"));
  const std::string spec = text::shell_word("rocm[" + extras + "]" + (series.empty() ? std::string() : "==" + series + ".*"));
  if (!amd && !series.empty())
    fd.commands.push_back(py + " -m pip install --index-url " + text::shell_word("https://download.pytorch.org/whl/rocm" + series) +
                          " " + spec);
  else
    fd.commands.push_back(py + " -m pip install " + spec + "   # from the index this torch came from");
  fd.notes.push_back("pip installs them with torch from the same index; they go missing when torch was installed with "
                     "--no-deps or copied from another environment.");
  fd.gpus = amd_gpu_indices(f);
  attach_pip_install(ctx, env, PipNeed::rocm_wheels, ml::gpus_with_gfx(f), fd);
  out.push_back(std::move(fd));
}

void torch_gfx_rule(const RuleContext& ctx, const PythonEnv& env, std::vector<Finding>& out) {
  if (env.torch_build != TorchBuild::rocm) return;
  // Its device code comes from the rocm wheels' device packages: rocm.device-missing and
  // torch.rocm-wheels judge those.
  if (env.torch_rocm == TorchRocm::rocm_wheels || env.torch_rocm == TorchRocm::amd_device) return;
  const Facts& f = ctx.facts;
  std::vector<GfxTarget> targets;
  std::string source;
  if (!env.torch_rocblas_targets.empty()) {
    targets = env.torch_rocblas_targets;
    source = *env.torch_path + "/lib/rocblas/library";
  } else if (env.runtime && !env.runtime->arch_list.empty()) {
    for (const auto& a : env.runtime->arch_list)
      if (auto g = GfxTarget::parse_name(a)) targets.push_back(*g);
    source = "torch.cuda.get_arch_list()";
  } else if (env.torch_hip) {
    if (auto v = Version::parse(*env.torch_hip))
      if (const auto* r = ctx.kb.find_rocm(*v)) {
        targets = r->kernels;
        source = "ROCm " + r->version.str() + " library targets (knowledge base)";
      }
  }
  if (targets.empty()) return;
  auto has = [&](const GfxTarget& g) { return std::find(targets.begin(), targets.end(), g) != targets.end(); };
  std::optional<GfxTarget> user_override;
  if (auto it = f.env.find("HSA_OVERRIDE_GFX_VERSION"); it != f.env.end()) user_override = parse_gfx_override(it->second);
  for (int i : ml::gpus_with_gfx(f)) {
    const auto& g = *f.gpus[i].gfx;
    if (has(g)) continue;
    if (user_override && has(*user_override)) continue;  // the person's override already maps it
    const auto* info = ctx.kb.find_gfx(g);
    bool can_override = info && info->override_to && has(*info->override_to);
    auto fd = make_finding(FindingId::torch_gfx, "PyTorch in " + env.prefix + " has no kernels for " + gpu_label(f, i),
                           "torch " + env.torch_version.value_or("?") + " is built for " + ml::gfx_names(targets) +
                               "; " + g.name() + " is not among them, so it fails with hipErrorNoBinaryForGpu or "
                               "\"invalid device function\".");
    fd.evidence.push_back({source, ml::gfx_names(targets)});
    fd.gpus = {i};
    if (can_override) {
      fd.detail += " " + info->override_to->name() + " code runs on it with HSA_OVERRIDE_GFX_VERSION=" +
                   info->override_to->version_string() + ".";
      const std::string value = info->override_to->version_string();
      // Already set for new logins (`amdml fix` wrote it): a new login is what is left.
      if (auto where = login_sets(f, "HSA_OVERRIDE_GFX_VERSION", value))
        fd.notes.push_back("New login sessions already get HSA_OVERRIDE_GFX_VERSION=" + value + " (" + *where +
                           "): log out and in again, or export it in this shell.");
      else
        fd.fix = FixRef{"hsa-override", HsaParams{value, {}}};
      fd.commands.push_back("export HSA_OVERRIDE_GFX_VERSION=" + text::shell_word(value));
      if (!info->override_caveat.empty()) fd.notes.push_back(info->override_caveat);
    } else {
      const auto* r = wheel_release(ctx);
      if (r) fd.commands.push_back(pip_line(env, r));
      fd.notes.push_back("No override target of the same ISA family is in this wheel: use a wheel built for " + g.name() +
                         " (AMD's per-architecture wheels), or a Vulkan-based runtime.");
    }
    out.push_back(std::move(fd));
  }
}

void torch_driver_rule(const RuleContext& ctx, const PythonEnv& env, std::vector<Finding>& out) {
  if (env.torch_build != TorchBuild::rocm || !env.torch_hip) return;
  auto v = Version::parse(*env.torch_hip);
  if (!v) return;
  const auto* r = ctx.kb.find_rocm(*v);
  if (!r) return;
  auto why = ml::driver_too_old_for(ctx.facts, *r);
  if (!why) return;
  auto fd = make_finding(FindingId::torch_rocm_too_new, "PyTorch in " + env.prefix + " is built for ROCm " + v->str() +
                                                   ", newer than this driver supports",
                         "torch " + env.torch_version.value_or("?") + " brings ROCm " + v->str() + "; " + *why + ".");
  fd.evidence.push_back({*env.torch_path + "/version.py", "hip=" + *env.torch_hip});
  if (const auto* w = wheel_release(ctx)) fd.commands.push_back(pip_line(env, w));
  fd.notes.push_back("Or upgrade the kernel / install AMD's amdgpu-dkms driver and reboot.");
  fd.gpus = amd_gpu_indices(ctx.facts);
  out.push_back(std::move(fd));
}

// The cause behind what `import torch` printed, in words a person can act on.
std::string torch_error_cause(const std::string& e) {
  auto has = [&](const char* s) { return e.find(s) != std::string::npos; };
  if (has("hipErrorNoBinaryForGpu") || has("no kernel image") || has("invalid device function") ||
      has("No compatible code objects") || has("device kernel image is invalid"))
    return "the wheel has no code object for the GPU's gfx target: set HSA_OVERRIDE_GFX_VERSION to a same-family "
           "target it includes, or install a wheel built for this GPU";
  if (has("HSA_STATUS_ERROR_INVALID_ISA"))
    return "HSA_OVERRIDE_GFX_VERSION maps the GPU to an ISA it cannot run (across a family or wave size)";
  if (has("HSA_OVERRIDE_GFX_VERSION") && has("invalid"))
    return "HSA_OVERRIDE_GFX_VERSION is malformed, so ROCm finds no GPU";
  if (has("Permission denied") || has("/dev/kfd"))
    return "the process cannot open /dev/kfd or the render node (group membership)";
  if (has("No HIP GPUs") || has("no ROCm-capable device") || has("hipErrorNoDevice"))
    return "HIP found no GPU: /dev/kfd is missing or not accessible, or *_VISIBLE_DEVICES hides every GPU";
  if (has("ModuleNotFoundError") || has("ImportError"))
    return "torch does not import in this environment (a broken or partial install)";
  if (has("timed out"))
    return "importing torch hung: a wedged GPU or a ROCm/driver mismatch";
  if (has("Memory access fault"))
    return "a GPU memory fault: often an override to a target the GPU cannot run, or a kernel/firmware problem";
  return "unrecognised; see the error text";
}

void torch_runtime_rule(const RuleContext& ctx, const PythonEnv& env, std::vector<Finding>& out) {
  if (!env.runtime || !env.runtime->ran) return;
  const auto& t = *env.runtime;
  if (!t.error && t.available != false) return;
  std::string title, detail;
  if (t.error) {
    std::string first = t.error->substr(0, t.error->find('\n'));
    title = "PyTorch in " + env.prefix + " fails on the GPU: " + first.substr(0, 120);
    detail = "Importing torch and querying the GPU failed with \"" + first + "\". Cause: " + torch_error_cause(*t.error) + ".";
  } else {
    title = "torch.cuda.is_available() is False in " + env.prefix;
    detail = "torch imported but sees no GPU: check the other findings (build, /dev/kfd access, "
             "HSA_OVERRIDE_GFX_VERSION, HIP_VISIBLE_DEVICES/ROCR_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES).";
  }
  auto fd = make_finding(FindingId::torch_runtime, title, detail);
  fd.evidence.push_back({env.interpreter.value_or(env.prefix) + " -c 'import torch ...'",
                         t.error ? *t.error : "is_available=False, device_count=" + std::to_string(t.device_count)});
  fd.gpus = amd_gpu_indices(ctx.facts);
  out.push_back(std::move(fd));
}

}  // namespace

void torch_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.ml.probed || f.gpus.empty()) return;
  for (const auto& env : f.ml.python) {
    if (!env.torch_path) continue;
    torch_build_rule(ctx, env, out);
    torch_wheels_rule(ctx, env, out);
    torch_gfx_rule(ctx, env, out);
    torch_driver_rule(ctx, env, out);
    torch_runtime_rule(ctx, env, out);
  }
}

}  // namespace amdml::rules
