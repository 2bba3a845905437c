// rocm.missing: no ROCm on the host in any channel. A warning, not an error, and only a
// note when every consumer found brings its own ROCm (ollama, PyTorch wheels).
//
// rocm.device-missing: an install whose device code comes in per-target packages
// (TheRock's rocm-sdk-device-gfx* wheels, amdrocmX.Y-gfx* packages, AMD's
// amd-torch-device-gfx*) lacks the package for a GPU that is here.
//
// rocm.version: the installed ROCm against the GPU (dropped from the official list),
// the kernel (AMD's per-kernel status for a GPU, the release's kernel range), and age.
#include <algorithm>
#include <cctype>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

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

// Who loads the system ROCm (ROCM_PATH, /opt/rocm, the distribution's libraries):
// llama.cpp HIP builds without their own libamdhip64, TensorFlow and onnxruntime ROCm
// builds.
std::vector<std::string> system_rocm_users(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& b : f.ml.llama)
    if (std::find(b.backends.begin(), b.backends.end(), LlamaBackend::hip) != b.backends.end() && !b.bundled_hip)
      out.push_back("llama.cpp " + b.path);
  for (const auto& env : f.ml.python)
    for (const auto& p : env.rocm_packages) out.push_back(p.name + " in " + env.prefix);
  return out;
}

// Who brings a ROCm of their own, and which: ollama's bundled runner, each ROCm PyTorch
// (torch/lib, or the rocm wheels beside it), llama.cpp builds with libamdhip64 beside them.
std::vector<std::string> own_rocm_consumers(const Facts& f) {
  std::vector<std::string> out;
  const auto& o = f.ml.ollama;
  if (o.installed)
    out.push_back("ollama (" + (o.rocm_dir ? "its bundled ROCm" + (o.bundled_rocm ? " " + o.bundled_rocm->str() : std::string()) +
                                                 " in " + *o.rocm_dir
                                           : std::string("its own runners")) +
                  ")");
  for (const auto& env : f.ml.python) {
    if (env.torch_build != TorchBuild::rocm) continue;
    std::string from = env.torch_rocm == TorchRocm::bundled ? "the ROCm in torch/lib"
                       : env.rocm_wheels.any()               ? "TheRock's rocm wheels " + env.rocm_wheels.rocm_version.value_or(
                                                                                             env.rocm_wheels.core_version.value_or(""))
                                                             : "the ROCm its wheel depends on";
    out.push_back("PyTorch in " + env.prefix + " (" + std::string(text::trim(from)) + ")");
  }
  for (const auto& b : f.ml.llama)
    if (b.bundled_hip) out.push_back("llama.cpp " + b.path + " (" + *b.bundled_hip + ")");
  return out;
}

// A per-target package name covers gfx: the exact target ("gfx1151") or a family
// ("gfx110x", "gfx115X", "gfx11", "gfx12-0": the gfx names that start with it).
bool device_covers(std::string suffix, const GfxTarget& g) {
  std::string s;
  for (char c : suffix)
    if (c != '-') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (GfxTarget::parse_name(s) == g) return true;
  if (!s.empty() && s.back() == 'x') s.pop_back();
  const std::string name = g.name();
  return s.size() >= 5 && s.size() < name.size() && name.compare(0, s.size(), s) == 0;
}

bool any_covers(const std::vector<std::string>& packages, const std::string& prefix, const GfxTarget& g) {
  return std::any_of(packages.begin(), packages.end(), [&](const std::string& p) {
    auto at = p.find(prefix);
    return at != std::string::npos && device_covers(p.substr(at + prefix.size()), g);
  });
}

const PythonEnv* env_at(const Facts& f, const std::optional<std::string>& prefix) {
  for (const auto& e : f.ml.python)
    if (prefix && e.prefix == *prefix) return &e;
  return nullptr;
}

