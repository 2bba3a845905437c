// llama.cpp: llama-server / llama-cli on PATH and in the usual build and install
// directories, and which GPU backends each can use. ggml builds put their backends in
// shared libraries next to the binary (or in ../lib): libggml-hip.so, libggml-vulkan.so,
// libggml-cuda.so. A binary with none of those is asked through `ldd` (time-limited;
// answered by the manifest under --root) whether it links HIP, Vulkan or CUDA itself.
#include <algorithm>

#include "formats/system_files.hpp"
#include "platform/host.hpp"
#include "probes/ml_probes.hpp"

namespace amdml::probes {

namespace {

constexpr std::chrono::milliseconds kLddTimeout{10000};

void add_backend(LlamaBinary& b, LlamaBackend k) {
  if (std::find(b.backends.begin(), b.backends.end(), k) == b.backends.end()) b.backends.push_back(k);
}

// Backends by the libraries beside the binary; true when any ggml library was seen.
bool from_libraries(const platform::Host& host, const std::string& bin, LlamaBinary& b) {
  auto dir = paths::dirname(bin);
  bool any = false;
  for (const auto& d : {dir, mlpath::join(paths::dirname(dir), "lib"), mlpath::join(paths::dirname(dir), "lib64")}) {
    auto entries = host.list_dir(d);
    if (!entries) continue;
    std::vector<std::string> names;
    for (const auto& e : *entries) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      if (n.starts_with("libamdhip64.so") && !b.bundled_hip) b.bundled_hip = mlpath::join(d, n);
      std::optional<LlamaBackend> k;
      if (n.starts_with("libggml-hip.so")) k = LlamaBackend::hip;
      else if (n.starts_with("libggml-vulkan.so")) k = LlamaBackend::vulkan;
      else if (n.starts_with("libggml-cuda.so")) k = LlamaBackend::cuda;
      else if (n.starts_with("libggml-cpu")) k = LlamaBackend::cpu;
      else if (n.starts_with("libggml")) any = true;
      if (!k) continue;
      any = true;
      add_backend(b, *k);
      b.evidence += (b.evidence.empty() ? "" : ", ") + mlpath::join(d, n);
    }
  }
  return any;
}

void from_ldd(const platform::Host& host, LlamaBinary& b) {
  auto r = host.run({"ldd", b.path}, kLddTimeout);
  if (!r || r->exit_code != 0) return;
  std::string found;
  for (auto line : text::split_lines(r->out)) {
    line = text::trim(line);
    auto name = line.substr(0, line.find_first_of(" \t"));
    std::optional<LlamaBackend> k;
    if (name.starts_with("libamdhip64") || name.starts_with("libggml-hip") || name.starts_with("libhipblas"))
      k = LlamaBackend::hip;
    else if (name.starts_with("libvulkan") || name.starts_with("libggml-vulkan"))
      k = LlamaBackend::vulkan;
    else if (name.starts_with("libcudart") || name.starts_with("libcublas") || name.starts_with("libggml-cuda"))
      k = LlamaBackend::cuda;
    if (!k) continue;
    add_backend(b, *k);
    found += (found.empty() ? "" : ", ") + std::string(name);
  }
  if (b.backends.empty()) {
    b.backends.push_back(LlamaBackend::cpu);
    b.evidence = "ldd: no GPU runtime linked";
  } else {
    b.evidence = "ldd: " + found;
  }
}

}  // namespace

void llamacpp(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  std::vector<std::string> dirs = mlpath::path_dirs(h);
  std::vector<std::string> extra = {"/usr/local/bin", "/usr/bin", "/opt/llama.cpp/bin", "/opt/llama.cpp/build/bin"};
  if (auto home = mlpath::user_home(f)) {
    extra.push_back(mlpath::join(*home, "llama.cpp/build/bin"));
    extra.push_back(mlpath::join(*home, "llama.cpp/bin"));
    extra.push_back(mlpath::join(*home, ".local/bin"));
  }
  for (auto& d : extra)
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  for (const auto& d : dirs) {
    for (const char* name : {"llama-server", "llama-cli"}) {
      auto p = mlpath::join(d, name);
      if (!mlpath::is_file(h, p)) continue;
      LlamaBinary b;
      b.path = p;
      bool libs = from_libraries(h, p, b);
      bool gpu = std::any_of(b.backends.begin(), b.backends.end(), [](LlamaBackend k) { return k != LlamaBackend::cpu; });
      if (!libs || !gpu) {
        LlamaBinary probe;
        probe.path = p;
        from_ldd(h, probe);
        for (auto k : probe.backends) add_backend(b, k);
        if (!probe.evidence.empty()) b.evidence += (b.evidence.empty() ? "" : "; ") + probe.evidence;
      }
      f.ml.llama.push_back(std::move(b));
    }
  }
}

}  // namespace amdml::probes
