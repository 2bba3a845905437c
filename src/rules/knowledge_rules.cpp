// Diagnoses that need the GPU knowledge base: gfx overrides, APU memory limits, kernel
// and ROCm versions, and the environment variables that steer ROCm. This file runs
// the per-area rule files in a fixed order and implements the helpers they share
// (knowledge_internal.hpp).
#include <algorithm>

#include "rules/knowledge_internal.hpp"

namespace amdml::rules {

void knowledge_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  gfx_rules(ctx, out);
  memory_rules(ctx, out);
  kernel_rules(ctx, out);
  rocm_version_rules(ctx, out);
  env_rules(ctx, out);
}

Stack ml_stack(const RuleContext& ctx) {
  Stack s;
  const auto& kb = ctx.kb;
  if (kb.rocm.empty()) return s;
  if (ctx.facts.rocm.version) {
    const Version& v = *ctx.facts.rocm.version;
    s.installed = true;
    s.label = "ROCm " + v.str();
    s.release = kb.find_rocm(v);
    // Older than amdml's data: the oldest release is the closest picture; newer
    // major than any entry: the newest.
    if (!s.release) s.release = v < kb.rocm.front().version ? &kb.rocm.front() : kb.newest_rocm();
    return s;
  }
  s.release = kb.newest_rocm();
  s.label = "current ROCm builds (" + short_version(s.release->version) + ")";
  return s;
}

std::optional<OverrideSetting> override_for(const Facts& f, const Gpu& g) {
  auto make = [](const std::string& var, const std::string& value) {
    return OverrideSetting{var, value, parse_hsa_override(value)};
  };
  if (g.kfd_node) {
    std::string var = "HSA_OVERRIDE_GFX_VERSION_" + std::to_string(*g.kfd_node);
    if (auto it = f.env.find(var); it != f.env.end()) return make(var, it->second);
  }
  if (auto it = f.env.find("HSA_OVERRIDE_GFX_VERSION"); it != f.env.end()) return make(it->first, it->second);
  return std::nullopt;
}

std::optional<std::string> login_sets(const Facts& f, const std::string& name, const std::string& value) {
  // Every new session gets it when pam_env's /etc/environment sets it, or when both login
  // shells (profile.d) and the systemd user manager (environment.d) do -- the two files
  // `amdml fix` writes. One of the two alone is half done: the recipe is still asked for.
  const LoginEnv *etc = nullptr, *profile = nullptr, *envd = nullptr;
  for (const auto& e : f.login_env) {
    if (e.name != name) continue;  // within each mechanism the last setting wins
    if (e.where.rfind("/etc/environment:", 0) == 0) etc = &e;
    else if (e.where.rfind("/etc/profile.d/", 0) == 0) profile = &e;
    else if (e.where.rfind("/etc/environment.d/", 0) == 0) envd = &e;
  }
  auto sets = [&](const LoginEnv* e) { return e && e->value == value; };
  if (sets(etc)) return etc->where;
  if (sets(profile) && sets(envd)) return profile->where + ", " + envd->where;
  return std::nullopt;
}

bool override_compatible(const Knowledge& kb, const GfxTarget& from, const GfxTarget& to) {
  const auto* a = kb.find_gfx(from);
  const auto* b = kb.find_gfx(to);
  return a && b && isa_compatible(a->isa, b->isa) && a->wave_size == b->wave_size;
}

bool rocm_never(const Knowledge& kb, const Gpu& g) {
  if (g.driver.value_or("") == "radeon") return true;
  const GfxInfo* info = g.gfx ? kb.find_gfx(*g.gfx) : nullptr;
  return info && info->rocm_never;
}

Evidence gfx_evidence(const Gpu& g) {
  if (g.kfd_node && g.gfx_target_version)
    return {"/sys/class/kfd/kfd/topology/nodes/" + std::to_string(*g.kfd_node) + "/properties",
            "gfx_target_version " + std::to_string(*g.gfx_target_version)};
  return {drm_device_dir(g) + "/device", g.pci_id().empty() ? "unknown" : g.pci_id()};
}

Evidence rocm_evidence(const Facts& f) {
  const auto& r = f.rocm;
  if (r.source == RocmSource::none) return {"/opt/rocm", "absent"};
  if (r.source == RocmSource::distro) return {"/var/lib/dpkg/status libhsa-runtime64-1", r.version_text.value_or("unknown")};
  return {r.path.value_or("/opt/rocm") + "/.info/version", r.version_text.value_or(r.version ? r.version->str() : "unreadable")};
}

std::string drm_device_dir(const Gpu& g) {
  if (g.card) return "/sys/class/drm/" + *g.card + "/device";
  return "/sys/bus/pci/devices/" + g.pci_slot.value_or("?");
}

int rocm_device_index(const Facts& f, int gpu_index) {
  int n = 0;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    if (!f.gpus[i].kfd_node) continue;
    if (static_cast<int>(i) == gpu_index) return n;
    ++n;
  }
  return -1;
}

std::string rocr_device_name(const Facts& f, int gpu_index) {
  const Gpu& g = f.gpus[static_cast<std::size_t>(gpu_index)];
  if (g.unique_id) return "GPU-" + *g.unique_id;
  return std::to_string(rocm_device_index(f, gpu_index));
}

}  // namespace amdml::rules