// One finding per install (or AMD torch) whose device packages leave out GPUs here.
void device_finding(const RuleContext& ctx, const std::string& what, const std::string& installed,
                    const std::vector<int>& missing, const std::vector<std::string>& add, const std::string& command,
                    const Evidence& ev, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  std::vector<GfxTarget> gfx;
  for (int i : missing) gfx.push_back(*f.gpus[i].gfx);
  auto fd = make_finding(FindingId::rocm_device_missing,
                         what + " has no device code for " + (missing.size() == 1 ? gpu_label(f, missing.front())
                                                                                   : ml::gfx_names(gfx)) +
                             ": add " + text::join(add, ", "),
                         what + " carries device code only for the targets of its installed per-target packages (" +
                             installed + "); " + ml::gfx_names(gfx) + (missing.size() == 1 ? " is" : " are") +
                             " not among them, so programs using it find no kernels for that GPU "
                             "(hipErrorNoBinaryForGpu).");
  fd.evidence.push_back(ev);
  for (int i : missing) fd.evidence.push_back(gfx_evidence(f.gpus[i]));
  fd.commands.push_back(command);
  fd.gpus = missing;
  out.push_back(std::move(fd));
}

}  // namespace

void rocm_device_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const auto gpus = ml::gpus_with_gfx(f);
  if (gpus.empty()) return;
  for (const auto& in : f.rocm.installs) {
    if (in.device_packages.empty()) continue;  // the targets are the whole tree's, not a choice of packages
    const std::string prefix = in.channel == RocmChannel::pip ? "rocm-sdk-device-" : "-";
    std::vector<int> missing;
    std::vector<std::string> add;
    for (int i : gpus) {
      const auto& g = *f.gpus[i].gfx;
      if (std::find(in.targets.begin(), in.targets.end(), g) != in.targets.end() || any_covers(in.device_packages, prefix, g))
        continue;
      missing.push_back(i);
      if (in.channel == RocmChannel::pip) {
        add.push_back("rocm-sdk-device-" + g.name());
      } else {  // amdrocm7.14-gfx1100 -> amdrocm7.14-gfx1151
        const std::string& model = in.device_packages.front();
        add.push_back(model.substr(0, model.rfind("-gfx")) + "-" + g.name());
      }
    }
    if (missing.empty()) continue;
    std::string command;
    Evidence ev;
    if (in.channel == RocmChannel::pip) {
      const PythonEnv* env = env_at(f, in.python_env);
      std::string extras;
      for (int i : missing) extras += (extras.empty() ? "" : ",") + std::string("device-") + f.gpus[i].gfx->name();
      command = text::shell_word(env && env->interpreter ? *env->interpreter : "python3") + " -m pip install " +
                text::shell_word("rocm[" + extras + "]" + (in.version ? "==" + in.version_text : std::string())) +
                "   # from the index the rocm wheels came from";
      ev = {in.path, "device wheels: " + text::join(in.device_packages, " ")};
    } else {
      command = ml::install_command(f, add);
      ev = {"dpkg " + in.path, "device packages: " + text::join(in.device_packages, " ")};
    }
    const std::string what = in.channel == RocmChannel::pip ? "TheRock's ROCm " + in.version_text + " in " + in.python_env.value_or(in.path)
                                                             : "ROCm " + in.version_text + " in " + in.path;
    device_finding(ctx, what, text::join(in.device_packages, ", "), missing, add, command, ev, out);
  }
  // AMD's torch[device-gfxNNNN]: the GPU code of torch itself is per target too.
  for (const auto& env : f.ml.python) {
    const auto& tp = env.rocm_wheels.torch_device_packages;
    if (env.torch_rocm != TorchRocm::amd_device || tp.empty()) continue;
    std::vector<int> missing;
    std::vector<std::string> add;
    std::string extras;
    for (int i : gpus) {
      const auto& g = *f.gpus[i].gfx;
      if (any_covers(tp, "amd-torch-device-", g)) continue;
      missing.push_back(i);
      add.push_back("amd-torch-device-" + g.name());
      extras += (extras.empty() ? "" : ",") + std::string("device-") + g.name();
    }
    if (missing.empty()) continue;
    std::string ver = env.torch_version.value_or("");
    const std::string command = text::shell_word(env.interpreter.value_or("python3")) + " -m pip install " +
                                text::shell_word("torch[" + extras + "]" + (ver.empty() ? std::string() : "==" + ver)) +
                                "   # from the index this torch came from";
    device_finding(ctx, "PyTorch " + ver + " in " + env.prefix, text::join(tp, ", "), missing, add, command,
                   {env.torch_path.value_or(env.prefix), "torch device packages: " + text::join(tp, " ")}, out);
  }
}

