// env.visible-devices, env.rocm-path, env.wsl: environment that steers which GPUs ROCm
// shows and which ROCm programs load.
//
// Visibility is layered: ROCR_VISIBLE_DEVICES filters the runtime's GPU list (indices
// or GPU-<uuid>), then HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES, which HIP also
// honours) and GPU_DEVICE_ORDINAL index into what is left; HIP stops at the first
// index that does not exist.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    auto comma = s.find(',', start);
    out.push_back(std::string(text::trim(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start))));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// ROCr: each entry an index into its GPU list or GPU-<uuid>; unknown entries drop out.
std::vector<int> apply_rocr(const Facts& f, const std::vector<int>& gpus, const std::string& value) {
  std::vector<int> out;
  for (const auto& e : split_commas(value)) {
    if (e.size() > 4 && lower(e.substr(0, 4)) == "gpu-") {
      for (int gi : gpus) {
        const auto& id = f.gpus[static_cast<std::size_t>(gi)].unique_id;
        if (id && lower(*id) == lower(e.substr(4))) out.push_back(gi);
      }
    } else if (auto n = text::u64(e); n && *n < gpus.size()) {
      out.push_back(gpus[*n]);
    }
  }
  return out;
}

// HIP-style: indices into the list, stopping at the first invalid one ("-1" hides all).
std::vector<int> apply_hip(const std::vector<int>& gpus, const std::string& value) {
  std::vector<int> out;
  for (const auto& e : split_commas(value)) {
    auto n = text::u64(e);
    if (!n || *n >= gpus.size()) break;
    out.push_back(gpus[*n]);
  }
  return out;
}

void visible_devices(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  std::vector<int> all;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (f.gpus[i].kfd_node) all.push_back(static_cast<int>(i));
  if (all.empty()) return;
  std::vector<int> visible = all;
  std::vector<Evidence> used;
  auto env = [&](const char* name) -> const std::string* {
    auto it = f.env.find(name);
    return it == f.env.end() ? nullptr : &it->second;
  };
  if (const auto* v = env("ROCR_VISIBLE_DEVICES")) {
    visible = apply_rocr(f, visible, *v);
    used.push_back({"env ROCR_VISIBLE_DEVICES", *v});
  }
  if (const auto* v = env("HIP_VISIBLE_DEVICES")) {
    visible = apply_hip(visible, *v);
    used.push_back({"env HIP_VISIBLE_DEVICES", *v});
  } else if (const auto* c = env("CUDA_VISIBLE_DEVICES")) {
    visible = apply_hip(visible, *c);
    used.push_back({"env CUDA_VISIBLE_DEVICES", *c});
  }
  if (const auto* v = env("GPU_DEVICE_ORDINAL")) {
    visible = apply_hip(visible, *v);
    used.push_back({"env GPU_DEVICE_ORDINAL", *v});
  }
  if (visible.empty()) {
    std::string names;
    for (const auto& e : used) names += (names.empty() ? "" : ", ") + e.source.substr(4);
    auto fd = make_finding(FindingId::env_visible_devices, names + " hide every GPU",
                           "ROCm has " + std::to_string(all.size()) + " GPU(s), but the visibility variables select none "
                           "of them (indices count ROCm's GPUs from 0; -1 or an unknown index hides everything), so every "
                           "program falls back to the CPU or reports no GPU.");
    fd.evidence = used;
    fd.gpus = all;
    for (const auto& e : used) fd.commands.push_back("unset " + e.source.substr(4));
    out.push_back(std::move(fd));
    return;
  }
  // A box with a dGPU whose device 0 is the iGPU.
  bool has_dgpu = false;
  for (int gi : visible) has_dgpu |= !f.gpus[static_cast<std::size_t>(gi)].apu.value_or(false);
  const Gpu& first = f.gpus[static_cast<std::size_t>(visible.front())];
  if (!has_dgpu || !first.apu.value_or(false)) return;
  std::string keep;
  for (int gi : visible)
    if (!f.gpus[static_cast<std::size_t>(gi)].apu.value_or(false)) keep += (keep.empty() ? "" : ",") + rocr_device_name(f, gi);
  auto fd = make_finding(FindingId::env_visible_devices, "Device 0 is the integrated " + gpu_label(f, visible.front()),
                         "Programs that use the first GPU (PyTorch's cuda:0, llama.cpp's default) get the iGPU with its "
                         "shared memory and few compute units, not the discrete card.");
  if (used.empty()) {
    fd.severity = Severity::info;
    fd.detail += " ROCm lists the iGPU first on this box.";
  } else {
    fd.severity = Severity::warning;
    fd.evidence = used;
  }
  fd.evidence.push_back(gfx_evidence(first));
  fd.gpus = visible;
  fd.commands.push_back("export ROCR_VISIBLE_DEVICES=" + text::shell_word(keep) + "   # only the discrete GPU(s), by UUID");
  out.push_back(std::move(fd));
}

