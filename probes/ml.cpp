// The ML-stack probe: ollama, Python environments (PyTorch, TensorFlow/onnxruntime
// ROCm builds), llama.cpp, the Vulkan ICDs that are the fallback for GPUs ROCm does not
// cover, and -- only when a ROCm build of TensorFlow or onnxruntime needs them -- the
// ROCm libraries those load from the system.
#include <algorithm>

#include "probes/ml_probes.hpp"
#include "platform/host.hpp"

namespace amdml::probes {

namespace mlpath {

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::vector<std::string> path_dirs(const platform::Host& host) {
  std::vector<std::string> out;
  auto path = host.env("PATH");
  if (!path) return out;
  std::size_t start = 0;
  while (start <= path->size()) {
    auto end = path->find(':', start);
    if (end == std::string::npos) end = path->size();
    std::string d = path->substr(start, end - start);
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    if (!d.empty() && d.front() == '/' && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    start = end + 1;
  }
  return out;
}

bool is_file(const platform::Host& host, const std::string& p) {
  auto st = host.stat(p);
  return st && st->type == FileType::regular;
}

bool is_dir(const platform::Host& host, const std::string& p) {
  auto st = host.stat(p);
  return st && st->type == FileType::directory;
}

std::optional<std::string> user_home(const Facts& f) {
  for (const auto& p : f.identity.passwd)
    if (p.name == f.identity.user && !p.home.empty() && p.home.front() == '/') return p.home;
  return std::nullopt;
}

}  // namespace mlpath

namespace {

void vulkan_icds(const platform::Host& host, Facts& f) {
  for (const char* dir : {"/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"}) {
    auto entries = host.list_dir(dir);
    if (!entries) continue;
    std::vector<std::string> names;
    for (const auto& e : *entries) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      if (n.size() < 5 || n.compare(n.size() - 5, 5, ".json") != 0) continue;
      VulkanIcd icd;
      icd.path = mlpath::join(dir, n);
      if (n.starts_with("radeon_icd")) icd.driver = "radv";
      else if (n.starts_with("amd_icd") || n.starts_with("amd_pro_icd")) icd.driver = "amdvlk";
      else icd.driver = "other";
      f.ml.vulkan_icds.push_back(std::move(icd));
    }
  }
}

// The libraries ROCm builds of TensorFlow and onnxruntime load from the ROCm install
// (they do not bundle them the way PyTorch wheels do).
void rocm_libraries(const platform::Host& host, Facts& f) {
  bool needed = false;
  for (const auto& env : f.ml.python) needed = needed || !env.rocm_packages.empty();
  if (!needed) return;
  std::vector<std::string> libdirs, incdirs;
  if (f.rocm.path) {
    libdirs = {mlpath::join(*f.rocm.path, "lib"), mlpath::join(*f.rocm.path, "lib64")};
    incdirs = {mlpath::join(*f.rocm.path, "include")};
  }
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"})
    if (std::find(libdirs.begin(), libdirs.end(), d) == libdirs.end()) libdirs.push_back(d);
  if (std::find(incdirs.begin(), incdirs.end(), "/usr/include") == incdirs.end()) incdirs.push_back("/usr/include");
  struct Want {
    const char* name;
    const char* package;
    const char* lib;  // shared-library prefix, or nullptr for a header-only library
    const char* header;
  };
  static const Want wants[] = {
      {"MIOpen", "miopen-hip", "libMIOpen.so", nullptr},   {"rocBLAS", "rocblas", "librocblas.so", nullptr},
      {"hipBLAS", "hipblas", "libhipblas.so", nullptr},    {"hipFFT", "hipfft", "libhipfft.so", nullptr},
      {"rocRAND", "rocrand", "librocrand.so", nullptr},    {"RCCL", "rccl", "librccl.so", nullptr},
      {"hipCUB", "hipcub-dev", nullptr, "hipcub/hipcub.hpp"},
  };
  std::map<std::string, std::vector<std::string>> listing;
  for (const auto& d : libdirs) {
    auto entries = host.list_dir(d);
    if (!entries) continue;
    for (const auto& e : *entries) listing[d].push_back(e.name);
  }
  for (const auto& w : wants) {
    RocmLibrary lib{w.name, w.package, false};
    if (w.lib) {
      for (const auto& [dir, names] : listing)
        for (const auto& n : names)
          if (n.starts_with(w.lib)) lib.present = true;
    } else {
      for (const auto& d : incdirs)
        if (mlpath::is_file(host, mlpath::join(d, w.header))) lib.present = true;
    }
    f.ml.rocm_libraries.push_back(std::move(lib));
  }
}

}  // namespace

void ml(const ProbeContext& ctx, Facts& f) {
  f.ml.probed = true;
  ollama(ctx, f);
  python(ctx, f);
  rocm_pip_installs(f);
  llamacpp(ctx, f);
  vulkan_icds(ctx.host, f);
  rocm_libraries(ctx.host, f);
}

}  // namespace amdml::probes