RocmChoice choose_rocm(const RuleContext& ctx) {
  const Facts& f = ctx.facts;
  const RocmApt& apt = ctx.kb.apt;
  RocmChoice c;
  const std::string instead =
      " What works instead: the Vulkan backends (llama.cpp's Vulkan build, ollama's Vulkan runner), the distribution's "
      "own ROCm packages where they run the GPU, or a container image built for it.";
  if (!f.os.id || !f.os.version_id || apt.releases.empty()) {
    c.why_none = "The distribution is unknown (/etc/os-release), so amdml cannot choose AMD's packages for it.";
    return c;
  }
  const std::string distro = *f.os.id + " " + *f.os.version_id;
  std::string codename;
  for (const auto& a : apt.codenames)
    if (a.distro == distro) codename = a.codename;
  if (codename.empty()) {
    // RHEL, SLES, Oracle Linux: AMD ships RPMs; amdml plans apt installs only.
    for (auto it = ctx.kb.rocm.rbegin(); it != ctx.kb.rocm.rend(); ++it)
      if (std::find(it->distros.begin(), it->distros.end(), distro) != it->distros.end()) {
        c.why_none = "AMD ships ROCm " + short_version(it->version) + " for " + distro + " as RPM packages; amdml's "
                     "rocm-install plans apt installs only: add AMD's dnf/zypper repository as rocm.docs.amd.com lays it out.";
        return c;
      }
    c.why_none = "AMD publishes no ROCm packages for " + distro + "." + instead;
    return c;
  }
  std::vector<GfxTarget> targets;
  for (const auto& g : f.gpus)
    if (g.gfx) targets.push_back(*g.gfx);
  if (targets.empty()) {
    c.why_none = "No GPU's gfx target is known, so no release can be chosen for it.";
    return c;
  }
  auto runs = [&](const RocmRelease& r, bool via_override) {
    return std::all_of(targets.begin(), targets.end(), [&](const GfxTarget& t) {
      if (r.has_kernels(t)) return true;
      const GfxInfo* gi = ctx.kb.find_gfx(t);
      return via_override && gi && gi->override_to && r.has_kernels(*gi->override_to);
    });
  };
  const RocmAptRelease* chosen = nullptr;
  bool via_override = false;
  for (bool ov : {false, true}) {
    for (auto it = apt.releases.rbegin(); it != apt.releases.rend() && !chosen; ++it) {
      const RocmRelease* r = ctx.kb.find_rocm(it->rocm);
      if (!r || r->version != it->rocm) continue;
      if (std::find(r->distros.begin(), r->distros.end(), distro) == r->distros.end()) continue;
      if (runs(*r, ov)) {
        chosen = &*it;
        c.release = r;
        via_override = ov;
      }
    }
    if (chosen) break;
  }
  if (!chosen) {
    c.no_release_runs = true;
    c.why_none = "No ROCm release AMD ships for " + distro + " has kernels for " + ml::gfx_names(targets) +
                 ", natively or through a known HSA_OVERRIDE_GFX_VERSION." + instead;
    return c;
  }
  RocmInstallParams p;
  p.release = short_version(c.release->version);
  p.rocm_repo = text::replace_all(apt.rocm_repo, "{path}", chosen->path);
  p.graphics_repo = text::replace_all(apt.graphics_repo, "{graphics}", chosen->graphics);
  p.codename = codename;
  p.key_url = apt.key_url;
  p.origin = apt.origin;
  if (via_override)
    c.notes.push_back("ROCm " + p.release + " runs " + ml::gfx_names(targets) +
                      " through HSA_OVERRIDE_GFX_VERSION (the hsa-override recipe sets it): no release has its own kernels.");
  // The use case: programs that bring their own libraries need only the HIP runtime.
  bool bundles = f.ml.ollama.installed;
  for (const auto& py : f.ml.python)
    if (py.torch_path) bundles = true;
  if (bundles) {
    p.install = apt.runtime;
    c.notes.push_back("Installs " + text::join(apt.runtime, " ") + " (the HIP runtime): PyTorch or ollama is installed here and "
                      "brings its own ROCm libraries.");
  } else {
    p.install = apt.development;
    c.notes.push_back("Installs " + text::join(apt.development, " ") + " (the whole stack: compilers, libraries, rocminfo): no PyTorch "
                      "or ollama that brings its own libraries was found, so this is for building and running ROCm programs.");
  }
  // AMD's kernel driver only where the running kernel's own amdgpu lacks the GPU.
  std::optional<Version> needs;
  for (const auto& t : targets)
    if (const GfxInfo* gi = ctx.kb.find_gfx(t); gi && gi->kernel_min && (!needs || *needs < *gi->kernel_min)) needs = gi->kernel_min;
  if (f.os.kernel && needs && *f.os.kernel < *needs && !apt.dkms.empty()) {
    if (c.release->kernel_max && *c.release->kernel_max < Version{f.os.kernel->major, f.os.kernel->minor, 0}) {
      c.notes.push_back("Kernel " + short_version(*f.os.kernel) + " lacks " + ml::gfx_names(targets) + " and is newer than the " +
                        "kernels amdgpu-dkms of ROCm " + p.release + " builds on: install a kernel from " +
                        short_version(*needs) + " on instead.");
    } else {
      for (const auto& d : apt.dkms) p.install.push_back(d);
      c.notes.push_back("Installs amdgpu-dkms: kernel " + short_version(*f.os.kernel) + " is older than " + short_version(*needs) +
                        ", the first whose amdgpu runs " + ml::gfx_names(targets) + ". It needs a reboot.");
    }
  } else if (f.os.kernel) {
    c.notes.push_back("No amdgpu-dkms: kernel " + short_version(*f.os.kernel) + "'s own amdgpu driver runs " +
                      ml::gfx_names(targets) + ".");
  }
  // What another ROCm left: the distribution's packages, another release's versioned ones.
  for (const auto& d : apt.distro_packages)
    if (d.distro == distro)
      for (const auto& name : d.packages)
        if (f.rocm.packages.count(name) && !amd_version(f.rocm.packages.at(name)) &&
            std::find(p.remove.begin(), p.remove.end(), name) == p.remove.end())
          p.remove.push_back(name);
  for (const auto& [name, ver] : f.rocm.packages) {
    // rocm-core6.2.2, hip-runtime-amd6.2.2: a versioned install of a release side by side.
    auto digit = name.find_first_of("0123456789");
    if (digit == std::string::npos || name.find('.', digit) == std::string::npos) continue;
    if (Version::parse(name.substr(digit)) && std::find(p.remove.begin(), p.remove.end(), name) == p.remove.end())
      p.remove.push_back(name);
  }
  if (!p.remove.empty())
    c.notes.push_back("Removes " + text::join(p.remove, " ") + " first: two ROCms side by side load each other's libraries.");
  // Release directories no package owns (AMD's runfile installer, a tarball, a copied
  // tree): apt cannot remove them, so the recipe moves them aside. Only dpkg's status can
  // show that nothing owns one; without it amdml cannot tell, and says so.
  std::vector<std::string> unknown;
  for (const auto& dir : f.rocm.installed) {
    auto v = Version::parse(dir.substr(dir.rfind("rocm-") + 5));
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
                      ": if none does, apt leaves it beside ROCm " + p.release + "; then move it out of /opt by hand.");
  // The groups that own the device nodes, as AMD's guide adds them -- the same groups
  // access.kfd asks for: only where the user lacks one per /etc/group and per NSS (a local
  // copy of a directory group would shadow it). Without device nodes to look at (the
  // driver not loaded yet), render and video, as the guide says.
  const auto& id = f.identity;
  if (!id.root && !id.user.empty() && id.user != "root") {
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
  c.params = std::move(p);
  return c;
}

void attach_rocm_install(const RuleContext& ctx, Finding& fd) { attach_rocm_install(choose_rocm(ctx), fd); }

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
  fd.fix = FixRef{"rocm-install", p};
  fd.notes.push_back("ROCm " + p.release + " is the newest release AMD ships for this distribution (" + p.codename +
                     ") with kernels for every GPU here: " + p.rocm_repo + ".");
  for (const auto& n : c.notes) fd.notes.push_back(n);
  // The hand commands are the recipe's (derived from its plan); a PyTorch wheel is
  // another remedy, not the same change by hand, so it is said as a note.
  for (const auto& cmd : fd.commands)
    if (cmd.find("pip install") != std::string::npos)
      fd.notes.push_back("For PyTorch alone there is another way: " + cmd);
  fd.commands.clear();
  fd.roles.clear();
}

