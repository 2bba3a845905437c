// The parameters a finding asks its fix recipe for, typed by the recipe's parameter
// schema (ParamSchema, amdml/recipe.hpp). Rules fill them in; the fix engine checks
// them again before it turns them into bytes (src/fix/params.cpp). Their JSON form --
// the report's fix.params, the fix journal's requests -- is formats/fix_params_json.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "amdml/units.hpp"

namespace amdml {

// groups: add user to groups.
struct GroupsParams {
  std::string user;
  std::vector<std::string> groups;
  bool operator==(const GroupsParams&) const = default;
};

// ttm: the TTM module's page limits ("ttm" or "amdttm"; pages of 4 KiB).
struct TtmLimitParams {
  std::string module;
  std::optional<Pages> pages_limit;
  std::optional<Pages> page_pool_size;
  bool operator==(const TtmLimitParams&) const = default;
};

// hsa: HSA_OVERRIDE_GFX_VERSION, one value for every GPU or one per KFD node
// ("2" -> "10.3.0"; the node index as the variable's suffix spells it).
// shell_unset: variables of the override family the shell running the doctor has that
// would still win over (a per-node one) or reach past (the global one) the new values;
// the step by hand unsets them first. The recipe writes files for new logins and leaves
// a running shell alone, so it does not read them.
struct HsaParams {
  std::optional<std::string> value;
  std::map<std::string, std::string> per_node;
  std::vector<std::string> shell_unset = {};
  bool operator==(const HsaParams&) const = default;
};

// env: environment variables to set (by name) and to unset.
struct EnvParams {
  std::map<std::string, std::string> env;
  std::vector<std::string> unset;
  bool operator==(const EnvParams&) const = default;
};

// cmdline: kernel parameters to set ("ttm.pages_limit" -> "29097984") and to remove
// (by name, with any value) where the boot loader keeps the command line.
struct KernelCmdlineParams {
  std::map<std::string, std::string> set;
  std::vector<std::string> remove;
  bool operator==(const KernelCmdlineParams&) const = default;
};

// rocm: install one ROCm release from one channel (recipe rocm-install): AMD's apt or
// rpm repository, or the distribution's own packages (dnf, pacman).
struct RocmInstallParams {
  std::string release;        // "10.1" (the knowledge's release), for people
  std::string rocm_repo;      // "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/"; "" = the distribution's
  std::string graphics_repo;  // "https://repo.radeon.com/amdgpu/30.30.1/ubuntu"; "" = no driver repository
  std::string codename;       // the apt suite: "noble" (legacy), "stable" (TheRock's repositories)
  std::string key_url;        // the signing key (https://, or file:// for tests); "" = the distribution's
  std::string origin;         // the apt pin's selector: the Release file's Origin, or the host ("origin ...")
  std::vector<std::string> install;  // packages to install ("rocm-hip-runtime", "amdgpu-dkms")
  std::vector<std::string> remove;   // packages to remove first (another release, the distribution's)
  std::string user;                  // added to groups ("" = nobody)
  std::vector<std::string> groups;
  // Release directories no installed package owns ("/opt/rocm-6.2.4": AMD's runfile
  // installer, a tarball, a copied tree), which apt cannot remove: moved aside first.
  std::vector<std::string> set_aside;
  std::string channel;        // the knowledge's [[channel]] id ("amd-core-10")
  std::string manager = "apt";  // apt | dnf | pacman | pip
  // pip: TheRock's wheels into the one Python environment that needs them, with its own
  // interpreter, as the environment's owner (install holds requirement specs then).
  std::string python;     // "/home/alice/venv/bin/python3"
  std::string index_url;  // "https://repo.amd.com/rocm/whl-multi-arch/"
  std::string run_as;     // the owner ("alice"); "" = as amdml runs
  std::string fingerprint;    // the key's pinned primary fingerprint (40 hex digits)
  bool operator==(const RocmInstallParams&) const = default;
};

using FixParams =
    std::variant<GroupsParams, TtmLimitParams, HsaParams, EnvParams, KernelCmdlineParams, RocmInstallParams>;

}  // namespace amdml
