// The rocm-install choice: which channel, which release and which packages, and why.
//
// In order: AMD's current repositories (recipes/knowledge/channels.toml, newest channel
// first) for a release whose device packages cover every GPU here; then the legacy
// repo.radeon.com stream (rocm-releases.toml) for GPUs only it still runs (gfx906);
// then the distribution's own packages (Fedora, Arch) where AMD has no repository. A
// Python environment that lacks TheRock's wheels gets them from pip, into itself
// (attach_pip_install). The notes say why this channel and this release, so the plan
// explains itself.
#include <algorithm>
#include <cctype>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

// AMD's package versions carry the release as MMmmpp: "5.1.0.50100-36", "1.0.0.60400-1~24.04";
// the distributions' do not ("5.7.1-2build1").
bool amd_version(const std::string& v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '.') continue;
    std::size_t n = 0;
    while (i + 1 + n < v.size() && v[i + 1 + n] >= '0' && v[i + 1 + n] <= '9') ++n;
    if (n == 5 && i + 1 + n < v.size() && v[i + 1 + n] == '-') return true;
  }
  return false;
}

namespace {

// Whether an installed package belongs to ROCm release v: AMD's versions carry the
// release as MMmmpp ("rocm-core 6.2.4.60204-139~24.04"), a side-by-side install names it
// ("rocm-core6.2.4").
bool release_owned(const std::map<std::string, std::string>& packages, const Version& v) {
  const std::string build = "." + std::to_string(v.major * 10000 + v.minor * 100 + v.patch);
  const std::string named = v.str();
  for (const auto& [name, ver] : packages) {
    if (name.size() > named.size() && name.compare(name.size() - named.size(), named.size(), named) == 0 &&
        !std::isdigit(static_cast<unsigned char>(name[name.size() - named.size() - 1])) &&
        name[name.size() - named.size() - 1] != '.')
      return true;
    for (auto at = ver.find(build); at != std::string::npos; at = ver.find(build, at + 1))
      if (at + build.size() == ver.size() || ver[at + build.size()] == '-') return true;
  }
  return false;
}

// The channel's name for this distribution: "ubuntu 24.04", else "rhel 10" for any
// 10.x, else the bare id ("fedora" = every release).
std::string channel_distro(const ChannelSpec& ch, const std::string& id, const std::string& version) {
  for (const std::string& key : {id + " " + version, id + " " + version.substr(0, version.find('.')), id})
    if (auto it = ch.distros.find(key); it != ch.distros.end()) return it->second;
  return {};
}

std::string fill(std::string s, const std::string& rocm, const std::string& full, const std::string& distro) {
  s = text::replace_all(s, "{rocm}", rocm);
  s = text::replace_all(s, "{version}", full);
  return text::replace_all(s, "{distro}", distro);
}

struct Pick {
  const RocmRelease* release = nullptr;
  const ChannelSpec* channel = nullptr;     // nullptr: the legacy stream
  const RocmAptRelease* legacy = nullptr;
  bool via_override = false;
  std::vector<GfxTarget> device_targets;   // the targets whose device packages are installed
  std::string distro_name;                 // the channel's name for the distribution
};

// A target as a release's native packages can run it: itself when official, else the
// target of its known override when that is (AMD ships device packages for the official
// targets only; RD-inst714). nullopt: neither.
std::optional<GfxTarget> packaged_target(const RuleContext& ctx, const RocmRelease& r, const GfxTarget& t, bool ov) {
  if (r.is_official(t)) return t;
  const GfxInfo* gi = ctx.kb.find_gfx(t);
  if (ov && gi && gi->override_to && r.is_official(*gi->override_to)) return *gi->override_to;
  return std::nullopt;
}

std::optional<Pick> pick_channel(const RuleContext& ctx, const std::string& id, const std::string& version,
                                 const std::string& distro, const std::vector<GfxTarget>& targets) {
  for (bool ov : {false, true})
    for (const auto& ch : ctx.kb.channels) {
      if (ch.distro_own || ch.id == "amd-legacy" || (ch.kind != "apt" && ch.kind != "dnf")) continue;
      const std::string name = channel_distro(ch, id, version);
      if (name.empty()) continue;
      for (auto it = ch.rocm.rbegin(); it != ch.rocm.rend(); ++it) {
        const RocmRelease* r = ctx.kb.find_rocm(*it);
        if (!r || r->version != *it) continue;
        if (std::find(r->distros.begin(), r->distros.end(), distro) == r->distros.end()) continue;
        Pick p{r, &ch, nullptr, ov, {}, name};
        bool all = true;
        for (const auto& t : targets) {
          auto pt = packaged_target(ctx, *r, t, ov);
          if (!pt) all = false;
          else if (std::find(p.device_targets.begin(), p.device_targets.end(), *pt) == p.device_targets.end())
            p.device_targets.push_back(*pt);
        }
        if (all) {
          p.via_override = ov && std::any_of(targets.begin(), targets.end(), [&](const GfxTarget& t) { return !r->is_official(t); });
          return p;
        }
      }
    }
  return std::nullopt;
}

// The legacy repo.radeon.com stream, for GPUs only it still has kernels for.
std::optional<Pick> pick_legacy(const RuleContext& ctx, const std::string& distro, const std::vector<GfxTarget>& targets) {
  const RocmApt& apt = ctx.kb.apt;
  auto runs = [&](const RocmRelease& r, bool via_override) {
    return std::all_of(targets.begin(), targets.end(), [&](const GfxTarget& t) {
      if (r.has_kernels(t)) return true;
      const GfxInfo* gi = ctx.kb.find_gfx(t);
      return via_override && gi && gi->override_to && r.has_kernels(*gi->override_to);
    });
  };
  for (bool ov : {false, true})
    for (auto it = apt.releases.rbegin(); it != apt.releases.rend(); ++it) {
      const RocmRelease* r = ctx.kb.find_rocm(it->rocm);
      if (!r || r->version != it->rocm) continue;
      if (std::find(r->distros.begin(), r->distros.end(), distro) == r->distros.end()) continue;
      if (runs(*r, ov)) return Pick{r, nullptr, &*it, ov, {}, {}};
    }
  return std::nullopt;
}

// The packages of the use case: programs that bring their own libraries need only the
// runtime; otherwise the whole SDK. Templates name one package per device target.
std::vector<std::string> use_case_packages(const std::vector<std::string>& templates, const Pick& pk, const std::string& rocm,
                                           const std::string& full) {
  std::vector<std::string> out;
  for (const auto& tmpl : templates) {
    std::vector<std::string> names;
    if (tmpl.find("{gfx}") == std::string::npos) names.push_back(fill(tmpl, rocm, full, pk.distro_name));
    else
      for (const auto& t : pk.device_targets) names.push_back(text::replace_all(fill(tmpl, rocm, full, pk.distro_name), "{gfx}", t.name()));
    for (auto& n : names)
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  }
  return out;
}

// Where the release's name and its repository come from, said once.
void describe(const Pick& pk, const std::string& distro, const std::vector<GfxTarget>& targets, const RocmInstallParams& p,
              std::vector<std::string>& notes) {
  if (pk.channel && pk.channel->distro_own) {
    notes.push_back("AMD publishes no ROCm packages for " + distro + "; " + pk.channel->title + " come from the distribution's "
                    "own signed repositories (" + p.manager + "). Which gfx targets they are built for is not in amdml's knowledge: "
                    "after the install, `rocminfo` shows whether they run " + ml::gfx_names(targets) + ".");
    return;
  }
  const RocmRelease& r = *pk.release;
  const std::string when = r.date.empty() ? "" : ", " + r.date;
  if (pk.channel) {
    const auto full = pk.channel->full.find(p.release);
    const std::string newest = full != pk.channel->full.end() ? full->second.str() : r.version.str();
    notes.push_back("ROCm " + p.release + " (" + newest + when + ") is the newest release with kernels for " +
                    ml::gfx_names(targets) + " that AMD packages for " + distro + ": " + pk.channel->title + ", " + p.rocm_repo +
                    ".");
    notes.push_back("The signing key " + p.key_url + " is fetched when the fix is applied and must have the fingerprint pinned in "
                    "amdml's knowledge (" + p.fingerprint + "); a key that differs is refused before anything is written.");
  } else {
    notes.push_back("ROCm " + p.release + " is the newest release AMD ships for this distribution (" + p.codename +
                    ") with kernels for every GPU here: " + p.rocm_repo + ". Newer releases (" +
                    "the 7.14 and 10.x channels) have no kernels for " + ml::gfx_names(targets) + ".");
  }
}

// The AMD kernel driver: the legacy stream's amdgpu-dkms where the running kernel's own
// amdgpu lacks the GPU; the current channels' driver comes from amdgpu-install, by hand.
void kernel_driver(const RuleContext& ctx, const Pick& pk, const std::vector<GfxTarget>& targets, RocmChoice& c,
                   RocmInstallParams& p) {
  const Facts& f = ctx.facts;
  const RocmApt& apt = ctx.kb.apt;
  std::optional<Version> needs;
  for (const auto& t : targets)
    if (const GfxInfo* gi = ctx.kb.find_gfx(t); gi && gi->kernel_min && (!needs || *needs < *gi->kernel_min)) needs = gi->kernel_min;
  if (!f.os.kernel) return;
  if (!needs || !(*f.os.kernel < *needs)) {
    c.notes.push_back("No amdgpu-dkms: kernel " + short_version(*f.os.kernel) + "'s own amdgpu driver runs " +
                      ml::gfx_names(targets) + ".");
    return;
  }
  if (pk.channel) {
    const std::string drv = pk.release->drivers.empty() ? std::string() : " " + pk.release->drivers.front();
    c.notes.push_back("Kernel " + short_version(*f.os.kernel) + " lacks " + ml::gfx_names(targets) + " (its amdgpu needs " +
                      short_version(*needs) + "): install the distribution's newer kernel (Ubuntu's HWE kernel), or AMD's "
                      "driver" + drv + " with amdgpu-install (repo.radeon.com/amdgpu-install) -- this recipe does not install "
                      "a kernel driver. It needs a reboot.");
    return;
  }
  if (apt.dkms.empty()) return;
  if (pk.release->kernel_max && *pk.release->kernel_max < Version{f.os.kernel->major, f.os.kernel->minor, 0}) {
    c.notes.push_back("Kernel " + short_version(*f.os.kernel) + " lacks " + ml::gfx_names(targets) + " and is newer than the " +
                      "kernels amdgpu-dkms of ROCm " + p.release + " builds on: install a kernel from " + short_version(*needs) +
                      " on instead.");
    return;
  }
  for (const auto& d : apt.dkms) p.install.push_back(d);
  c.notes.push_back("Installs amdgpu-dkms: kernel " + short_version(*f.os.kernel) + " is older than " + short_version(*needs) +
                    ", the first whose amdgpu runs " + ml::gfx_names(targets) + ". It needs a reboot.");
}

// What another ROCm left: the distribution's packages, another release's versioned ones,
// and for AMD's current channels the legacy stream's packages (AMD: remove ROCm 7.2.4 or
// older before installing the Core SDK; RD-inst). The kernel driver stays.
void removals(const RuleContext& ctx, const Pick& pk, const std::string& distro, RocmInstallParams& p) {
  const Facts& f = ctx.facts;
  auto add = [&](const std::string& name) {
    if (std::find(p.remove.begin(), p.remove.end(), name) == p.remove.end()) p.remove.push_back(name);
  };
  if (pk.channel && pk.channel->distro_own) return;  // the distribution's own packages are what is installed
  for (const auto& d : ctx.kb.apt.distro_packages)
    if (d.distro == distro)
      for (const auto& name : d.packages)
        if (f.rocm.packages.count(name) && !amd_version(f.rocm.packages.at(name))) add(name);
  for (const auto& [name, ver] : f.rocm.packages) {
    if (name.starts_with("amdrocm") || name.starts_with("amdgpu-")) continue;  // side by side / the driver
    if (pk.channel && amd_version(ver)) {
      add(name);
      continue;
    }
    // rocm-core6.2.2, hip-runtime-amd6.2.2: a versioned install of a release side by side.
    auto digit = name.find_first_of("0123456789");
    if (digit == std::string::npos || name.find('.', digit) == std::string::npos) continue;
    if (Version::parse(name.substr(digit))) add(name);
  }
}

// The groups that own the device nodes, as AMD's guide adds them -- the same groups
// access.kfd asks for: only where the user lacks one per /etc/group and per NSS (a local
// copy of a directory group would shadow it). Without device nodes to look at (the
// driver not loaded yet), render and video, as the guide says.
void group_members(const Facts& f, RocmInstallParams& p) {
  const auto& id = f.identity;
  if (id.root || id.user.empty() || id.user == "root") return;
  auto local = [&](const std::string& g) -> const GroupEntry* {
    for (const auto& e : id.groups)
      if (e.name == g) return &e;
    return nullptr;
  };
  auto add = [&](const std::string& g) {
    const GroupEntry* ge = local(g);
    const bool by_nss = id.nss_groups && std::any_of(id.nss_groups->begin(), id.nss_groups->end(),
                                                     [&](const GroupEntry& e) { return e.name == g; });
    if (ge && !by_nss && std::find(ge->members.begin(), ge->members.end(), id.user) == ge->members.end() &&
        std::find(p.groups.begin(), p.groups.end(), g) == p.groups.end())
      p.groups.push_back(g);
  };
  bool any_node = false;
  for (const auto& d : id.devices) {
    if (!d.exists || !d.gid) continue;
    any_node = true;
    if (auto join = group_to_join(id, d); join && join->local) add(join->group);
  }
  if (!any_node)
    for (const char* g : {"render", "video"}) add(g);
  if (!p.groups.empty()) p.user = id.user;
}

// The repository side of the parameters: AMD's channel, the legacy stream or the
// distribution's own packages.
RocmInstallParams source_params(const RuleContext& ctx, const Pick& pk, const std::string& codename) {
  RocmInstallParams p;
  p.release = short_version(pk.release->version);
  if (!pk.channel) {
    const RocmApt& apt = ctx.kb.apt;
    p.channel = "amd-legacy";
    p.rocm_repo = text::replace_all(apt.rocm_repo, "{path}", pk.legacy->path);
    p.graphics_repo = text::replace_all(apt.graphics_repo, "{graphics}", pk.legacy->graphics);
    p.codename = codename;
    p.key_url = apt.key_url;
    p.fingerprint = apt.fingerprint;
    p.origin = apt.origin;
    return p;
  }
  const ChannelSpec& ch = *pk.channel;
  const auto full_it = ch.full.find(p.release);
  const std::string full = full_it != ch.full.end() ? full_it->second.str() : pk.release->version.str();
  p.channel = ch.id;
  p.manager = ch.kind;
  p.rocm_repo = fill(ch.repo, p.release, full, pk.distro_name);
  p.codename = ch.suite;
  p.key_url = ch.key_url;
  p.fingerprint = ch.fingerprint;
  return p;
}

}  // namespace