void rocm_missing(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.gpus.empty() || f.rocm.source != RocmSource::none) return;
  // No ROCm runs on any of these GPUs (gfx.unsupported says so): installing it cannot help.
  if (std::all_of(f.gpus.begin(), f.gpus.end(), [&](const Gpu& g) { return rocm_never(ctx.kb, g); })) return;
  // TheRock's wheels, a tarball or the Core SDK are a ROCm: not missing.
  if (!f.rocm.installs.empty()) return;
  const auto users = system_rocm_users(f);
  const auto own = own_rocm_consumers(f);
  auto fd = make_finding(FindingId::rocm_missing, "No ROCm runtime installed",
                         "Neither ROCM_PATH, /opt/rocm, TheRock's wheels nor a distribution libhsa-runtime64 was "
                         "found. PyTorch ROCm wheels and ollama bring their own runtime, so this only matters for "
                         "programs built against a system ROCm (llama.cpp HIP builds, rocminfo).");
  if (!users.empty()) {
    fd.detail += " Here that is " + text::join(users, ", ") + ".";
  } else if (!own.empty()) {
    // Nothing found here would load it: worth knowing, not a problem.
    fd.severity = Severity::info;
    fd.title = "No system ROCm installed (nothing found here needs one)";
    fd.detail += " Everything found here brings its own: " + text::join(own, "; ") + ".";
  }
  fd.evidence.push_back({"/opt/rocm", "absent"});
  if (auto p = f.env.find("ROCM_PATH"); p != f.env.end()) fd.evidence.push_back({"env ROCM_PATH", p->second});
  if (f.os.id && (*f.os.id == "ubuntu" || *f.os.id == "debian"))
    fd.commands.push_back("sudo apt install rocminfo   # the distribution's ROCm; or AMD's amdgpu-install --usecase=rocm");
  else
    fd.commands.push_back("install ROCm with AMD's amdgpu-install --usecase=rocm (see rocm.docs.amd.com)");
  fd.gpus = amd_gpu_indices(f);
  if (fd.severity != Severity::info) attach_rocm_install(ctx, fd);
  out.push_back(std::move(fd));
}

