// Python environments and what they hold for the GPU: python3 on PATH (with the
// user's ~/.local site), virtualenvs and conda environments under the user's home
// (a bounded walk: depth, directory and environment limits; only where a tool keeps
// environments), and --python PATH. In
// each, torch/version.py is read as text -- never imported -- for the version and
// whether the build is ROCm, CUDA or CPU-only; the wheel's bundled rocBLAS files give
// its gfx list. ROCm builds of TensorFlow and onnxruntime are noted because they need
// ROCm libraries from the system. --deep runs torch in a child process: probes/deep_ml.cpp.
#include <algorithm>
#include <deque>
#include <set>

#include "formats/ml_outputs.hpp"
#include "platform/host.hpp"
#include "probes/ml_probes.hpp"

namespace amdml::probes {

namespace {

constexpr int kMaxDepth = 4;          // ~/a/b/c/.venv
constexpr int kMaxDirsListed = 4000;  // home directories read during the walk
constexpr std::size_t kMaxEnvs = 24;

// Directories under a prefix that hold packages: lib/python3.X/{site,dist}-packages,
// lib/python3/dist-packages (Debian), and the same under lib64.
std::vector<std::string> site_dirs(const platform::Host& host, const std::string& prefix) {
  std::vector<std::string> out;
  for (const char* lib : {"lib", "lib64"}) {
    auto libdir = mlpath::join(prefix, lib);
    auto entries = host.list_dir(libdir);
    if (!entries) continue;
    std::vector<std::string> names;
    for (const auto& e : *entries)
      if (e.name.starts_with("python3")) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      for (const char* sub : {"site-packages", "dist-packages"}) {
        auto d = mlpath::join(mlpath::join(libdir, n), sub);
        if (mlpath::is_dir(host, d) && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
      }
  }
  return out;
}

void read_torch(const platform::Host& host, const std::string& site, PythonEnv& env) {
  auto torch = mlpath::join(site, "torch");
  auto text = host.read_file(mlpath::join(torch, "version.py"), 1 << 16);
  if (!text) return;
  auto v = formats::mlparse::torch_version_py(*text);
  if (!v.recognised) return;
  env.torch_path = torch;
  env.torch_version = v.version;
  env.torch_hip = v.hip;
  env.torch_cuda = v.cuda;
  env.torch_build = formats::mlparse::torch_build(v);
  // pytorch.org's wheels up to rocm7.2 carry the HIP runtime in torch/lib; rocm7.14 and
  // AMD's TheRock wheels load it from the rocm wheels beside torch.
  if (auto entries = host.list_dir(mlpath::join(torch, "lib")))
    for (const auto& e : *entries)
      if (e.name.starts_with("libamdhip64.so")) env.torch_bundles_hip = true;
  if (auto entries = host.list_dir(mlpath::join(torch, "lib/rocblas/library"))) {
    for (const auto& e : *entries) {
      auto g = formats::mlparse::library_file_target(e.name);
      if (g && std::find(env.torch_rocblas_targets.begin(), env.torch_rocblas_targets.end(), *g) ==
                   env.torch_rocblas_targets.end())
        env.torch_rocblas_targets.push_back(*g);
    }
    std::sort(env.torch_rocblas_targets.begin(), env.torch_rocblas_targets.end());
  }
}

// TheRock's wheels (rocm, rocm-sdk-core, rocm-sdk-libraries[-<family>], one
// rocm-sdk-device-gfxNNNN per target) and AMD's amd-torch-device-gfx* packages, by their
// dist-info directory names; _rocm_sdk_core is the tree they install.
void read_rocm_wheel(const std::string& site, const std::string& entry, RocmWheels& w) {
  if (entry == "_rocm_sdk_core") {
    if (!w.core_path) w.core_path = mlpath::join(site, entry);
    return;
  }
  auto d = formats::mlparse::dist_info_name(entry);
  if (!d) return;
  if (d->name == "rocm") w.rocm_version = d->version;
  else if (d->name == "rocm-sdk-core") w.core_version = d->version;
  else if (d->name == "rocm-sdk-libraries" || d->name.starts_with("rocm-sdk-libraries-")) w.libraries_version = d->version;
  else if (d->name.starts_with("rocm-sdk-device-")) {
    w.device_packages.push_back(d->name);
    if (auto g = GfxTarget::parse_name(d->name.substr(16)); g && std::find(w.device_targets.begin(), w.device_targets.end(), *g) == w.device_targets.end())
      w.device_targets.push_back(*g);
  } else if (d->name.starts_with("amd-torch-device-")) {
    w.torch_device_packages.push_back(d->name);
  }
}

// Where a ROCm torch gets its ROCm: bundled in torch/lib, AMD's TheRock build (its
// amd-torch-device packages, or a three-part "+rocm7.14.0" tag), or the rocm wheels.
TorchRocm torch_rocm_kind(const PythonEnv& env) {
  if (env.torch_build != TorchBuild::rocm) return TorchRocm::unknown;
  if (env.torch_bundles_hip) return TorchRocm::bundled;
  if (!env.rocm_wheels.torch_device_packages.empty()) return TorchRocm::amd_device;
  const std::string v = env.torch_version.value_or("");
  auto at = v.find("+rocm");
  if (at == std::string::npos) return env.rocm_wheels.any() ? TorchRocm::rocm_wheels : TorchRocm::unknown;
  const std::string tag = v.substr(at + 5);
  if (std::count(tag.begin(), tag.end(), '.') >= 2) return TorchRocm::amd_device;
  auto rel = Version::parse(tag);
  // No HIP runtime in torch/lib: from rocm7.14 that is by design, before it a broken install.
  return rel && *rel >= Version{7, 14, 0} ? TorchRocm::rocm_wheels : TorchRocm::unknown;
}

void read_packages(const platform::Host& host, const std::string& site, PythonEnv& env) {
  auto entries = host.list_dir(site);
  if (!entries) return;
  for (const auto& e : *entries) {
    const std::string& n = e.name;
    read_rocm_wheel(site, n, env.rocm_wheels);
    if (n.size() < 11 || n.compare(n.size() - 10, 10, ".dist-info") != 0) continue;
    std::string stem = n.substr(0, n.size() - 10);
    auto dash = stem.find('-');
    std::string name = stem.substr(0, dash);
    std::string lower;
    for (char c : name) lower += static_cast<char>(c == '_' ? '-' : std::tolower(static_cast<unsigned char>(c)));
    if (lower != "tensorflow-rocm" && lower != "onnxruntime-rocm") continue;
    env.rocm_packages.push_back({lower, dash == std::string::npos ? "" : stem.substr(dash + 1), mlpath::join(site, n)});
  }
  std::sort(env.rocm_packages.begin(), env.rocm_packages.end(),
            [](const PythonPackage& a, const PythonPackage& b) { return a.path < b.path; });
}

std::optional<std::string> interpreter_in(const platform::Host& host, const std::string& prefix) {
  for (const char* n : {"bin/python3", "bin/python"})
    if (mlpath::is_file(host, mlpath::join(prefix, n))) return mlpath::join(prefix, n);
  return std::nullopt;
}

class Finder {
 public:
  Finder(const ProbeContext& ctx, Facts& f) : ctx_(ctx), host_(ctx.host), f_(f) {}

  void add(const std::string& kind, const std::string& prefix, std::optional<std::string> interpreter,
           std::vector<std::string> extra_sites = {}) {
    auto canon = host_.canonical(prefix);
    std::string key = canon ? *canon : prefix;
    if (!seen_.insert(key).second || f_.ml.python.size() >= kMaxEnvs) return;
    PythonEnv env;
    env.kind = kind;
    env.prefix = prefix;
    env.interpreter = interpreter ? interpreter : interpreter_in(host_, prefix);
    // Extra sites (the user site, /usr/local) come first: Python imports them first.
    env.site_packages = std::move(extra_sites);
    for (auto& s : site_dirs(host_, prefix))
      if (std::find(env.site_packages.begin(), env.site_packages.end(), s) == env.site_packages.end())
        env.site_packages.push_back(std::move(s));
    for (const auto& s : env.site_packages) {
      if (!env.torch_path) read_torch(host_, s, env);
      read_packages(host_, s, env);
    }
    std::sort(env.rocm_wheels.device_targets.begin(), env.rocm_wheels.device_targets.end());
    std::sort(env.rocm_wheels.device_packages.begin(), env.rocm_wheels.device_packages.end());
    std::sort(env.rocm_wheels.torch_device_packages.begin(), env.rocm_wheels.torch_device_packages.end());
    env.torch_rocm = torch_rocm_kind(env);
    f_.ml.python.push_back(std::move(env));
  }

  // The bounded walk of the home directory for venvs (pyvenv.cfg) and conda
  // environments (conda-meta/), breadth first so shallow environments come first.
  void walk_home(const std::string& home) {
    static const std::set<std::string> hidden_ok = {".venv", ".venvs", ".virtualenvs", ".conda", ".pyenv", ".local",
                                                    ".miniconda3", ".mamba", ".micromamba"};
    static const std::set<std::string> skip = {"node_modules", "__pycache__", "site-packages", "dist-packages",
                                               "proc", "snap", "Downloads", "Pictures", "Videos", "Music"};
    std::deque<std::pair<std::string, int>> queue{{home, 0}};
    int listed = 0;
    while (!queue.empty()) {
      auto [dir, depth] = queue.front();
      queue.pop_front();
      if (++listed > kMaxDirsListed || f_.ml.python.size() >= kMaxEnvs) {
        f_.ml.python_search_truncated = true;
        return;
      }
      auto entries = host_.list_dir(dir);
      if (!entries) continue;
      std::vector<std::string> subdirs;
      bool venv = false, conda = false;
      for (const auto& e : *entries) {
        if (e.name == "pyvenv.cfg") venv = true;
        if (e.name == "conda-meta" && e.type == FileType::directory) conda = true;
        if (e.type == FileType::directory) subdirs.push_back(e.name);
      }
      if (venv || conda) {
        add(venv ? "venv" : "conda", dir, std::nullopt);
        // a conda base holds more environments under envs/; a venv holds nothing else
        if (conda && mlpath::is_dir(host_, mlpath::join(dir, "envs"))) queue.push_back({mlpath::join(dir, "envs"), depth});
        continue;
      }
      if (depth >= kMaxDepth) continue;
      std::sort(subdirs.begin(), subdirs.end());
      // pyenv keeps its interpreters (and pyenv-virtualenv its environments) in
      // versions/; the rest of ~/.pyenv (plugins, libexec, the sources it builds from)
      // holds none, so it is not listed.
      if (paths::basename(dir) == ".pyenv") std::erase_if(subdirs, [](const std::string& s) { return s != "versions"; });
      for (const auto& s : subdirs) {
        if (skip.count(s)) continue;
        if (s.front() == '.' && !hidden_ok.count(s)) continue;
        // pyenv's interpreters are prefixes without pyvenv.cfg
        if (paths::basename(dir) == "versions" && paths::basename(paths::dirname(dir)) == ".pyenv") {
          add("pyenv", mlpath::join(dir, s), std::nullopt);
          continue;
        }
        queue.push_back({mlpath::join(dir, s), depth + 1});
      }
    }
  }

 private:
  const ProbeContext& ctx_;
  const platform::Host& host_;
  Facts& f_;
  std::set<std::string> seen_;
};

// The user site (~/.local/lib/python3.X/site-packages): `pip install --user` lands there
// and the system python3 imports it first.
std::vector<std::string> user_sites(const platform::Host& host, const std::optional<std::string>& home) {
  if (!home) return {};
  return site_dirs(host, mlpath::join(*home, ".local"));
}

}  // namespace

void python(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  Finder finder(ctx, f);
  auto home = mlpath::user_home(f);
  if (ctx.options.python) {
    const std::string& p = *ctx.options.python;
    if (mlpath::is_dir(h, p)) {
      finder.add("--python", p, std::nullopt);
    } else if (mlpath::is_file(h, p)) {
      finder.add("--python", paths::dirname(paths::dirname(p)), p);
    } else {
      f.error("ml", p, "--python: no such interpreter or environment");
    }
  }
  for (const auto& d : mlpath::path_dirs(h)) {
    auto py = mlpath::join(d, "python3");
    if (!mlpath::is_file(h, py)) continue;
    // pyenv/asdf shims are dispatch scripts; their real prefixes are found under home
    if (paths::basename(d) == "shims") continue;
    // /bin -> /usr/bin on merged-/usr systems: one interpreter, one environment
    auto real_dir = h.canonical(d);
    auto prefix = paths::dirname(real_dir ? *real_dir : d);
    bool system = prefix == "/usr" || prefix == "/usr/local" || prefix == "/";
    std::vector<std::string> extra;
    if (system) {
      extra = user_sites(h, home);
      // Debian's pip writes to /usr/local/lib/python3.X/dist-packages
      if (prefix == "/usr")
        for (auto& s : site_dirs(h, "/usr/local")) extra.push_back(std::move(s));
    }
    finder.add("python3 on PATH", prefix, py, std::move(extra));
  }
  if (home) finder.walk_home(*home);
}

}  // namespace amdml::probes
