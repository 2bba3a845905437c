// rocm.missing: no ROCm user space on the host. A warning, not an error: PyTorch's
// ROCm wheels and ollama bring their own runtime.
//
// rocm.version: the installed ROCm against the GPU (dropped from the official list),
// the kernel (AMD's per-kernel status for a GPU, the release's kernel range), and age.
#include <algorithm>
#include <cctype>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void rocm_missing(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.gpus.empty() || f.rocm.source != RocmSource::none) return;
  // No ROCm runs on any of these GPUs (gfx.unsupported says so): installing it cannot help.
  if (std::all_of(f.gpus.begin(), f.gpus.end(), [&](const Gpu& g) { return rocm_never(ctx.kb, g); })) return;
  auto fd = make_finding(FindingId::rocm_missing, "No ROCm runtime installed",
                         "Neither ROCM_PATH, /opt/rocm nor a distribution libhsa-runtime64 was found. PyTorch ROCm "
                         "wheels and ollama bundle their own runtime, so this only matters for programs built "
                         "against a system ROCm (llama.cpp HIP builds, rocminfo).");
  fd.evidence.push_back({"/opt/rocm", "absent"});
  if (auto p = f.env.find("ROCM_PATH"); p != f.env.end()) fd.evidence.push_back({"env ROCM_PATH", p->second});
  if (f.os.id && (*f.os.id == "ubuntu" || *f.os.id == "debian"))
    fd.commands.push_back("sudo apt install rocminfo   # the distribution's ROCm; or AMD's amdgpu-install --usecase=rocm");
  else
    fd.commands.push_back("install ROCm with AMD's amdgpu-install --usecase=rocm (see rocm.docs.amd.com)");
  fd.gpus = amd_gpu_indices(f);
  attach_rocm_install(ctx, fd);
  out.push_back(std::move(fd));
}

void rocm_version_rules(const RuleContext& ctx, std::vector<Finding>& out) {
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

}  // namespace amdml::rules