namespace {

void rocm_version_findings(const RuleContext& ctx, std::vector<Finding>& out);

}  // namespace

// A problem with the system ROCm matters as much as what loads it: with nothing found
// that does, and consumers that bring their own, it is a note that says whom it affects.
void rocm_version_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const std::size_t first = out.size();
  rocm_version_findings(ctx, out);
  if (out.size() == first || !ctx.facts.ml.probed) return;
  const auto users = system_rocm_users(ctx.facts);
  const auto own = own_rocm_consumers(ctx.facts);
  for (std::size_t i = first; i < out.size(); ++i) {
    auto& fd = out[i];
    if (fd.id != FindingId::rocm_version) continue;
    if (!users.empty()) {
      fd.notes.push_back("The system ROCm is loaded by " + text::join(users, ", ") + ".");
    } else if (!own.empty()) {
      fd.severity = Severity::info;
      fd.notes.insert(fd.notes.begin(), "Nothing found here loads the system ROCm: " + text::join(own, "; ") +
                                            ". This affects only programs built against the system ROCm (rocminfo, "
                                            "HIP builds of llama.cpp).");
    }
  }
}

namespace {

void rocm_version_findings(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.rocm.version || ctx.kb.rocm.empty() || f.gpus.empty()) return;
  const Version& v = *f.rocm.version;
  const Evidence rev = rocm_evidence(f);
  const RocmRelease& oldest = ctx.kb.rocm.front();

