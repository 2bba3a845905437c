// A fix recipe: data (recipes/fixes/*.toml, read by formats/recipe_toml.hpp) over a
// closed set of step kinds. Recipes combine steps; they never add code. Each step kind
// is its own type holding only its own fields, so a step cannot carry a field its kind
// does not use.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "base/enum_names.hpp"

namespace amdml {

// The closed set of step kinds, in the order of RecipeStep's alternatives.
enum class StepKind {
  group_members,      // add params.user to params.groups in /etc/group (+ /etc/gshadow)
  modprobe_option,    // set module options: edit the line that sets them, else amdml's own file
  env_file,           // a whole file of amdml's own with environment settings (format below)
  daemon_reload,      // systemctl daemon-reload
  restart_if_running, // systemctl try-restart UNIT (restarts only a running unit)
  initramfs,          // regenerate the initramfs when the module is in it
  follow_up,          // tell the person: reboot, new login, ...
  login_env_clear,    // turn off a person's login-file lines that set the recipe's variables otherwise
  kernel_cmdline,     // set/remove kernel parameters where the boot loader keeps them
  apt_source,         // AMD's apt layout for one ROCm release: keyring, source lists, pin file
  apt_install,        // apt-get: remove what conflicts, refresh the new sources, install the use case
};
// The spelling in a recipe file: "group-members", "modprobe-option", ...
inline constexpr EnumName<StepKind> kStepKindNames[] = {
    {StepKind::group_members, "group-members"}, {StepKind::modprobe_option, "modprobe-option"},
    {StepKind::env_file, "env-file"},           {StepKind::daemon_reload, "daemon-reload"},
    {StepKind::restart_if_running, "restart-if-running"}, {StepKind::initramfs, "initramfs"},
    {StepKind::follow_up, "follow-up"},         {StepKind::login_env_clear, "login-env-clear"},
    {StepKind::kernel_cmdline, "kernel-cmdline"}, {StepKind::apt_source, "apt-source"},
    {StepKind::apt_install, "apt-install"},
};
inline const char* to_string(StepKind k) { return enum_name(kStepKindNames, k, "?"); }

// How a recipe's parameters are read (docs/fix.md, "Recipes"): which alternative of
// FixParams (amdml/fix_params.hpp) it takes.
enum class ParamSchema { groups, ttm, hsa, env, cmdline, rocm };

// The file formats an env_file step writes.
enum class EnvFormat { profile_sh, environment_d, systemd_dropin };

enum class FollowUp { reboot, relogin };
inline constexpr EnumName<FollowUp> kFollowUpNames[] = {{FollowUp::reboot, "reboot"}, {FollowUp::relogin, "relogin"}};
inline const char* to_string(FollowUp f) { return enum_name(kFollowUpNames, f, "relogin"); }

struct GroupMembersStep {
  std::vector<std::string> files;  // the group databases (/etc/group, /etc/gshadow)
};
struct ModprobeOptionStep {
  std::string dir;   // the directory whose files may already set the options
  std::string path;  // amdml's own file in dir
};
struct EnvFileStep {
  std::string path;
  EnvFormat format = EnvFormat::profile_sh;
  std::string unit;  // systemd_dropin: the unit it belongs to ("ollama.service")
};
struct DaemonReloadStep {};
struct RestartIfRunningStep {
  std::string unit;  // "ollama.service"
};
struct InitramfsStep {};
struct FollowUpStep {
  FollowUp need = FollowUp::reboot;
  std::string text;          // what to tell the person ({user}, {group} filled in)
  std::string service_text;  // the same for a system account (uid < 1000): services, not logins
};
// The boot loader configurations, tried in this order (the first that exists is the one
// the machine uses): kernelstub (Pop!_OS), GRUB's defaults, kernel-install's cmdline.
struct KernelCmdlineStep {
  std::string kernelstub = "/etc/kernelstub/configuration";
  std::string grub = "/etc/default/grub";
  std::string kernel_install = "/etc/kernel/cmdline";
};

// The login files to look through: paths, or "DIR/*.SUFFIX" for every such file in DIR.
// A line there that plainly sets one of the recipe's variables to another value than
// the recipe's (a global HSA_OVERRIDE_GFX_VERSION where the recipe sets per-GPU values)
// is commented out, so the files amdml writes are what new logins get.
struct LoginEnvClearStep {
  std::vector<std::string> files;
};

// The files of AMD's install guide; the repository URLs and the key come from the
// parameters (the knowledge's rocm-releases.toml, chosen by the rule).
struct AptSourceStep {
  std::string keyring;   // "/etc/apt/keyrings/rocm.gpg" (binary OpenPGP keyring; repo.radeon.com's key)
  // The keyring of AMD's current repositories (another key: AMD's guide keeps it apart),
  // "/etc/apt/keyrings/amdrocm.gpg"; empty: keyring.
  std::string amd_keyring;
  std::string rocm_list; // "/etc/apt/sources.list.d/rocm.list"
  std::string graphics_list;  // "/etc/apt/sources.list.d/amdgpu.list"
  std::string pin;       // "/etc/apt/preferences.d/rocm-pin-600"
  // AMD's rpm repositories (dnf): the repository file and the armored key it names.
  std::string dnf_repo;  // "/etc/yum.repos.d/amdrocm.repo"
  std::string rpm_key;   // "/etc/pki/rpm-gpg/RPM-GPG-KEY-amdrocm"
};
struct AptInstallStep {};

// One step; the alternatives follow StepKind's order.
using RecipeStep = std::variant<GroupMembersStep, ModprobeOptionStep, EnvFileStep, DaemonReloadStep,
                                RestartIfRunningStep, InitramfsStep, FollowUpStep, LoginEnvClearStep,
                                KernelCmdlineStep, AptSourceStep, AptInstallStep>;
inline StepKind kind_of(const RecipeStep& s) { return static_cast<StepKind>(s.index()); }

struct Recipe {
  std::string id;     // pinned: groups, ttm-pages-limit, hsa-override, ollama-override
  std::string title;  // one line
  std::string file;   // "fixes/groups.toml", for messages
  ParamSchema params = ParamSchema::env;
  std::vector<std::string> resolves;  // finding ids this recipe is meant for
  std::vector<RecipeStep> steps;
};

}  // namespace amdml
