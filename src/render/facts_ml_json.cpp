// The ML-stack facts as JSON (the "ml" key of the facts document).
#include "formats/ollama_api.hpp"
#include "render/facts_json.hpp"
#include "render/format.hpp"

namespace amdml::render {

using render::opt;

namespace {

nlohmann::json opt_version(const std::optional<Version>& v) { return v ? nlohmann::json(v->str()) : nlohmann::json(nullptr); }

nlohmann::json gfx_list(const std::vector<GfxTarget>& v) {
  auto a = nlohmann::json::array();
  for (const auto& g : v) a.push_back(g.name());
  return a;
}

nlohmann::json issue_json(const systemd::UnitIssue& i) {
  return {{"kind", systemd::to_string(i.kind)}, {"file", i.file}, {"line", i.line}, {"text", i.text}, {"message", i.message}};
}

nlohmann::json service_json(const OllamaService& s) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [k, v] : s.environment)
    env[k] = {{"value", v.value}, {"file", v.file}, {"line", v.line > 0 ? nlohmann::json(v.line) : nlohmann::json(nullptr)}, {"from_env_file", v.from_env_file}};
  auto files = nlohmann::json::array();
  for (const auto& e : s.env_files) files.push_back({{"path", e.path}, {"optional", e.optional}, {"read", e.read}});
  auto issues = nlohmann::json::array();
  for (const auto& i : s.issues) issues.push_back(issue_json(i));
  nlohmann::json out = {{"unit", opt(s.unit_path)},
          {"masked", s.masked},
          {"files", s.files},
          {"environment", env},
          {"environment_files", files},
          {"user", s.user},
          {"group", opt(s.group)},
          {"supplementary_groups", s.supplementary_groups},
          {"dynamic_user", s.dynamic_user},
          {"user_known", s.user_known},
          {"user_groups", s.user_groups},
          {"active", opt(s.active)},
          {"issues", issues}};
  // Only where systemd named a main process: the running service's own environment.
  if (s.main_pid) out["main_pid"] = *s.main_pid;
  if (s.running_environment) out["running_environment"] = *s.running_environment;
  return out;
}

nlohmann::json matmul_json(const TorchMatmul& m) {
  return {{"device", m.device},   {"ok", m.ok},           {"size", opt(m.size)},       {"ms", opt(m.ms)},
          {"tflops", opt(m.tflops)}, {"data_ok", opt(m.data_ok)}, {"error", opt(m.error)}, {"timed_out", m.timed_out}};
}

nlohmann::json runtime_json(const TorchRuntime& t) {
  nlohmann::json matmuls = nlohmann::json::array();
  for (const auto& m : t.matmuls) matmuls.push_back(matmul_json(m));
  return {{"available", opt(t.available)}, {"device_count", t.device_count}, {"device_names", t.device_names},
          {"device_archs", t.device_archs}, {"arch_list", t.arch_list},     {"error", opt(t.error)},
          {"exit_code", opt(t.exit_code)},  {"timed_out", t.timed_out},     {"matmul", matmuls}};
}

// `--list-devices` of a llama.cpp build (--deep only: plain doctor's document has no key).
nlohmann::json llama_devices_json(const LlamaDeviceList& d) {
  auto devices = nlohmann::json::array();
  for (const auto& x : d.devices)
    devices.push_back({{"name", x.name}, {"backend", x.backend}, {"description", x.description},
                       {"total_mib", opt(x.total_mib)}, {"free_mib", opt(x.free_mib)}});
  return {{"ran", d.ran},           {"listed", d.listed}, {"devices", devices},       {"exit_code", opt(d.exit_code)},
          {"timed_out", d.timed_out}, {"output", d.output}, {"error", opt(d.error)}, {"timeout_ms", d.timeout_ms}};
}

nlohmann::json rocm_wheels_json(const RocmWheels& w) {
  return {{"rocm", opt(w.rocm_version)},
          {"sdk_core", opt(w.core_version)},
          {"sdk_libraries", opt(w.libraries_version)},
          {"core_path", opt(w.core_path)},
          {"device_targets", gfx_list(w.device_targets)},
          {"device_packages", w.device_packages},
          {"torch_device_packages", w.torch_device_packages}};
}

}  // namespace

