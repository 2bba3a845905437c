// The planner's working state, shared by src/fix/plan.cpp and the rocm-install steps in
// src/fix/plan_rocm.cpp: the inputs, the recipes planned before, and the recipe plan
// being built.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fix/fix.hpp"
#include "fix/params.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

struct Ctx {
  const PlanRequest& in;
  const std::vector<RecipePlan>& earlier;  // recipes planned before this one
  RecipePlan& rp;
  // A file as this recipe will find it: what an earlier step of the same plan leaves
  // there (two groups recipes editing /etc/group), else what is on disk.
  Result<platform::FileState> state(const std::string& path) {
    const FileChange* last = nullptr;
    for (const auto& e : earlier)
      for (const auto& fc : e.files)
        if (fc.path == path && !e.refused) last = &fc;
    for (const auto& fc : rp.files)
      if (fc.path == path) last = &fc;
    auto f = in.tree.read(path);
    if (!last || !f) return f;
    f->exists = true;
    f->bytes = last->after;
    return f;
  }
  // The same, but an unreadable or symlinked file refuses the recipe.
  std::optional<platform::FileState> read(const std::string& path) {
    auto f = state(path);
    if (!f) {
      rp.refused = f.error();
      return std::nullopt;
    }
    return *f;
  }
};

// One file per step family: the TTM limit in modprobe.d and the initramfs
// (plan_modprobe.cpp), the kernel command line (plan_cmdline.cpp), the environment files
// (plan_env.cpp), the group databases (plan.cpp).
void plan_modprobe(Ctx& c, const ModprobeOptionStep& step, const TtmLimits& p);
void plan_initramfs(Ctx& c, const TtmLimits& p);
void plan_kernel_cmdline(Ctx& c, const KernelCmdlineStep& step, const KernelCmdlineParams& p);
void plan_env_file(Ctx& c, const EnvFileStep& step, const EnvSettings& env);
void plan_login_env_clear(Ctx& c, const LoginEnvClearStep& step, const EnvSettings& env);

// rocm-install's steps (plan_rocm.cpp): the repository's files (key, source list, pin),
// then the package manager's commands.
void plan_apt_source(Ctx& c, const AptSourceStep& step, const RocmInstallParams& p);
void plan_apt_install(Ctx& c, const AptSourceStep* source, const RocmInstallParams& p);

}  // namespace amdml::fix
