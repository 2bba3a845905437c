// Helpers shared by rules (declared in rules_internal.hpp).
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

std::string user_word(const std::string& user) { return user.empty() ? "\"$USER\"" : text::shell_word(user); }

std::string joined_word(const std::vector<std::string>& parts, std::string_view sep) {
  return text::shell_word(text::join(parts, sep));
}

std::vector<int> amd_gpu_indices(const Facts& f) {
  std::vector<int> out;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) out.push_back(static_cast<int>(i));
  return out;
}

std::string gpu_label(const Facts& f, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= f.gpus.size()) return "GPU ?";
  const Gpu& g = f.gpus[static_cast<std::size_t>(index)];
  std::string s = "GPU " + std::to_string(index);
  std::string inner;
  if (g.marketing_name) inner = *g.marketing_name;
  if (g.gfx) inner += (inner.empty() ? "" : ", ") + g.gfx->name();
  if (!inner.empty()) s += " (" + inner + ")";
  return s;
}

Finding make_finding(FindingId id, std::string title, std::string detail) {
  Finding f;
  f.id = id;
  f.severity = default_severity(id);
  f.title = std::move(title);
  f.detail = std::move(detail);
  return f;
}

bool in_container(const Facts& f) { return f.container.kind.has_value(); }

const DeviceAccess* find_device(const Facts& f, const std::string& path) {
  for (const auto& d : f.identity.devices)
    if (d.path == path) return &d;
  return nullptr;
}

bool dkms_driver(const Facts& f) { return f.driver.dkms_version.has_value(); }

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
    if (e.where.starts_with("/etc/environment:")) etc = &e;
    else if (e.where.starts_with("/etc/profile.d/")) profile = &e;
    else if (e.where.starts_with("/etc/environment.d/")) envd = &e;
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

std::vector<int> crossed_by_override(const RuleContext& ctx, const std::vector<int>& gpus, const GfxTarget& target) {
  std::vector<int> out;
  for (int gi : gpus) {
    const Gpu& g = ctx.facts.gpus[static_cast<std::size_t>(gi)];
    if (!g.gfx || *g.gfx == target || !ctx.kb.find_gfx(*g.gfx)) continue;
    if (!override_compatible(ctx.kb, *g.gfx, target)) out.push_back(gi);
  }
  return out;
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
  if (r.source == RocmSource::distro) {
    // Where the distribution install's version was read: dpkg, rocm-core's header, pacman.
    for (const auto& in : r.installs)
      if (in.path == "/usr" && in.version && !in.version_from.empty())
        return {in.version_from.starts_with("dpkg ") ? "/var/lib/dpkg/status " + in.version_from.substr(5) : in.version_from,
                in.version_text};
    return {"/var/lib/dpkg/status libhsa-runtime64-1", r.version_text.value_or("unknown")};
  }
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

namespace ml {


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

std::string gfx_names(const std::vector<GfxTarget>& v) {
  std::vector<std::string> n;
  for (const auto& g : v) n.push_back(g.name());
  return text::join(n, " ");
}

std::string install_command(const Facts& f, const std::vector<std::string>& packages) {
  std::string list = text::join(packages, " ");
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

}  // namespace amdml::rules
