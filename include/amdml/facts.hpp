// Facts: everything the probes learned about a host, as typed values.
//
// Probes fill it, rules read it, renderers print it. A value that could not be
// collected is an empty optional plus, where the reason matters, a ProbeError --
// never an invented default. Areas owned by later layers (runtime, ML stack) live in
// their own headers and are members here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amdml/facts_boot.hpp"
#include "amdml/facts_deep.hpp"
#include "amdml/facts_ml.hpp"
#include "amdml/facts_runtime.hpp"
#include "amdml/gfx.hpp"
#include "amdml/host.hpp"
#include "amdml/units.hpp"
#include "amdml/version.hpp"

namespace amdml {

struct ProbeError {
  std::string probe;    // "kfd", "drm", ...
  std::string path;     // what it tried to read ("" when not a file)
  std::string message;  // why it could not
};

// A relevant variable that /etc/environment, /etc/environment.d or /etc/profile.d sets
// for new login sessions (the running process may not have it yet).
struct LoginEnv {
  std::string name;
  std::string value;
  std::string where;  // "/etc/profile.d/amdml-gpu.sh:3"
};

// An installed firmware package that carries amdgpu's firmware (linux-firmware,
// Arch's linux-firmware-amdgpu, Debian's firmware-amd-graphics), as its package
// database has it. Some snapshots break ROCm on a GPU family ([[firmware_bad]]).
struct FirmwarePackage {
  std::string name;     // "linux-firmware-amdgpu"
  std::string version;  // "20251125-1", "20240318.git3b128b60-0ubuntu2.13"
  std::string from;     // "/var/lib/dpkg/status", "/var/lib/pacman/local/linux-firmware-amdgpu-20251125-1/desc"
  std::string manager;  // "dpkg" | "pacman": how to move it to another version
};

struct OsFacts {
  std::optional<std::string> id;          // os-release ID ("ubuntu")
  std::optional<std::string> version_id;  // "24.04"
  std::optional<std::string> pretty_name;
  std::vector<std::string> id_like;
  std::optional<std::string> kernel_release;  // "6.8.0-45-generic"
  std::optional<KernelVersion> kernel;        // parsed leading x.y.z
  std::optional<std::string> machine;         // "x86_64"
  std::optional<std::string> cmdline;         // /proc/cmdline, trimmed
  bool wsl = false;
  bool dxg = false;  // /dev/dxg exists: WSL2 reaches the GPU through it (no PCI device, no KFD)
  // The command line the boot loader's configuration gives the next boot (kernelstub's
  // user.kernel_options, GRUB's GRUB_CMDLINE_LINUX + _DEFAULT, or /etc/kernel/cmdline,
  // the first that exists) and that file; nullopt when none is readable.
  std::optional<std::string> boot_cmdline;
  std::string boot_cmdline_file;
  std::vector<FirmwarePackage> firmware_packages;  // probes/firmware.cpp
};

struct MemoryFacts {
  std::optional<Bytes> total;      // MemTotal
  std::optional<Bytes> available;  // MemAvailable
};

struct PciGpu {
  std::string slot;  // "0000:c4:00.0"
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  std::optional<std::uint8_t> revision;
  std::uint32_t class_code = 0;                 // 0x030000 VGA, 0x038000 display
  std::optional<std::uint16_t> subsystem_vendor;
  std::optional<std::uint16_t> subsystem_device;
  std::optional<std::string> driver;            // bound driver name ("amdgpu", "vfio-pci")
};

enum class TtmModule { none, ttm, amdttm };
const char* to_string(TtmModule m);

struct TtmModuleState {
  bool loaded = false;  // /sys/module/<name> exists
  std::optional<Pages> pages_limit;
  std::optional<Pages> page_pool_size;
  bool holds_amdgpu = false;  // /sys/module/<name>/holders/amdgpu exists
};

struct DriverFacts {
  bool amdgpu_loaded = false;                // /sys/module/amdgpu exists
  std::optional<std::string> initstate;      // "live", "coming", "going"
  std::optional<std::string> dkms_version;   // /sys/module/amdgpu/version (AMD's DKMS driver)
  TtmModuleState ttm;                        // /sys/module/ttm
  TtmModuleState amdttm;                     // /sys/module/amdttm
  TtmModule ttm_in_use = TtmModule::none;    // the one amdgpu actually uses
  std::optional<std::int64_t> gttsize_param_mib;    // /sys/module/amdgpu/parameters/gttsize (-1 = auto)
  std::optional<std::int64_t> gttsize_cmdline_mib;  // amdgpu.gttsize= on the kernel command line
  std::map<std::string, std::string> cmdline_options;  // "ttm.pages_limit" -> "123", amdgpu/ttm/amdttm only
};

// One key/value file under etc/modprobe.d (and lib/modprobe.d): what options it sets.
struct ModprobeOption {
  std::string file;    // "/etc/modprobe.d/ttm.conf"
  int line = 0;        // 1-based
  std::string module;  // "ttm"
  std::string key;     // "pages_limit"
  std::string value;   // "12582912"
};

struct ModprobeFacts {
  std::vector<ModprobeOption> options;  // in the order modprobe reads them
  std::vector<ProbeError> unparsable;   // lines that are not modprobe syntax (file, line, text)
  std::vector<ModprobeOption> unread;   // options in files modprobe never reads (the name does not end in .conf)
  // "blacklist MODULE" / "install MODULE /bin/false" lines (key: the directive, value: the line).
  std::vector<ModprobeOption> blocks;
};

struct KfdMemBank {
  std::uint32_t heap_type = 0;  // 0 system, 1 FB public, 2 FB private
  Bytes size;
};

struct KfdNode {
  int index = 0;  // nodes/<index>
  bool cpu = false;
  std::uint64_t gpu_id = 0;
  std::string name;  // asic name ("navi21", "ip_discovery")
  std::optional<std::uint32_t> gfx_target_version;
  std::optional<GfxTarget> gfx;
  std::uint32_t simd_count = 0;
  std::uint32_t simd_per_cu = 0;
  std::optional<std::uint32_t> compute_units;
  std::uint32_t wave_front_size = 0;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t location_id = 0;
  std::optional<std::uint32_t> domain;
  std::uint32_t drm_render_minor = 0;
  std::optional<std::uint64_t> unique_id;
  std::uint32_t num_xcc = 1;
  std::uint32_t cpu_cores_count = 0;
  std::vector<KfdMemBank> mem_banks;
  std::optional<Bytes> memory;  // sum of the GPU's memory banks
  std::string pci_slot() const;  // "0000:c4:00.0" from domain + location_id
};

struct KfdFacts {
  bool present = false;  // sys/class/kfd/kfd/topology exists
  std::vector<KfdNode> nodes;
  int cpu_nodes() const;
};

struct DrmCard {
  std::string card;        // "card0"
  std::string pci_slot;    // from the device symlink / uevent
  std::optional<std::uint16_t> vendor;
  std::optional<std::uint16_t> device;
  std::optional<std::uint8_t> revision;
  std::optional<std::string> driver;  // from device/uevent DRIVER=
  std::optional<Bytes> vram_total;
  std::optional<Bytes> vis_vram_total;
  std::optional<Bytes> gtt_total;
  std::optional<std::string> unique_id;
  std::optional<std::string> product_name;
  std::optional<std::string> render_node;  // "/dev/dri/renderD128"
  std::optional<std::uint32_t> render_minor;
};

struct DrmFacts {
  std::vector<DrmCard> cards;  // AMD cards only, in card order
};

struct GroupEntry {
  std::string name;
  std::uint32_t gid = 0;
  std::vector<std::string> members;
};

struct PasswdEntry {
  std::string name;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string home;
  std::string shell;
};

// Who owns a device node and whether this user can use it, by every layer.
struct DeviceAccess {
  std::string path;
  bool exists = false;
  std::optional<std::uint32_t> mode;
  std::optional<std::uint32_t> gid;
  std::optional<std::string> group;     // name of gid per /etc/group
  bool world_accessible = false;        // mode grants rw to others
  bool owner_is_user = false;
  std::optional<bool> in_etc_group;     // the user is a member of gid per /etc/group (or primary)
  std::optional<bool> in_session;       // the running process has gid
  OpenCheck open = OpenCheck::not_checked;
  std::optional<bool> in_nss;           // the user is in gid by NSS (sssd, LDAP, files); nullopt: unknown
  int open_errno = 0;
};

struct IdentityFacts {
  Identity process;
  std::string user;  // the user the report is about: SUDO_USER behind sudo, else the process user
  std::optional<std::uint32_t> user_uid;
  std::optional<std::uint32_t> user_gid;
  bool root = false;  // euid 0 and not behind sudo
  std::vector<GroupEntry> groups;    // /etc/group
  std::vector<PasswdEntry> passwd;   // /etc/passwd
  std::vector<std::uint32_t> user_groups_etc;  // the user's gids per /etc/group (+ primary)
  std::vector<DeviceAccess> devices;           // /dev/kfd then render nodes
  bool devices_known = false;                  // the host could list device nodes
  // The user's groups by NSS (getgrouplist: /etc/group and sssd, LDAP, ...), with the
  // names NSS gives; nullopt when unknown. What a new login session gets.
  std::optional<std::vector<GroupEntry>> nss_groups;
  // The group's name per /etc/group, else per NSS.
  std::optional<std::string> group_name(std::uint32_t gid) const;
};

enum class RocmSource { none, rocm_path, opt_rocm, distro };
const char* to_string(RocmSource s);

// How a ROCm came onto the machine, each told by its own files.
enum class RocmChannel {
  legacy,    // /opt/rocm-X.Y.Z: AMD's packages up to 7.2.x (apt/dnf, amdgpu-install, runfile)
  core_sdk,  // /opt/rocm/core-X.Y: TheRock's native packages (7.14, 10.x) or its runfile
  deb,       // the distribution's packages under /usr, by dpkg (Debian, Ubuntu)
  rpm,       // the distribution's packages under /usr/lib64 (Fedora)
  pacman,    // the distribution's packages under /usr, by the pacman database (Arch)
  pip,       // TheRock's wheels (_rocm_sdk_core) in a Python environment
  tarball,   // a TheRock tarball unpacked somewhere (share/therock/dist_info.json)
};
const char* to_string(RocmChannel c);

// One installed ROCm: where, which release, and the gfx targets it carries device code
// for -- each read from that install's own files.
struct RocmInstall {
  RocmChannel channel = RocmChannel::legacy;
  std::string path;                        // "/opt/rocm-6.2.4", ".../site-packages/_rocm_sdk_core"
  std::optional<Version> version;
  std::string version_text;                // as written where it was read ("7.14.1", "6.4.1-1")
  std::string version_from;                // "/opt/rocm/core-7.14/.info/version", "dpkg libhsa-runtime64-1"
  std::vector<GfxTarget> targets;          // empty: not known from files
  std::string targets_from;                // "share/therock/dist_info.json", "rocm_sdk_device_gfx*.dist-info", ...
  std::vector<std::string> device_packages;  // per-target packages installed ("rocm-sdk-device-gfx1151")
  std::optional<std::string> python_env;   // the environment's prefix, for pip
};

struct RocmFacts {
  RocmSource source = RocmSource::none;
  std::optional<std::string> path;              // "/opt/rocm" or "/usr"
  std::optional<std::string> resolved_path;     // "/opt/rocm-6.2.4"
  std::optional<std::string> version_text;      // raw .info/version
  std::optional<Version> version;               // parsed X.Y.Z
  std::optional<std::string> hsa_library;       // path of libhsa-runtime64.so.1 found on disk
  std::vector<std::string> installed;           // every /opt/rocm-X.Y.Z seen
  // Installed dpkg packages of a ROCm (AMD's or the distribution's), name -> version,
  // from /var/lib/dpkg/status; empty without dpkg.
  std::map<std::string, std::string> packages;
  // /var/lib/dpkg/status was read: packages is every ROCm package installed, so a
  // release directory none of them belongs to came from no package.
  bool dpkg_status = false;
  // Every ROCm found, by channel: the release directories, the Core SDK's versions, the
  // distribution's packages, TheRock's wheels in each Python environment and unpacked
  // tarballs -- side by side when there are several.
  std::vector<RocmInstall> installs;
};

// The docker CLI and daemon socket on a host (collected outside containers only).
struct DockerHostFacts {
  std::optional<std::string> binary;          // "/usr/bin/docker" when the CLI is installed
  std::string socket_path = "/var/run/docker.sock";
  std::optional<bool> socket_exists;          // nullopt: not known (rooted host with nothing recorded)
  std::optional<std::uint32_t> socket_mode;   // permission bits
  std::optional<std::uint32_t> socket_uid;
  std::optional<std::uint32_t> socket_gid;
  std::optional<std::string> socket_group;    // name of socket_gid per /etc/group
  std::optional<std::string> docker_host;     // DOCKER_HOST (rootless docker or a remote daemon)
};

struct ContainerFacts {
  std::optional<ContainerKind> kind;
  bool rootless = false;                    // a rootless runtime or a user namespace (inside only)
  std::optional<std::string> rootless_why;  // the evidence: "/run/.containerenv rootless=1", a uid_map line
  std::optional<bool> user_namespace;       // /proc/self/uid_map is not the identity map (nullopt: unreadable)
  bool sys_kfd_visible = false;             // /sys/class/kfd visible inside
  DockerHostFacts docker;                   // host side (kind empty)
};

// The gid the kernel shows for a group that has no mapping in this user namespace
// (/proc/sys/kernel/overflowgid, 65534 everywhere amdml has seen).
inline constexpr std::uint32_t kOverflowGid = 65534;

// A GPU as the report shows it: the join of PCI, DRM and KFD views.
struct Gpu {
  std::optional<int> kfd_node;        // KFD node index (CPU nodes count)
  std::optional<GfxTarget> gfx;       // the hardware's own target, never the override
  std::optional<std::uint32_t> gfx_target_version;
  std::optional<std::uint16_t> vendor_id;
  std::optional<std::uint16_t> device_id;
  std::optional<std::uint8_t> revision;
  std::optional<std::string> pci_slot;
  std::optional<std::string> marketing_name;
  std::optional<bool> apu;
  std::optional<std::uint32_t> compute_units;
  std::optional<Bytes> vram;              // mem_info_vram_total (carve-out on an APU)
  std::optional<Bytes> vis_vram;
  std::optional<Bytes> gtt;               // mem_info_gtt_total
  std::optional<Bytes> kfd_memory;        // KFD memory banks
  std::optional<std::string> render_node; // "/dev/dri/renderD128"
  std::optional<std::string> card;        // "card0"
  std::optional<std::string> driver;      // bound PCI driver
  std::optional<std::uint32_t> wave_size;
  std::optional<std::string> unique_id;
  std::string pci_id() const;             // "1002:15bf" or ""
};

// The knowledge the diagnosis used (recipes/knowledge/meta.toml, built in, installed by
// `amdml update`, or --recipes DIR) and the day it ran: `knowledge.stale` compares them.
struct KnowledgeFacts {
  std::string date;    // "YYYY-MM-DD", "" when the knowledge has no meta.toml
  int format = 0;
  std::string source;  // "built-in", "installed" or "recipes"
  std::optional<std::string> today;  // "YYYY-MM-DD": the clock live, amdml-host.json's "time" under --root
};

struct Facts {
  std::string amdml_version;
  KnowledgeFacts knowledge;
  std::string root;  // "/" or the --root dir
  OsFacts os;
  MemoryFacts memory;
  std::vector<PciGpu> pci;  // AMD display-class devices, slot order
  DriverFacts driver;
  ModprobeFacts modprobe;
  KfdFacts kfd;
  DrmFacts drm;
  IdentityFacts identity;
  RocmFacts rocm;
  ContainerFacts container;
  std::map<std::string, std::string> env;  // relevant environment variables only
  std::vector<LoginEnv> login_env;         // relevant variables new login sessions get
  std::vector<Gpu> gpus;                   // the joined view, report order
  RuntimeFacts runtime;                    // HSA + libdrm (facts_runtime.hpp)
  MlFacts ml;                              // ollama, PyTorch, llama.cpp (facts_ml.hpp)
  KernelLogFacts kernel_log;               // this boot's GPU lines (facts_boot.hpp)
  BootFacts boot;                          // Secure Boot, lockdown, DKMS, blacklists
  OllamaJournalFacts ollama_journal;       // ollama's last start, from its journal
  DeepFacts deep;                          // --deep: what running on the GPU proved (facts_deep.hpp)
  std::vector<ProbeError> errors;

  void error(std::string probe, std::string path, std::string message) {
    errors.push_back({std::move(probe), std::move(path), std::move(message)});
  }
};

}  // namespace amdml