  if (v < oldest.version) {
    auto fd = make_finding(FindingId::rocm_version, "ROCm " + v.str() + " is older than " + short_version(oldest.version),
                           "Releases before " + short_version(oldest.version) + " predate most ML support: no current PyTorch wheel, "
                           "ollama or llama.cpp build targets them.");
    fd.evidence.push_back(rev);
    fd.gpus = amd_gpu_indices(f);
    std::vector<GfxTarget> targets;
    for (const auto& g : f.gpus)
      if (g.gfx) targets.push_back(*g.gfx);
    const PytorchWheel* w = targets.empty() ? (ctx.kb.pytorch.empty() ? nullptr : &ctx.kb.pytorch.back())
                                            : ctx.kb.pytorch_for(targets).wheel;
    if (w) fd.commands.push_back("pip install torch --index-url " + w->index + "   # PyTorch bundles its own ROCm runtime");
    fd.notes.push_back("Distribution ROCm packages (Debian 12: 5.2, Ubuntu 22.04: 5.0) lag; AMD's packages come from repo.radeon.com.");
    attach_rocm_install(ctx, fd);
    out.push_back(std::move(fd));
    return;
  }
  const RocmRelease* rel = ctx.kb.find_rocm(v);
  if (!rel) return;  // newer major than amdml knows: nothing to say

