// The environment variables that change what ROCm, HIP, ollama or llama.cpp do: the
// process's own, and what the login configuration sets for new sessions
// (/etc/environment, /etc/environment.d/*.conf, ~/.config/environment.d/*.conf,
// /etc/profile.d/*.sh).
#include <algorithm>
#include <cerrno>

#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

namespace {

void login_file(const platform::Host& h, const std::string& path, Facts& f) {
  auto text = h.read_file(path, 1 << 20);
  if (!text) {
    if (text.error().code != ENOENT) f.error("env", path, text.error().message);
    return;
  }
  for (auto& a : formats::parse::login_env(*text))
    // GPU selection and overrides only (PATH and friends are built with expansions there).
    if (formats::parse::login_env_followed(a.name) && is_relevant_env(a.name)) f.login_env.push_back({a.name, a.value, path + ":" + std::to_string(a.line)});
}

void login_dir(const platform::Host& h, const std::string& dir, const std::string& suffix, Facts& f) {
  auto entries = h.list_dir(dir);
  if (!entries) return;
  std::vector<std::string> names;
  for (const auto& e : *entries)
    if (e.name.size() > suffix.size() && e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      names.push_back(e.name);
  std::sort(names.begin(), names.end());
  for (const auto& n : names) login_file(h, dir + "/" + n, f);
}

}  // namespace

void env(const ProbeContext& ctx, Facts& f) {
  for (const auto& [k, v] : ctx.host.environment())
    if (is_relevant_env(k)) f.env[k] = v;
  login_file(ctx.host, "/etc/environment", f);
  login_dir(ctx.host, "/etc/environment.d", ".conf", f);
  // The report's user's own environment.d (environment.d(5)): the systemd user manager
  // reads it after /etc/environment.d, for the graphical session and user services.
  for (const auto& p : f.identity.passwd)
    if (p.name == f.identity.user && !p.home.empty() && p.home != "/")
      login_dir(ctx.host, p.home + "/.config/environment.d", ".conf", f);
  login_dir(ctx.host, "/etc/profile.d", ".sh", f);
}

}  // namespace amdml::probes
