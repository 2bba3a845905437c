// Diagnoses of the ML stack: ollama (ollama_rules.cpp), PyTorch wheels, llama.cpp
// builds and its unified-memory switch, the ROCm libraries TensorFlow/onnxruntime ROCm
// builds load from the system, and the Vulkan driver that is the fallback for GPUs
// ROCm does not cover. Also the helpers for all of them.
#include <algorithm>

#include "rules/ml_internal.hpp"

namespace amdml::rules {

namespace ml {

std::optional<GfxTarget> parse_override(const std::string& value) {
  std::uint32_t parts[3];
  std::size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    if (i >= value.size() || value[i] < '0' || value[i] > '9') return std::nullopt;
    std::uint64_t n = 0;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9') {
      n = n * 10 + static_cast<std::uint64_t>(value[i] - '0');
      if (n > 255) return std::nullopt;
      ++i;
    }
    parts[k] = static_cast<std::uint32_t>(n);
    if (k < 2) {
      if (i >= value.size() || value[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i != value.size() || parts[0] > 63) return std::nullopt;
  return GfxTarget{parts[0], parts[1], parts[2]};
}

std::optional<std::string> unquote(const std::string& v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  if (!v.empty() && (v.front() == '"' || v.front() == '\'' || v.back() == '"' || v.back() == '\'')) {
    std::string s = v;
    s.erase(std::remove(s.begin(), s.end(), '"'), s.end());
    s.erase(std::remove(s.begin(), s.end(), '\''), s.end());
    return s;
  }
  return std::nullopt;
}

std::optional<bool> go_bool(std::string v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '"' || v.front() == '\'')) v.erase(v.begin());
  while (!v.empty() && (v.back() == ' ' || v.back() == '"' || v.back() == '\'')) v.pop_back();
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
    if (v == t) return true;
  for (const char* t : {"0", "f", "F", "FALSE", "false", "False"})
    if (v == t) return false;
  return std::nullopt;
}

std::optional<bool> integrated(const Gpu& g) {
  if (g.apu) return g.apu;
  if (!g.vram || !g.gtt) return std::nullopt;
  const std::uint64_t gib = 1ULL << 30;
  std::uint64_t vram = g.vram->value, gtt = g.gtt->value;
  if (vram <= 4 * gib && gtt >= 8 * gib && gtt >= 4 * vram) return true;
  return std::nullopt;  // ollama would ask HIP; amdml cannot tell from files alone
}

std::vector<int> gpus_with_gfx(const Facts& f) {
  std::vector<int> out;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (f.gpus[i].gfx) out.push_back(static_cast<int>(i));
  return out;
}

std::optional<std::string> driver_too_old_for(const Facts& f, const RocmRelease& r) {
  if (f.driver.dkms_version) return std::nullopt;  // AMD's DKMS driver: versioned apart from the kernel
  if (!r.kernel_min || !f.os.kernel) return std::nullopt;
  if (*f.os.kernel >= *r.kernel_min) return std::nullopt;
  return "the running kernel " + f.os.kernel->str() + " (in-tree amdgpu) is older than the " + r.kernel_min->str() +
         " that ROCm " + std::to_string(r.version.major) + "." + std::to_string(r.version.minor) + " supports";
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string gfx_names(const std::vector<GfxTarget>& v) {
  std::vector<std::string> n;
  for (const auto& g : v) n.push_back(g.name());
  return join(n, " ");
}

std::string install_command(const Facts& f, const std::vector<std::string>& packages) {
  std::string list = join(packages, " ");
  auto is = [&](const char* id) {
    if (f.os.id == id) return true;
    return std::find(f.os.id_like.begin(), f.os.id_like.end(), id) != f.os.id_like.end();
  };
  if (is("debian") || is("ubuntu")) return "sudo apt install " + list;
  if (is("fedora") || is("rhel")) return "sudo dnf install " + list;
  if (is("suse") || is("opensuse")) return "sudo zypper install " + list;
  if (is("arch")) return "sudo pacman -S " + list;
  return "install: " + list;
}

}  // namespace ml

namespace {

bool has_amd_gpu(const Facts& f) { return !f.gpus.empty(); }

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
  std::string py = env.interpreter.value_or("python3");
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

void torch_gfx_rule(const RuleContext& ctx, const PythonEnv& env, std::vector<Finding>& out) {
  if (env.torch_build != TorchBuild::rocm) return;
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
  if (auto it = f.env.find("HSA_OVERRIDE_GFX_VERSION"); it != f.env.end()) user_override = ml::parse_override(it->second);
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
        fd.fix = FixRef{"hsa-override", {{"value", value}}};
      fd.commands.push_back("export HSA_OVERRIDE_GFX_VERSION=" + value);
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

void llama_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!has_amd_gpu(f)) return;
  // GGML_CUDA_ENABLE_UNIFIED_MEMORY: present with any value means on (even "0").
  std::vector<std::pair<std::string, std::string>> uma;  // where, value
  if (auto it = f.env.find("GGML_CUDA_ENABLE_UNIFIED_MEMORY"); it != f.env.end()) uma.emplace_back("env", it->second);
  if (const auto& s = f.ml.ollama.service)
    if (auto it = s->environment.find("GGML_CUDA_ENABLE_UNIFIED_MEMORY"); it != s->environment.end())
      uma.emplace_back(it->second.file, it->second.value);
  // "only discrete GPUs" must be known, not assumed from missing data
  bool all_discrete = std::all_of(f.gpus.begin(), f.gpus.end(), [](const Gpu& g) { return ml::integrated(g) == false; });
  for (const auto& [src, val] : uma) {
    auto b = ml::go_bool(val);
    bool off_intended = b == false || val.empty() || val == "off" || val == "no";
    if (!off_intended && !all_discrete) continue;  // deliberately on, and an APU may be here: fine
    std::string title = off_intended ? "GGML_CUDA_ENABLE_UNIFIED_MEMORY=" + val + " turns unified memory on, not off"
                                     : "GGML_CUDA_ENABLE_UNIFIED_MEMORY is set on a box with only discrete GPUs";
    std::string detail = off_intended
                             ? "llama.cpp checks only whether the variable exists: any value, even 0, makes every "
                               "buffer hipMallocManaged (host memory, slower, and it bypasses the GTT limit). Unset it "
                               "to turn it off."
                             : "Managed memory draws from host RAM instead of VRAM and slows a discrete GPU down; it is "
                               "meant for APUs.";
    auto fd = make_finding(FindingId::llamacpp_uma_env, title, detail);
    fd.evidence.push_back({src == "env" ? "env GGML_CUDA_ENABLE_UNIFIED_MEMORY" : src, "GGML_CUDA_ENABLE_UNIFIED_MEMORY=" + val});
    fd.commands.push_back(src == "env" ? "unset GGML_CUDA_ENABLE_UNIFIED_MEMORY   # and remove it from your shell profile"
                                       : "remove GGML_CUDA_ENABLE_UNIFIED_MEMORY from " + src);
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
  for (const auto& b : f.ml.llama) {
    if (b.backends.empty()) continue;  // unknown
    bool gpu = std::any_of(b.backends.begin(), b.backends.end(),
                           [](LlamaBackend k) { return k == LlamaBackend::hip || k == LlamaBackend::vulkan; });
    if (gpu) continue;
    bool cuda = std::find(b.backends.begin(), b.backends.end(), LlamaBackend::cuda) != b.backends.end();
    auto fd = make_finding(FindingId::llamacpp_no_gpu_backend, b.path + " cannot use the AMD GPU",
                           std::string("This llama.cpp build has ") + (cuda ? "only the CUDA (NVIDIA) backend" : "only the CPU backend") +
                               "; it needs a HIP (ROCm) or Vulkan build to run on an AMD GPU.");
    fd.evidence.push_back({b.path, b.evidence});
    std::string targets;
    for (int i : ml::gpus_with_gfx(f)) targets += (targets.empty() ? "" : ";") + f.gpus[i].gfx->name();
    fd.commands.push_back("cmake -B build -DGGML_HIP=ON" + (targets.empty() ? std::string() : " -DAMDGPU_TARGETS=" + targets) +
                          " && cmake --build build -j   # or -DGGML_VULKAN=ON for the Vulkan backend");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
}

// What each ROCm framework build needs from the system ROCm.
const std::vector<std::string>& needed_libraries(const std::string& package) {
  static const std::vector<std::string> tf = {"MIOpen", "rocBLAS", "hipBLAS", "hipFFT", "rocRAND", "RCCL", "hipCUB"};
  static const std::vector<std::string> ort = {"MIOpen", "rocBLAS", "hipBLAS", "hipFFT", "hipCUB"};
  return package == "tensorflow-rocm" ? tf : ort;
}

void framework_libs_rule(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  for (const auto& env : f.ml.python) {
    for (const auto& pkg : env.rocm_packages) {
      std::vector<std::string> missing_names, packages;
      for (const auto& want : needed_libraries(pkg.name))
        for (const auto& lib : f.ml.rocm_libraries)
          if (lib.name == want && !lib.present) {
            missing_names.push_back(lib.name);
            packages.push_back(lib.package);
          }
      if (missing_names.empty()) continue;
      auto fd = make_finding(FindingId::ml_rocm_libraries, pkg.name + " in " + env.prefix + " is missing ROCm libraries: " +
                                                      ml::join(missing_names, ", "),
                             pkg.name + " " + pkg.version + " loads these from the system ROCm (" +
                                 f.rocm.path.value_or("none installed") + ") rather than bundling them the way PyTorch "
                                 "wheels do; without them it finds no GPU.");
      fd.evidence.push_back({pkg.path, pkg.name + " " + pkg.version});
      fd.evidence.push_back({f.rocm.path.value_or("/opt/rocm"), "missing " + ml::join(missing_names, ", ")});
      fd.commands.push_back(ml::install_command(f, packages) + "   # AMD ROCm repository package names");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
    }
  }
}

void vulkan_rule(const RuleContext& ctx, const std::vector<Finding>& so_far, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!has_amd_gpu(f)) return;
  bool amd_icd = std::any_of(f.ml.vulkan_icds.begin(), f.ml.vulkan_icds.end(),
                             [](const VulkanIcd& i) { return i.driver == "radv" || i.driver == "amdvlk"; });
  if (amd_icd) return;
  std::string why;
  for (const auto& b : f.ml.llama)
    if (std::find(b.backends.begin(), b.backends.end(), LlamaBackend::vulkan) != b.backends.end())
      why = b.path + " is a Vulkan build";
  for (const auto& fd : so_far)
    if (fd.id == FindingId::ollama_gfx_unsupported) why = "ollama can only use this GPU through Vulkan";
  if (why.empty()) return;
  auto fd = make_finding(FindingId::vulkan_no_icd, "No Vulkan driver for the AMD GPU",
                         why + ", but no AMD Vulkan ICD (Mesa RADV radeon_icd*.json or AMDVLK amd_icd*.json) is "
                               "installed under /usr/share/vulkan/icd.d or /etc/vulkan/icd.d.");
  fd.evidence.push_back({"/usr/share/vulkan/icd.d", f.ml.vulkan_icds.empty() ? "no ICD files" : "no AMD ICD"});
  std::string pkg = "mesa-vulkan-drivers";
  if (f.os.id == "arch") pkg = "vulkan-radeon";
  fd.commands.push_back(ml::install_command(f, {pkg}));
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

}  // namespace

void ml_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.ml.probed) return;
  std::vector<Finding> mine;
  ollama_rules(ctx, mine);
  if (has_amd_gpu(f))
    for (const auto& env : f.ml.python) {
      if (!env.torch_path) continue;
      torch_build_rule(ctx, env, mine);
      torch_gfx_rule(ctx, env, mine);
      torch_driver_rule(ctx, env, mine);
      torch_runtime_rule(ctx, env, mine);
    }
  llama_rules(ctx, mine);
  framework_libs_rule(ctx, mine);
  vulkan_rule(ctx, mine, mine);
  for (auto& fd : mine) out.push_back(std::move(fd));
}

}  // namespace amdml::rules