bool path_has(const std::string& list, const std::string& dir) {
  std::size_t start = 0;
  while (start <= list.size()) {
    auto colon = list.find(':', start);
    std::string e = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    while (e.size() > 1 && e.back() == '/') e.pop_back();
    if (e == dir) return true;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return false;
}

void rocm_path(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const auto& r = f.rocm;
  if (f.gpus.empty() || (r.source != RocmSource::opt_rocm && r.source != RocmSource::rocm_path) || !r.path) return;
  const std::string prefix = *r.path;
  const std::string resolved = r.resolved_path.value_or(prefix);
  // LD_LIBRARY_PATH naming another /opt/rocm-X.Y.Z than the active one.
  if (auto it = f.env.find("LD_LIBRARY_PATH"); it != f.env.end()) {
    std::size_t start = 0;
    const std::string& list = it->second;
    while (start <= list.size()) {
      auto colon = list.find(':', start);
      std::string e = list.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (e.starts_with("/opt/rocm-")) {
        std::string dir = e.substr(0, e.find('/', 5));
        if (dir != resolved && dir != prefix) {
          bool installed = std::find(r.installed.begin(), r.installed.end(), dir) != r.installed.end();
          auto fd = make_finding(FindingId::env_rocm_path, "LD_LIBRARY_PATH loads libraries from " + dir + ", not the active " + resolved,
                                 installed ? "Programs mix two ROCm versions: the runtime from one, math libraries from the other, "
                                             "which fails with missing symbols or code objects."
                                           : dir + " is not installed any more; the entry is stale.");
          fd.severity = installed ? Severity::warning : Severity::info;
          fd.evidence.push_back({"env LD_LIBRARY_PATH", list});
          fd.evidence.push_back({prefix, "-> " + resolved});
          fd.commands.push_back("export LD_LIBRARY_PATH=" + text::shell_word(prefix + "/lib") + "   # or drop the " +
                                text::one_line(text::shell_word(dir)) + " entry from your shell profile");
          fd.gpus = amd_gpu_indices(f);
          out.push_back(std::move(fd));
          return;
        }
      }
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  auto p = f.env.find("PATH");
  if (p == f.env.end()) return;
  if (path_has(p->second, prefix + "/bin") || path_has(p->second, resolved + "/bin")) return;
  auto fd = make_finding(FindingId::env_rocm_path, "ROCm's tools are not on PATH",
                         "rocminfo, amd-smi, hipcc and hipconfig live in " + prefix +
                             "/bin; building llama.cpp with HIP and most ROCm how-tos expect them on PATH.");
  fd.evidence.push_back({"env PATH", p->second});
  fd.evidence.push_back(rocm_evidence(f));
  // The line is shell code itself (~/.profile is sourced): the directory is quoted in it,
  // and the line quoted again as printf's argument, so no byte of it reaches either shell
  // as syntax.
  const std::string line = "export PATH=\"$PATH\":" + text::shell_word(prefix + "/bin");
  fd.commands.push_back("printf '%s\\n' " + text::shell_word(line) + " >> ~/.profile");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void wsl(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.os.wsl) return;
  auto fd = make_finding(FindingId::env_wsl, "This is WSL: no amdgpu driver, no KFD",
                         "Under WSL the GPU is reached through /dev/dxg and AMD's Windows driver. ROCm works there only with "
                         "AMD's WSL runtime on the Radeon cards it supports (RX 7900/7800/7700 and RX 9000 series, Radeon PRO "
                         "W7000); other GPUs need DirectML (torch-directml) or native Linux.");
  fd.evidence.push_back({"/proc/version", "Microsoft kernel"});
  fd.commands.push_back("sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms   # AMD's WSL runtime, on a supported card");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

}  // namespace

void env_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  visible_devices(ctx, out);
  rocm_path(ctx, out);
  wsl(ctx, out);
}

}  // namespace amdml::rules
