// ollama: where the binary is, its version (`ollama --version`, time-limited; under
// --root the manifest answers), the ROCm backend it ships and the gfx targets that
// backend has rocBLAS kernels for (the same files ollama filters GPUs by), and the
// ollama.service unit merged with its drop-ins the way systemd merges them.
#include <algorithm>
#include <cerrno>

#include "formats/ml_outputs.hpp"
#include "platform/host.hpp"
#include "formats/systemd_unit.hpp"
#include "probes/service_unit.hpp"
#include "formats/system_files.hpp"
#include "formats/process_environ.hpp"
#include "probes/ml_probes.hpp"

namespace amdml::probes {

namespace {

constexpr std::chrono::milliseconds kVersionTimeout{5000};
constexpr std::chrono::milliseconds kSystemctlTimeout{5000};

std::optional<std::string> find_binary(const platform::Host& host) {
  std::vector<std::string> dirs = {"/usr/local/bin", "/usr/bin", "/bin"};
  for (const auto& d : mlpath::path_dirs(host))
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  for (const auto& d : dirs) {
    auto p = mlpath::join(d, "ollama");
    if (mlpath::is_file(host, p)) return p;
  }
  return std::nullopt;
}

void read_version(const platform::Host& host, OllamaFacts& o) {
  auto r = host.run({*o.binary, "--version"}, kVersionTimeout);
  if (!r && !host.live()) r = host.run({"ollama", "--version"}, kVersionTimeout);  // manifests may use the short key
  if (!r) {
    o.version_error = r.error().message;
    return;
  }
  std::string text = r->out + (r->out.empty() || r->err.empty() ? "" : "\n") + r->err;
  o.version_text = std::string(text::trim(text));
  o.version = formats::mlparse::ollama_version(text);
  if (!o.version)
    o.version_error = r->timed_out ? "ollama --version timed out" : "no version in `ollama --version` output";
}

void read_libraries(const platform::Host& host, OllamaFacts& o) {
  std::vector<std::string> candidates;
  auto add = [&](const std::string& bin) {
    auto lib = mlpath::join(paths::dirname(paths::dirname(bin)), "lib/ollama");
    if (std::find(candidates.begin(), candidates.end(), lib) == candidates.end()) candidates.push_back(lib);
  };
  if (auto c = host.canonical(*o.binary)) add(*c);
  add(*o.binary);
  for (const auto& lib : candidates) {
    auto entries = host.list_dir(lib);
    if (!entries) continue;
    o.lib_dir = lib;
    std::vector<std::string> dirs;
    for (const auto& e : *entries)
      if (mlpath::is_dir(host, mlpath::join(lib, e.name))) dirs.push_back(e.name);
    std::sort(dirs.begin(), dirs.end());
    o.backends = dirs;
    for (const auto& d : dirs)
      if (d.starts_with("rocm")) {
        o.rocm_dir = mlpath::join(lib, d);
        o.bundled_rocm = formats::mlparse::ollama_rocm_dir_version(d);
        // several ROCm dirs (an upgrade leaving the old one): the newest name wins
      }
    break;
  }
  // Installers before v0.5.2 unpacked ROCm here.
  if (!o.rocm_dir && mlpath::is_dir(host, "/usr/share/ollama/lib/rocm")) o.rocm_dir = "/usr/share/ollama/lib/rocm";
  if (!o.rocm_dir) return;
  auto entries = host.list_dir(mlpath::join(*o.rocm_dir, "rocblas/library"));
  if (!entries) return;
  for (const auto& e : *entries) {
    if (!e.name.starts_with("TensileLibrary_lazy_")) continue;
    auto g = formats::mlparse::library_file_target(e.name);
    if (g && std::find(o.rocblas_targets.begin(), o.rocblas_targets.end(), *g) == o.rocblas_targets.end())
      o.rocblas_targets.push_back(*g);
  }
  std::sort(o.rocblas_targets.begin(), o.rocblas_targets.end());
}

// The groups the service process gets: the user's primary group, Group=,
// SupplementaryGroups= and every /etc/group entry that lists the user.
void resolve_groups(const Facts& f, OllamaService& s) {
  auto add = [&](const std::string& g) {
    if (!g.empty() && std::find(s.user_groups.begin(), s.user_groups.end(), g) == s.user_groups.end())
      s.user_groups.push_back(g);
  };
  for (const auto& p : f.identity.passwd)
    if (p.name == s.user) {
      s.user_known = true;
      add(f.identity.group_name(p.gid).value_or(std::to_string(p.gid)));
    }
  if (s.user == "root") s.user_known = true;
  if (s.group) add(*s.group);
  for (const auto& g : s.supplementary_groups) add(g);
  for (const auto& g : f.identity.groups)
    if (std::find(g.members.begin(), g.members.end(), s.user) != g.members.end()) add(g.name);
}

// The environment the running service started with: systemd's MainPID, then that
// process's /proc/PID/environ (NUL-separated NAME=VALUE). A unit or drop-in edited after
// the start reaches the process only with a restart, so this is what ollama sees now.
void read_running_environment(const platform::Host& host, OllamaService& s) {
  auto r = host.run({"systemctl", "show", "ollama", "--property=MainPID", "--value"}, kSystemctlTimeout);
  if (!r || r->timed_out || r->exit_code != 0) return;
  auto pid = text::u64(std::string(text::trim(r->out)));
  if (!pid || *pid == 0 || *pid > 1u << 22) return;  // 0: no main process; 2^22: Linux's pid_max ceiling
  s.main_pid = static_cast<int>(*pid);
  auto environ = host.read_file("/proc/" + std::to_string(*pid) + "/environ", 1 << 20);
  if (!environ) return;  // EACCES unless root or the service's user: unknown, not empty
  // Only the GPU and ollama settings the rules compare: the rest of a process's
  // environment (tokens, proxies with passwords) stays out of the facts and the JSON.
  std::map<std::string, std::string> env;
  for (auto& [k, v] : formats::followed_environ(*environ)) env[k] = std::move(v);
  s.running_environment = std::move(env);
}

void read_service(const platform::Host& host, const Facts& f, OllamaFacts& o) {
  auto loaded = load_service(host, "ollama.service");
  if (!loaded.unit_path && loaded.config.files.empty()) return;
  OllamaService s;
  s.unit_path = loaded.unit_path;
  s.masked = loaded.masked;
  s.files = loaded.config.files;
  s.environment = loaded.config.environment;
  s.env_files = loaded.config.env_files;
  s.unknown_keys = loaded.config.unknown_keys;
  s.issues = loaded.config.issues;
  if (loaded.config.user) s.user = *loaded.config.user;
  s.group = loaded.config.group;
  s.supplementary_groups = loaded.config.supplementary_groups;
  s.dynamic_user = loaded.config.dynamic_user;
  resolve_groups(f, s);
  if (auto r = host.run({"systemctl", "is-active", "ollama"}, kSystemctlTimeout)) {
    auto state = text::trim(r->out);
    auto nl = state.find('\n');
    if (nl != std::string_view::npos) state = state.substr(0, nl);
    if (!state.empty() && !r->timed_out) s.active = std::string(state);
  }
  if (s.active == "active") read_running_environment(host, s);
  o.service = std::move(s);
}

}  // namespace

void ollama(const ProbeContext& ctx, Facts& f) {
  auto& o = f.ml.ollama;
  o.binary = find_binary(ctx.host);
  if (o.binary) {
    read_version(ctx.host, o);
    read_libraries(ctx.host, o);
  }
  read_service(ctx.host, f, o);
  o.installed = o.binary.has_value() || o.service.has_value();
}

}  // namespace amdml::probes