RocmChoice choose_rocm(const RuleContext& ctx) {
  const Facts& f = ctx.facts;
  RocmChoice c;
  const std::string instead =
      " What works instead: the Vulkan backends (llama.cpp's Vulkan build, ollama's Vulkan runner), TheRock's pip wheels "
      "where they have kernels for the GPU, or a container image built for it.";
  if (!f.os.id || !f.os.version_id) {
    c.why_none = "The distribution is unknown (/etc/os-release), so amdml cannot choose ROCm packages for it.";
    return c;
  }
  const std::string distro = *f.os.id + " " + *f.os.version_id;
  std::string codename;
  for (const auto& a : ctx.kb.apt.codenames)
    if (a.distro == distro) codename = a.codename;
  std::vector<GfxTarget> targets;
  for (const auto& g : f.gpus)
    if (g.gfx && std::find(targets.begin(), targets.end(), *g.gfx) == targets.end()) targets.push_back(*g.gfx);
  if (targets.empty()) {
    c.why_none = "No GPU's gfx target is known, so no release can be chosen for it.";
    return c;
  }
  auto pk = pick_channel(ctx, *f.os.id, *f.os.version_id, distro, targets);
  if (!pk && !codename.empty()) pk = pick_legacy(ctx, distro, targets);
  if (!pk) {
    bool amd_has_distro = false;
    for (const auto& ch : ctx.kb.channels)
      if (!ch.distro_own && !channel_distro(ch, *f.os.id, *f.os.version_id).empty()) amd_has_distro = true;
    if (!amd_has_distro && codename.empty())
      for (const auto& ch : ctx.kb.channels)
        if (ch.distro_own && (ch.kind == "dnf" || ch.kind == "pacman") && !channel_distro(ch, *f.os.id, *f.os.version_id).empty()) {
          pk = Pick{nullptr, &ch, nullptr, false, targets, channel_distro(ch, *f.os.id, *f.os.version_id)};
          break;
        }
    if (!pk) {
      c.no_release_runs = amd_has_distro || !codename.empty();
      c.why_none = c.no_release_runs ? "No ROCm release AMD ships for " + distro + " has kernels for " + ml::gfx_names(targets) +
                                           ", natively or through a known HSA_OVERRIDE_GFX_VERSION." + instead
                                     : "AMD publishes no ROCm packages for " + distro + ", and amdml knows no ROCm packages of " +
                                           "the distribution's own." + instead;
      return c;
    }
  }
  RocmInstallParams p;
  if (pk->channel && pk->channel->distro_own) {
    p.release = *f.os.id + "-" + *f.os.version_id;  // "fedora-43": the distribution's own release
    p.channel = pk->channel->id;
    p.manager = pk->channel->kind;
    c.release = nullptr;  // which release, and its targets, are not in the knowledge
  } else {
    p = source_params(ctx, *pk, codename);
    // The release whose kernels the install brings for every GPU. Through an override
    // it brings another target's packages: not a release that runs them natively.
    c.release = pk->via_override ? nullptr : pk->release;
  }
  c.channel = pk->channel;
  describe(*pk, distro, targets, p, c.notes);
  if (pk->via_override)
    c.notes.push_back("ROCm " + p.release + " runs " + ml::gfx_names(targets) + " through HSA_OVERRIDE_GFX_VERSION (the "
                      "hsa-override recipe sets it): no release has its own kernels" +
                      (pk->channel ? std::string(", so the packages of the override's target are installed.") : "."));
  // The use case: programs that bring their own libraries need only the HIP runtime.
  bool bundles = f.ml.ollama.installed;
  for (const auto& py : f.ml.python)
    if (py.torch_path) bundles = true;
  const std::string full = pk->release ? pk->release->version.str() : "";
  const auto& runtime = pk->channel ? pk->channel->runtime : ctx.kb.apt.runtime;
  const auto& development = pk->channel && !pk->channel->development.empty() ? pk->channel->development
                            : pk->channel                                     ? pk->channel->runtime
                                                                              : ctx.kb.apt.development;
  p.install = use_case_packages(bundles ? runtime : development, *pk, p.release, full);
  c.notes.push_back(bundles ? "Installs " + text::join(p.install, " ") + " (the runtime): PyTorch or ollama is installed here "
                              "and brings its own ROCm libraries."
                            : "Installs " + text::join(p.install, " ") + " (the whole stack: compilers, libraries, rocminfo): "
                              "no PyTorch or ollama that brings its own libraries was found, so this is for building and running "
                              "ROCm programs.");
  if (pk->release) kernel_driver(ctx, *pk, targets, c, p);
  removals(ctx, *pk, distro, p);
  if (!p.remove.empty())
    c.notes.push_back("Removes " + text::join(p.remove, " ") + " first: two ROCms side by side load each other's libraries.");
  // Release directories no package owns (AMD's runfile installer, a tarball, a copied
  // tree): apt cannot remove them, so the recipe moves them aside. Only dpkg's status can
  // show that nothing owns one; without it amdml cannot tell, and says so.
  std::vector<std::string> unknown;
  for (const auto& dir : f.rocm.installed) {
    auto at = dir.rfind("rocm-");
    auto v = at == std::string::npos ? std::nullopt : Version::parse(dir.substr(at + 5));
    if (!v) continue;
    if (!f.rocm.dpkg_status) unknown.push_back(dir);
    else if (!release_owned(f.rocm.packages, *v)) p.set_aside.push_back(dir);
  }
  if (!p.set_aside.empty())
    c.notes.push_back("Moves " + text::join(p.set_aside, " ") + " aside first: no installed package belongs to " +
                      (p.set_aside.size() == 1 ? "that release" : "those releases") +
                      " (AMD's runfile installer, a tarball or a copy put it there), so apt cannot remove it.");
  else if (!unknown.empty())
    c.notes.push_back("/var/lib/dpkg/status was not found, so amdml cannot tell whether a package owns " + text::join(unknown, " ") +
                      ": if none does, it stays beside ROCm " + p.release + "; then move it out of /opt by hand.");
  group_members(f, p);
  c.params = std::move(p);
  return c;
}

