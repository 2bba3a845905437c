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
      // A GPU set to run as another target (HSA_OVERRIDE_GFX_VERSION) loads that target's
      // code: that target's package is the one it needs.
      if (auto ov = override_for(f, f.gpus[i]); ov && ov->parse.target && *ov->parse.target != g &&
          (std::find(in.targets.begin(), in.targets.end(), *ov->parse.target) != in.targets.end() ||
           any_covers(in.device_packages, prefix, *ov->parse.target)))
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
    if (const PythonEnv* env = in.channel == RocmChannel::pip ? env_at(f, in.python_env) : nullptr)
      attach_pip_install(ctx, *env, PipNeed::rocm_device, missing, out.back());
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
    attach_pip_install(ctx, env, PipNeed::torch_device, missing, out.back());
  }
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

// A release older than any amdml knows for ML.
void rocm_too_old(const RuleContext& ctx, const Evidence& rev, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const Version& v = *f.rocm.version;
  const RocmRelease& oldest = ctx.kb.rocm.front();
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
  if (w) fd.commands.push_back("pip install torch --index-url " + text::shell_word(w->index) + "   # PyTorch bundles its own ROCm runtime");
  fd.notes.push_back("Distribution ROCm packages (Debian 12: 5.2, Ubuntu 22.04: 5.0) lag; AMD's packages come from repo.radeon.com.");
  attach_rocm_install(ctx, fd);
  out.push_back(std::move(fd));
}

// One ROCm, the right one: two releases side by side, AMD's and the distribution's
// packages mixed, or a release without kernels for a GPU that a newer one has.
void rocm_not_one_release(const RuleContext& ctx, const RocmRelease* rel, const Evidence& rev, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const Version& v = *f.rocm.version;
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
    // Only side by side, and no package of the other one that apt could remove and no
    // directory to move aside: the recipe cannot make it one release (another channel's
    // install would be a third), so say what to do by hand.
    const bool only_side_by_side = why.size() == 1 && f.rocm.installed.size() > 1;
    attach_rocm_install(c, fd);
    if (only_side_by_side && fd.fix) {
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

// Per GPU: AMD's status for this release with this kernel, or a GPU the release dropped.
void rocm_gpu_status(const RuleContext& ctx, const RocmRelease* rel, const Evidence& rev, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const Version& v = *f.rocm.version;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    if (!g.gfx) continue;
    // AMD's status for this release on this GPU given the kernel (Strix Halo).
    if (const KernelReq* req = ctx.kb.kernel_req_for(*g.gfx); req && f.os.kernel_release && req->satisfied_by(*f.os.kernel_release)) {
      if (req->status(v, true) == KernelStatus::unsupported) {
        // The releases AMD lists as working, in version order (the table's keys sort as text).
        std::vector<std::pair<Version, std::string>> ok;
        for (const auto& [key, st] : req->rocm_new_kernel)
          if (auto kv = Version::parse(key); kv && st == KernelStatus::ok) ok.emplace_back(*kv, key);
        std::sort(ok.begin(), ok.end());
        std::string good;
        for (const auto& [kv, key] : ok) good += (good.empty() ? "" : ", ") + key;
        auto fd = make_finding(FindingId::rocm_version, "ROCm " + v.str() + " is not supported on " + gpu_label(f, static_cast<int>(i)) +
                                                   " with kernel " + short_version(*f.os.kernel),
                               "AMD lists this release as unsupported on kernels that carry the fixes this GPU needs; the "
                               "releases it lists as working there: " + good + ".");
        fd.evidence.push_back(rev);
        fd.evidence.push_back({"/proc/sys/kernel/osrelease", *f.os.kernel_release});
        fd.gpus.push_back(static_cast<int>(i));
        // Prose, not a command: which release to install is the person's choice among these.
        if (!ok.empty()) fd.notes.push_back("Install ROCm " + ok.front().second + " or a newer release AMD lists as working with this kernel.");
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
          fd.commands.push_back("pip install torch --index-url " + text::shell_word(last->pytorch_index) + "   # the last supported stack");
        out.push_back(std::move(fd));
      }
    }
  }
}

void rocm_version_findings(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.rocm.version || ctx.kb.rocm.empty() || f.gpus.empty()) return;
  const Version& v = *f.rocm.version;
  const Evidence rev = rocm_evidence(f);
  if (v < ctx.kb.rocm.front().version) {
    rocm_too_old(ctx, rev, out);
    return;
  }
  const RocmRelease* rel = ctx.kb.find_rocm(v);
  if (!rel) return;  // newer major than amdml knows: nothing to say
  rocm_not_one_release(ctx, rel, rev, out);
  rocm_gpu_status(ctx, rel, rev, out);
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