  // One ROCm, the right one: two releases side by side, AMD's and the distribution's
  // packages mixed, or a release without kernels for a GPU that a newer one has.
  {
    std::vector<std::string> why;
    if (f.rocm.installed.size() > 1) {
      why.push_back("two releases are installed side by side (" + text::join(f.rocm.installed, ", ") + ")");
    }
    if (f.rocm.source != RocmSource::distro && f.os.id && f.os.version_id)
      for (const auto& d : ctx.kb.apt.distro_packages)
        if (d.distro == *f.os.id + " " + *f.os.version_id)
          for (const auto& name : d.packages)
            if (f.rocm.packages.count(name) && !amd_version(f.rocm.packages.at(name))) {
              why.push_back("AMD's packages and the distribution's (" + name + " " + f.rocm.packages.at(name) + ") are mixed");
              break;
            }
    // A GPU gfx.override-needed already moves to the release with its kernels is told there.
    auto moved_there = [&](std::size_t i) {
      return std::any_of(out.begin(), out.end(), [&](const Finding& x) {
        return x.id == FindingId::gfx_override_needed && x.fix && x.fix->recipe == "rocm-install" &&
               std::find(x.gpus.begin(), x.gpus.end(), static_cast<int>(i)) != x.gpus.end();
      });
    };
    std::vector<GfxTarget> lacking;
    for (std::size_t i = 0; i < f.gpus.size(); ++i)
      if (f.gpus[i].gfx && !rel->has_kernels(*f.gpus[i].gfx) && !moved_there(i)) lacking.push_back(*f.gpus[i].gfx);
    auto c = choose_rocm(ctx);
    if (!lacking.empty() && c.release && c.release->version > rel->version &&
        std::all_of(lacking.begin(), lacking.end(), [&](const GfxTarget& t) { return c.release->has_kernels(t); }))
      why.push_back("ROCm " + short_version(rel->version) + " has no kernels for " + ml::gfx_names(lacking) + "; ROCm " +
                    short_version(c.release->version) + " has");
    if (!why.empty()) {
      const std::string all = text::join(why, "; ");
      auto fd = make_finding(FindingId::rocm_version, "Move to one ROCm release: " + why.front(),
                             "The installed ROCm (" + v.str() + ") is not one release this GPU runs natively: " + all + ".");
      fd.severity = Severity::warning;
      fd.evidence.push_back(rev);
      fd.gpus = amd_gpu_indices(f);
      // Only side by side with this very release, and no package of the other one that
      // apt could remove: the recipe would find itself in place, so say what to do by hand.
      const bool only_side_by_side = why.size() == 1 && f.rocm.installed.size() > 1;
      attach_rocm_install(c, fd);
      if (only_side_by_side && fd.fix && c.release && c.release->version.major == rel->version.major &&
          c.release->version.minor == rel->version.minor) {
        const auto* rp = std::get_if<RocmInstallParams>(&fd.fix->params);
        if (rp && rp->remove.empty() && rp->set_aside.empty()) {
          fd.fix.reset();
          fd.notes.clear();
          fd.notes.push_back("ROCm " + short_version(rel->version) + " is the right release here; " +
                             (f.rocm.dpkg_status ? "no installed package owns the other directories"
                                                 : "amdml cannot tell which package owns the other directories "
                                                   "(/var/lib/dpkg/status was not found)") +
                             ", so remove them with the tool that put them there (or by hand).");
        }
      }
      out.push_back(std::move(fd));
    }
  }

  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    if (!g.gfx) continue;
    // AMD's status for this release on this GPU given the kernel (Strix Halo).
    if (const KernelReq* req = ctx.kb.kernel_req_for(*g.gfx); req && f.os.kernel_release && req->satisfied_by(*f.os.kernel_release)) {
      if (req->status(v, true) == KernelStatus::unsupported) {
        std::string good;
        for (const auto& [key, st] : req->rocm_new_kernel)
          if (st == KernelStatus::ok) good += (good.empty() ? "" : ", ") + key;
        auto fd = make_finding(FindingId::rocm_version, "ROCm " + v.str() + " is not supported on " + gpu_label(f, static_cast<int>(i)) +
                                                   " with kernel " + short_version(*f.os.kernel),
                               "AMD lists this release as unsupported on kernels that carry the fixes this GPU needs; the "
                               "releases it lists as working there: " + good + ".");
        fd.evidence.push_back(rev);
        fd.evidence.push_back({"/proc/sys/kernel/osrelease", *f.os.kernel_release});
        fd.gpus.push_back(static_cast<int>(i));
        fd.commands.push_back("install ROCm " + good.substr(0, good.find(',')) + " or newer listed as ok (amdgpu-install from repo.radeon.com)");
        if (!req->source.empty()) fd.notes.push_back("Source: " + req->source + ".");
        out.push_back(std::move(fd));
        continue;
      }
    }
    // Dropped from the official list while the libraries still carry its kernels.
    if (rel->has_kernels(*g.gfx) && !rel->is_official(*g.gfx)) {
      const RocmRelease* last = ctx.kb.last_official(*g.gfx);
      if (last && last->version < rel->version) {
        auto fd = make_finding(FindingId::rocm_version, "ROCm " + v.str() + " no longer supports " + gpu_label(f, static_cast<int>(i)),
                               "ROCm " + short_version(last->version) + " was the last release with " + g.gfx->name() +
                                   " on AMD's list; newer releases still carry some kernels but are untested on it and may "
                                   "fail in any library.");
        fd.evidence.push_back(rev);
        fd.evidence.push_back(gfx_evidence(g));
        fd.gpus.push_back(static_cast<int>(i));
        if (!last->pytorch_index.empty())
          fd.commands.push_back("pip install torch --index-url " + last->pytorch_index + "   # the last supported stack");
        out.push_back(std::move(fd));
      }
    }
  }
  // The kernel below every distribution kernel the release was built for.
  if (f.os.kernel && rel->kernel_min && *f.os.kernel < *rel->kernel_min && !in_container(f)) {
    auto fd = make_finding(FindingId::rocm_version, "ROCm " + v.str() + " needs a newer kernel than " + short_version(*f.os.kernel),
                           "The oldest kernel on a distribution this release supports is " + short_version(*rel->kernel_min) + ".");
    fd.evidence.push_back(rev);
    fd.evidence.push_back({"/proc/sys/kernel/osrelease", f.os.kernel_release.value_or(short_version(*f.os.kernel))});
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }
}

}  // namespace

}  // namespace amdml::rules