void attach_rocm_install(const RuleContext& ctx, Finding& fd) { attach_rocm_install(choose_rocm(ctx), fd); }

namespace {

// The ROCm series a torch is built on, from its local version tag: "+rocm7.14" (pytorch.org),
// "+rocm7.14.0" (AMD's); "" without one.
std::string torch_series(const PythonEnv& env) {
  const std::string ver = env.torch_version.value_or("");
  auto at = ver.find("+rocm");
  auto v = at == std::string::npos ? std::nullopt : Version::parse(ver.substr(at + 5));
  return v ? std::to_string(v->major) + "." + std::to_string(v->minor) : std::string();
}

// The login whose home holds the environment: a venv in /home/alice is alice's, and files
// root left there would break alice's next pip. "" (as amdml runs) for any other place.
std::string env_owner(const Facts& f, const std::string& prefix) {
  for (const auto& pw : f.identity.passwd)
    if (pw.uid != 0 && pw.home.size() > 1 && prefix.starts_with(pw.home + "/")) return pw.name;
  return {};
}

}  // namespace

void attach_pip_install(const RuleContext& ctx, const PythonEnv& env, PipNeed need, const std::vector<int>& gpus, Finding& fd) {
  const Facts& f = ctx.facts;
  const auto& w = env.rocm_wheels;
  const std::optional<std::string> installed = w.rocm_version ? w.rocm_version : w.core_version;
  std::string series = torch_series(env);
  if (need == PipNeed::rocm_device && installed)
    if (auto v = Version::parse(*installed)) series = std::to_string(v->major) + "." + std::to_string(v->minor);
  auto sv = Version::parse(series);
  if (!sv || gpus.empty()) return;
  const std::string id_prefix = need == PipNeed::torch_device ? "amd-torch-" : "therock-pip-";
  const ChannelSpec* ch = nullptr;
  for (const auto& c : ctx.kb.channels)
    if (c.kind == "pip" && c.id.starts_with(id_prefix) && c.full.count(series) &&
        std::find(c.rocm.begin(), c.rocm.end(), *sv) != c.rocm.end())
      ch = &c;
  if (!ch) return;
  const std::string full = ch->full.at(series).str();
  const RocmRelease* r = ctx.kb.find_rocm(ch->full.at(series));
  // Each GPU's device extra: its own target where the release packages it, else its override's.
  std::string extras;
  for (int i : gpus) {
    const GfxTarget& g = *f.gpus[i].gfx;
    const auto t = r ? packaged_target(ctx, *r, g, true).value_or(g) : g;
    const std::string e = "device-" + t.name();
    if (extras.find(e) == std::string::npos) extras += (extras.empty() ? "" : ",") + e;
  }
  std::string spec;
  if (need == PipNeed::rocm_wheels) spec = "rocm[libraries," + extras + "]==" + full;
  else if (need == PipNeed::rocm_device) spec = "rocm[" + extras + "]==" + installed.value_or(full);
  else spec = "torch[" + extras + "]" + (env.torch_version ? "==" + *env.torch_version : std::string());
  RocmInstallParams p;
  p.release = series;
  p.channel = ch->id;
  p.manager = "pip";
  p.python = env.interpreter.value_or(env.prefix + "/bin/python3");
  p.index_url = ch->repo;
  p.install = {spec};
  p.run_as = env_owner(f, env.prefix);
  const std::string torch = env.torch_version ? "torch " + *env.torch_version : "the environment";
  fd.notes.push_back(need == PipNeed::rocm_device
                         ? "Installs " + spec + " into " + env.prefix + ": the device package of the same release as the rocm "
                           "wheels already there, from " + ch->title + ", index " + ch->repo + "."
                         : "Installs " + spec + " into " + env.prefix + ": " + torch + " is built on ROCm " + series +
                               " (its +rocm tag), so the wheels come from " + ch->title + ", index " + ch->repo + ": ROCm " +
                               full + ", the newest of that series in amdml's knowledge.");
  fd.notes.push_back("pip runs with " + p.python + ", the environment's own interpreter" +
                     (p.run_as.empty() ? std::string(".") : ", as " + p.run_as + " (the environment is in that user's home)."));
  fd.fix = FixRef{"rocm-install", p};
  fd.commands.clear();
  fd.roles.clear();
}

