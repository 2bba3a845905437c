// Inside the rules: one rule function per finding-id prefix (each in the file named
// after the prefix; registry.cpp runs them in order), and the helpers they share
// (common.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/text.hpp"
#include "formats/system_files.hpp"
#include "rules/rules.hpp"

namespace amdml::rules {

// --- the rules, in the order rule_table() runs them ---------------------------------
void gpu_rules(const RuleContext& ctx, std::vector<Finding>& out);        // gpu.cpp: gpu.none
void driver_rules(const RuleContext& ctx, std::vector<Finding>& out);     // driver.cpp: driver.not-loaded
void kfd_missing(const RuleContext& ctx, std::vector<Finding>& out);      // kfd.cpp: kfd.missing
void container_rules(const RuleContext& ctx, std::vector<Finding>& out);  // container.cpp: container.*
void access_rules(const RuleContext& ctx, std::vector<Finding>& out);     // access.cpp: access.*
void rocm_missing(const RuleContext& ctx, std::vector<Finding>& out);     // rocm.cpp: rocm.missing
void gfx_rules(const RuleContext& ctx, std::vector<Finding>& out);        // gfx.cpp: gfx.* (-invalid: gfx_override_invalid.cpp)
void memory_rules(const RuleContext& ctx, std::vector<Finding>& out);     // memory.cpp: memory.*
// module.key as the boot configuration sets it, resolved as modprobe does: modprobe.d
// files by name, the last setting wins, the kernel command line after them (nullopt: unset).
std::optional<std::string> modprobe_setting(const Facts& f, const std::string& module, const std::string& key);
// The GTT/TTM lines modprobe ignores or overrides, each naming file:line.
std::vector<std::string> modprobe_view_notes(const Facts& f);
void kernel_rules(const RuleContext& ctx, std::vector<Finding>& out);     // kernel.cpp: kernel.old
void kernel_log_rules(const RuleContext& ctx, std::vector<Finding>& out);
void firmware_rules(const RuleContext& ctx, std::vector<Finding>& out);    // firmware.cpp: firmware.known-bad  // kernel_log.cpp: kernel.* from the log
void kfd_gpu_missing(const RuleContext& ctx, std::vector<Finding>& out);  // kfd.cpp: kfd.gpu-missing
void rocm_device_rules(const RuleContext& ctx, std::vector<Finding>& out);  // rocm.cpp: rocm.device-missing
void rocm_version_rules(const RuleContext& ctx, std::vector<Finding>& out);  // rocm.cpp: rocm.version
void env_rules(const RuleContext& ctx, std::vector<Finding>& out);        // env.cpp: env.*
void runtime_rules(const RuleContext& ctx, std::vector<Finding>& out);    // runtime.cpp: runtime.*
void drm_rules(const RuleContext& ctx, std::vector<Finding>& out);        // drm.cpp: drm.mismatch
void deep_rules(const RuleContext& ctx, std::vector<Finding>& out);       // deep.cpp: deep.* (--deep)
void ollama_rules(const RuleContext& ctx, std::vector<Finding>& out);     // ollama.cpp: ollama.*
void ollama_journal_rules(const RuleContext& ctx, std::vector<Finding>& out);  // ollama_journal.cpp: ollama.discovery
void torch_rules(const RuleContext& ctx, std::vector<Finding>& out);      // torch.cpp: torch.*
void llamacpp_rules(const RuleContext& ctx, std::vector<Finding>& out);   // llamacpp.cpp: llamacpp.*
void ml_rules(const RuleContext& ctx, std::vector<Finding>& out);         // ml.cpp: ml.rocm-libraries
void vulkan_rules(const RuleContext& ctx, std::vector<Finding>& out);     // vulkan.cpp: vulkan.no-icd
void knowledge_rules(const RuleContext& ctx, std::vector<Finding>& out);  // knowledge.cpp: knowledge.stale
// After every rule: notes that name another finding's fix, only when that fix is in the
// plan (gfx.override-needed mentions ollama's drop-in only when ollama.env asks for it).
void cross_reference(std::vector<Finding>& out);                          // gfx.cpp

// --- helpers shared by rules (common.cpp) -------------------------------------------

std::vector<int> amd_gpu_indices(const Facts& f);          // every GPU index
// A user name as a word of a printed command: quoted (text::shell_word), or "$USER"
// (expanded where it is typed) when the report names no user.
std::string user_word(const std::string& user);
// Words from the machine joined by sep ("render,video"), the result one shell word.
std::string joined_word(const std::vector<std::string>& parts, std::string_view sep);
std::string gpu_label(const Facts& f, int index);          // "GPU 0 (AMD Radeon 780M, gfx1103)"
// A finding with the catalog's default severity for its id.
Finding make_finding(FindingId id, std::string title, std::string detail);
bool in_container(const Facts& f);
// What the identity probe saw of a device node ("/dev/kfd"), or nullptr.
const DeviceAccess* find_device(const Facts& f, const std::string& path);
// AMD's DKMS driver is installed: its amdgpu is versioned apart from the kernel.
bool dkms_driver(const Facts& f);
// The group a user must be added to before they can open device node d (access.cpp):
// the node exists, is closed to others and is not the user's own, and the user is in its
// group neither per /etc/group nor per NSS. access.kfd asks it, and rocm-install's choice
// of groups (choose_rocm), so both name the same groups.
struct GroupToJoin {
  std::string group;   // its name, else its gid
  bool local = false;  // /etc/group has it; else only the directory service (sssd, LDAP) does
};
std::optional<GroupToJoin> group_to_join(const IdentityFacts& id, const DeviceAccess& d);
// Where the login configuration sets NAME to VALUE for every new session, if it does:
// /etc/environment, or both /etc/profile.d and /etc/environment.d.
std::optional<std::string> login_sets(const Facts& f, const std::string& name, const std::string& value);

// The ROCm whose kernels a GPU will run: the installed one, else (no ROCm, or a version
// amdml cannot read) the newest release amdml knows, which is what current PyTorch
// wheels and ollama builds bundle.
struct Stack {
  const RocmRelease* release = nullptr;  // nullptr only when the knowledge base has no releases
  bool installed = false;
  std::string label;  // "ROCm 6.2.4" or "current ROCm builds (7.2)"
};
Stack ml_stack(const RuleContext& ctx);

// The release rocm-install installs here, or why none fits: the newest release AMD
// ships apt packages of for this distribution whose ML stack has kernels for every GPU
// (natively first, then through the GPU's known override). rocm.* and gfx.override-needed
// ask for the same plan through this one choice.
struct RocmChoice {
  const RocmRelease* release = nullptr;  // runs every GPU natively once installed (nullptr: not so, or unknown)
  const ChannelSpec* channel = nullptr;  // nullptr: the legacy repo.radeon.com stream
  std::optional<RocmInstallParams> params;
  std::string why_none;             // no release: why, and what works instead
  bool no_release_runs = false;     // ... because no release has kernels for a GPU here
  std::vector<std::string> notes;   // the choices made and why
};
RocmChoice choose_rocm(const RuleContext& ctx);  // src/rules/rocm_install.cpp
// AMD's package version ("6.2.4.60204-139~24.04": the release as MMmmpp), not a distribution's.
bool amd_version(const std::string& v);
// Gives fd the rocm-install fix of that choice with its notes (or says plainly why no
// release fits); hand-picked commands give way to it, a PyTorch wheel becomes a note.
void attach_rocm_install(const RuleContext& ctx, Finding& fd);
void attach_rocm_install(const RocmChoice& choice, Finding& fd);  // a choice already made
// What a Python environment lacks: TheRock's rocm wheels its torch loads ROCm from, the
// device package of a GPU among those wheels, or among AMD's torch[device-gfx] packages.
enum class PipNeed { rocm_wheels, rocm_device, torch_device };
// Gives fd the rocm-install fix that pip-installs it into env, with env's own interpreter
// as env's owner, from TheRock's index for the ROCm series env is built on (channels.toml);
// nothing when the knowledge has no index for that series.
void attach_pip_install(const RuleContext& ctx, const PythonEnv& env, PipNeed need, const std::vector<int>& gpus, Finding& fd);

// The HSA_OVERRIDE_GFX_VERSION setting that applies to a GPU: the per-node variable
// for its KFD node if set, else the global one.
struct OverrideSetting {
  std::string var;    // "HSA_OVERRIDE_GFX_VERSION_1"
  std::string value;  // as found in the environment
  OverrideParse parse;
};
std::optional<OverrideSetting> override_for(const Facts& f, const Gpu& g);

// Whether running a GPU of target `from` as target `to` keeps the ISA family and the
// wave size (the knowledge base must know both targets).
bool override_compatible(const Knowledge& kb, const GfxTarget& from, const GfxTarget& to);
// The one judgement of an HSA_OVERRIDE_GFX_VERSION value, wherever it is set (this
// session, a login file, a service unit): the GPUs among `gpus` (indices into
// facts.gpus) that `target` makes run another ISA family's or wave size's code. A GPU
// whose own gfx amdml does not know is not judged.
std::vector<int> crossed_by_override(const RuleContext& ctx, const std::vector<int>& gpus, const GfxTarget& target);

// A GPU no ROCm release runs: its gfx target is marked rocm_never (GCN 1/2, old APUs), or
// the old radeon driver holds it (radeon drives nothing newer than GCN 2). Binding it to
// amdgpu would not bring ROCm; gfx.unsupported points it to Vulkan instead.
bool rocm_never(const Knowledge& kb, const Gpu& g);

// "/sys/class/kfd/kfd/topology/nodes/1/properties" evidence for a GPU's gfx.
Evidence gfx_evidence(const Gpu& g);
// The ROCm version evidence ("/opt/rocm/.info/version" -> "6.2.4", or "absent").
Evidence rocm_evidence(const Facts& f);
// The sysfs directory of a GPU's DRM device ("/sys/class/drm/card0/device").
std::string drm_device_dir(const Gpu& g);
// The name ROCR_VISIBLE_DEVICES accepts for a GPU: "GPU-<unique id>" when known, else
// its index among ROCm's GPUs.
std::string rocr_device_name(const Facts& f, int gpu_index);
// Index of a GPU among the GPUs KFD lists (ROCm's device numbering), or -1.
int rocm_device_index(const Facts& f, int gpu_index);

// Helpers of the ML-stack rules (ollama, torch, llamacpp, ml, vulkan).
namespace ml {

// The value with one layer of surrounding quotes removed, when it has them.
std::optional<std::string> unquote(const std::string& value);
// Go's strconv.ParseBool truthiness, after ollama strips quotes and spaces.
std::optional<bool> go_bool(std::string value);

// Whether a GPU is integrated: the knowledge base's answer when it has one, else
// ollama's own sysfs rule (carve-out <= 4 GiB, GTT >= 8 GiB and >= 4x the carve-out).
std::optional<bool> integrated(const Gpu& g);

// Indices of GPUs whose gfx is known.
std::vector<int> gpus_with_gfx(const Facts& f);

// The driver side is older than release r needs: the running in-tree kernel is below
// its minimum. nullopt when it cannot be judged (no data, or AMD's DKMS driver).
std::optional<std::string> driver_too_old_for(const Facts& f, const RocmRelease& r);

std::string gfx_names(const std::vector<GfxTarget>& v);

// The package-manager line for a list of packages on this OS.
std::string install_command(const Facts& f, const std::vector<std::string>& packages);

}  // namespace ml
}  // namespace amdml::rules