nlohmann::json ml_facts_json(const MlFacts& m) {
  nlohmann::json j;
  j["probed"] = m.probed;
  const auto& o = m.ollama;
  j["ollama"] = {{"installed", o.installed},
                 {"binary", opt(o.binary)},
                 {"version", opt_version(o.version)},
                 {"version_text", opt(o.version_text)},
                 {"version_error", opt(o.version_error)},
                 {"lib_dir", opt(o.lib_dir)},
                 {"backends", o.backends},
                 {"rocm_dir", opt(o.rocm_dir)},
                 {"bundled_rocm", opt_version(o.bundled_rocm)},
                 {"rocblas_targets", gfx_list(o.rocblas_targets)},
                 {"service", o.service ? service_json(*o.service) : nlohmann::json(nullptr)}};
  if (o.server) j["ollama"]["server"] = formats::ollama_api::server_json(*o.server);  // --deep only
  auto envs = nlohmann::json::array();
  for (const auto& e : m.python) {
    auto pkgs = nlohmann::json::array();
    for (const auto& p : e.rocm_packages) pkgs.push_back({{"name", p.name}, {"version", p.version}, {"path", p.path}});
    nlohmann::json torch = nullptr;
    if (e.torch_path)
      torch = {{"path", *e.torch_path},
               {"version", opt(e.torch_version)},
               {"build", to_string(e.torch_build)},
               {"hip", opt(e.torch_hip)},
               {"cuda", opt(e.torch_cuda)},
               {"rocblas_targets", gfx_list(e.torch_rocblas_targets)},
               {"bundles_hip", e.torch_bundles_hip},
               {"rocm", to_string(e.torch_rocm)},
               {"runtime", e.runtime ? runtime_json(*e.runtime) : nlohmann::json(nullptr)}};
    envs.push_back({{"kind", e.kind},
                    {"prefix", e.prefix},
                    {"interpreter", opt(e.interpreter)},
                    {"site_packages", e.site_packages},
                    {"torch", torch},
                    {"rocm_wheels", rocm_wheels_json(e.rocm_wheels)},
                    {"rocm_packages", pkgs}});
  }
  j["python"] = envs;
  j["python_search_truncated"] = m.python_search_truncated;
  auto llama = nlohmann::json::array();
  for (const auto& b : m.llama) {
    auto k = nlohmann::json::array();
    for (auto x : b.backends) k.push_back(to_string(x));
    nlohmann::json entry = {{"path", b.path}, {"backends", k}, {"evidence", b.evidence}, {"bundled_hip", opt(b.bundled_hip)}};
    if (b.devices) entry["devices"] = llama_devices_json(*b.devices);
    llama.push_back(std::move(entry));
  }
  j["llama_cpp"] = llama;
  auto icds = nlohmann::json::array();
  for (const auto& i : m.vulkan_icds) icds.push_back({{"path", i.path}, {"driver", i.driver}});
  j["vulkan_icds"] = icds;
  auto libs = nlohmann::json::array();
  for (const auto& l : m.rocm_libraries) libs.push_back({{"name", l.name}, {"package", l.package}, {"present", l.present}});
  j["rocm_libraries"] = libs;
  return j;
}

nlohmann::json rocm_installs_json(const std::vector<RocmInstall>& installs) {
  auto out = nlohmann::json::array();
  for (const auto& i : installs)
    out.push_back({{"channel", to_string(i.channel)},
                   {"path", i.path},
                   {"version", opt_version(i.version)},
                   {"version_text", i.version_text},
                   {"version_from", i.version_from},
                   {"targets", gfx_list(i.targets)},
                   {"targets_from", i.targets_from},
                   {"device_packages", i.device_packages},
                   {"python_env", opt(i.python_env)}});
  return out;
}

}  // namespace amdml::render