void attach_rocm_install(const RocmChoice& c, Finding& fd) {
  // The recipe, or the plain reason there is none, replaces the hand-picked advice
  // (another package source, a guess at a release); a PyTorch wheel stays an alternative.
  auto keep_only_pip = [&] {
    fd.commands.erase(std::remove_if(fd.commands.begin(), fd.commands.end(),
                                     [](const std::string& cmd) { return cmd.find("pip install") == std::string::npos; }),
                      fd.commands.end());
  };
  if (!c.params) {
    fd.notes.push_back(c.why_none);
    if (c.no_release_runs) keep_only_pip();
    return;
  }
  const auto& p = *c.params;
  if (p.rocm_repo.empty() && (p.manager == "dnf" || p.manager == "pacman")) {
    // The distribution's own packages: no file for amdml to write, so `fix` would have
    // nothing to journal or check and would say "nothing to do" (it ties commands to
    // file changes). The install is a hand command, never a promised `fix --only`.
    for (const auto& n : c.notes) fd.notes.push_back(n);
    std::vector<std::string> argv = p.manager == "dnf" ? std::vector<std::string>{"sudo", "dnf", "install", "-y"}
                                                       : std::vector<std::string>{"sudo", "pacman", "-S", "--needed"};
    argv.insert(argv.end(), p.install.begin(), p.install.end());
    for (const auto& cmd : fd.commands)
      if (cmd.find("pip install") != std::string::npos) fd.notes.push_back("For PyTorch alone there is another way: " + cmd);
    fd.commands.assign(1, text::shell_words(argv));
    fd.roles.clear();
    return;
  }
  fd.fix = FixRef{"rocm-install", p};
  for (const auto& n : c.notes) fd.notes.push_back(n);
  // The hand commands are the recipe's (derived from its plan); a PyTorch wheel is
  // another remedy, not the same change by hand, so it is said as a note.
  for (const auto& cmd : fd.commands)
    if (cmd.find("pip install") != std::string::npos)
      fd.notes.push_back("For PyTorch alone there is another way: " + cmd);
  fd.commands.clear();
  fd.roles.clear();
}

}  // namespace amdml::rules
