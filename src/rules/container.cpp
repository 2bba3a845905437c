// Containers, from both sides.
//
// Inside one (the runtime is known): were /dev/kfd and /dev/dri passed in and may the
// device cgroup open them (container.devices), is KFD's topology visible in /sys
// (container.sysfs), does a user namespace leave the nodes' group unmapped
// (container.rootless), and do the process's groups hold the nodes' numeric gid
// (container.gid). Every finding prints the flags for the runtime at hand, because
// the fix is made where the container is started, not inside it.
//
// On a host with docker installed: can this user talk to the daemon, and the
// `docker run` line for a ROCm image matching the host (container.host-docker, info).
#include <algorithm>
#include <set>

#include "base/errno_names.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

bool is_render(const DeviceAccess& d) { return d.path.starts_with("/dev/dri/renderD"); }

bool has_gid(const Identity& p, std::uint32_t gid) {
  if (p.gid == gid) return true;
  if (!p.groups) return false;
  return std::find(p.groups->begin(), p.groups->end(), gid) != p.groups->end();
}

std::string gid_label(const DeviceAccess& d) {
  if (!d.gid) return "gid ?";
  return "gid " + std::to_string(*d.gid) + (d.group ? " (" + *d.group + " in this image)" : " (no name in this image)");
}

std::string errno_label(int e) {
  const char* name = errno_symbol(e);
  return name ? std::string(name) : "errno " + std::to_string(e);
}

// What the numeric --group-add arguments are when the host's gids are not known here:
// evaluated by the shell on the host, where `docker run` is typed.
const char* kHostGroupArgs =
    " --group-add $(getent group render | cut -d: -f3) --group-add $(getent group video | cut -d: -f3)";

// The udev rule ROCm documents as the alternative to group membership: every user may
// open the compute nodes. The one fix that works for every rootless runtime.
const char* kUdevWorldRule =
    "printf 'KERNEL==\"kfd\", MODE=\"0666\"\\nSUBSYSTEM==\"drm\", KERNEL==\"renderD*\", MODE=\"0666\"\\n' | "
    "sudo tee /etc/udev/rules.d/70-amdgpu.rules && sudo udevadm control --reload-rules && sudo udevadm trigger";

std::string seccomp_note() {
  return "--security-opt seccomp=unconfined is what ROCm's container guide adds: Docker's default seccomp profile "
         "refuses the NUMA memory-policy calls (mbind, set_mempolicy) that ROCm uses on multi-socket hosts.";
}

// Inside a container: the nodes are missing, or present but refused by the device cgroup.
void devices_finding(const Facts& f, ContainerKind kind, std::vector<Finding>& out) {
  const char* kname = to_string(kind);
  const DeviceAccess* kfd = find_device(f, "/dev/kfd");
  bool has_kfd = kfd && kfd->exists;
  // With no AMD GPU in /sys (a sandboxed runtime) no render node is attributed to one, so
  // only /dev/kfd can be judged; container.sysfs then says what is wrong.
  bool has_render = f.gpus.empty();
  std::vector<const DeviceAccess*> refused;  // present, but open() said EPERM: the device cgroup
  for (const auto& d : f.identity.devices) {
    if (!d.exists) continue;
    if (is_render(d)) has_render = true;
    if (d.open == OpenCheck::failed && d.open_errno == EPERM && !f.container.rootless) refused.push_back(&d);
  }
  if (has_kfd && has_render && refused.empty()) return;
  bool root = f.identity.process.euid == 0u && !f.container.rootless;
  Finding fd;
  if (!has_kfd || !has_render) {
    std::string what = !has_kfd && !has_render ? "/dev/kfd and /dev/dri" : (!has_kfd ? "/dev/kfd" : "a /dev/dri render node");
    fd = make_finding(FindingId::container_devices, "This " + std::string(kname) + " container was started without " + what,
                      "ROCm needs /dev/kfd and a /dev/dri render node inside the container; a container only has "
                      "device nodes it was started with.");
    if (!has_kfd) fd.evidence.push_back({"/dev/kfd", "absent"});
    if (!has_render) fd.evidence.push_back({"/dev/dri", "no renderD* node"});
  } else {
    fd = make_finding(FindingId::container_devices,
                      "The GPU device nodes are visible, but this " + std::string(kname) + " container may not open them",
                      "open() fails with EPERM: the container's device cgroup does not allow the nodes. That happens "
                      "when /dev is bind-mounted (-v /dev:/dev) instead of passing the nodes with --device.");
    for (const auto* d : refused) fd.evidence.push_back({d->path, "open: EPERM"});
  }
  switch (kind) {
    case ContainerKind::kubernetes:
      fd.commands.push_back("resources: {limits: {amd.com/gpu: 1}}   # with the AMD GPU device plugin on the node");
      fd.notes.push_back("The device plugin injects /dev/kfd and the GPU's /dev/dri nodes; a non-root pod also needs "
                         "securityContext.supplementalGroups with the host's render gid.");
      break;
    case ContainerKind::lxc:
      fd.commands.push_back("lxc.cgroup2.devices.allow: c 226:* rwm");
      fd.commands.push_back("lxc.cgroup2.devices.allow: c <major of /dev/kfd on the host>:0 rwm   # ls -l /dev/kfd");
      fd.commands.push_back("lxc.mount.entry: /dev/dri dev/dri none bind,optional,create=dir");
      fd.commands.push_back("lxc.mount.entry: /dev/kfd dev/kfd none bind,optional,create=file");
      fd.notes.push_back("These go into the container's config on the host (Proxmox: /etc/pve/lxc/<id>.conf); restart "
                         "the container afterwards.");
      break;
    case ContainerKind::podman:
      if (f.container.rootless) {
        fd.commands.push_back("podman run --device=/dev/kfd --device=/dev/dri --group-add keep-groups IMAGE");
        fd.notes.push_back("--group-add keep-groups needs the crun runtime (podman info --format '{{.Host.OCIRuntime.Name}}').");
      } else {
        fd.commands.push_back(std::string("podman run --device=/dev/kfd --device=/dev/dri") + (root ? "" : kHostGroupArgs) +
                              " --security-opt seccomp=unconfined IMAGE");
      }
      break;
    case ContainerKind::docker:
    case ContainerKind::other:
      fd.commands.push_back(std::string("docker run --device=/dev/kfd --device=/dev/dri") + (root ? "" : kHostGroupArgs) +
                            " --security-opt seccomp=unconfined IMAGE");
      fd.notes.push_back(seccomp_note());
      if (!root) fd.notes.push_back("Run the docker line on the host: $(getent ...) turns the host's group names into "
                                    "the numbers the device nodes carry.");
      break;
  }
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void sysfs_finding(const Facts& f, ContainerKind kind, std::vector<Finding>& out) {
  const DeviceAccess* kfd = find_device(f, "/dev/kfd");
  if (!kfd || !kfd->exists || f.kfd.present) return;
  auto fd = make_finding(FindingId::container_sysfs, "/dev/kfd is passed in, but KFD's topology in /sys is not visible",
                         "ROCm finds GPUs by reading /sys/class/kfd/kfd/topology; this " + std::string(to_string(kind)) +
                             " container's /sys does not show it, so no ROCm program sees a GPU although the device "
                             "node is there. Docker and podman mount the host's sysfs by default; sandboxing runtimes "
                             "(gVisor's runsc) and a replaced /sys hide it.");
  fd.evidence.push_back({"/dev/kfd", "present"});
  fd.evidence.push_back({"/sys/class/kfd", f.container.sys_kfd_visible ? "present, without kfd/topology" : "absent"});
  if (kind == ContainerKind::docker || kind == ContainerKind::podman || kind == ContainerKind::other) {
    std::string rt = kind == ContainerKind::podman ? "podman" : "docker";
    fd.commands.push_back(rt + " info --format '{{.DefaultRuntime}}'   # on the host; runsc (gVisor) cannot pass KFD through");
    fd.commands.push_back(rt + " run --runtime=runc --device=/dev/kfd --device=/dev/dri -v /sys:/sys:ro IMAGE");
  } else {
    fd.commands.push_back("mount the host's /sys into the container (read-only is enough)");
  }
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

// Usable means: the process can open it, by the live open() result when there is one,
// else by mode, owner and groups.
bool usable(const Facts& f, const DeviceAccess& d) {
  if (d.open == OpenCheck::ok) return true;
  if (d.open == OpenCheck::failed) return false;
  if (d.world_accessible || d.owner_is_user) return true;
  const auto& p = f.identity.process;
  if (p.euid == 0u && !f.container.rootless) return true;  // real root
  return d.gid && has_gid(p, *d.gid);
}

void rootless_finding(const Facts& f, ContainerKind kind, std::vector<Finding>& out) {
  if (!f.container.rootless) return;
  std::vector<Evidence> ev;
  for (const auto& d : f.identity.devices) {
    if (!d.exists || !d.gid || *d.gid != kOverflowGid || usable(f, d)) continue;
    if (d.path != "/dev/kfd" && !is_render(d)) continue;
    std::string v = "gid " + std::to_string(kOverflowGid) + " (the host's group is not mapped into this namespace)";
    if (d.open == OpenCheck::failed) v += ", open: " + errno_label(d.open_errno);
    ev.push_back({d.path, v});
  }
  if (ev.empty()) return;
  auto fd = make_finding(FindingId::container_rootless,
                         "A rootless " + std::string(to_string(kind)) + " container: the GPU nodes' group is not mapped in",
                         "In a user namespace the host's render and video gids have no number, so the nodes show "
                         "group 65534 (nogroup) and --group-add with a number cannot grant them; root inside the "
                         "container is an ordinary user on the host and is refused as well.");
  fd.evidence = ev;
  if (f.container.rootless_why) fd.evidence.push_back({"user namespace", *f.container.rootless_why});
  if (kind == ContainerKind::podman) {
    fd.commands.push_back("podman run --device=/dev/kfd --device=/dev/dri --group-add keep-groups IMAGE");
    fd.notes.push_back("keep-groups hands the host user's own groups (render, video) to the container; it needs the "
                       "crun runtime (podman info --format '{{.Host.OCIRuntime.Name}}'). The host user must be in "
                       "render and video.");
  } else if (kind == ContainerKind::lxc) {
    fd.commands.push_back("lxc.idmap: g <render gid> <render gid> 1   # with root:<render gid>:1 in /etc/subgid on the host");
    fd.notes.push_back("An unprivileged LXC maps only its subgid range; map the host's render gid through, or use the "
                       "udev rule below.");
  } else {
    fd.notes.push_back("Rootless docker cannot keep the host user's groups; use rootful docker with --group-add <gid>, "
                       "or let every user open the nodes with the udev rule below.");
  }
  fd.commands.push_back(std::string(kUdevWorldRule) + "   # on the host: nodes open to every user");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void gid_finding(const Facts& f, ContainerKind kind, std::vector<Finding>& out) {
  const auto& p = f.identity.process;
  if (p.euid == 0u && !f.container.rootless) return;  // root needs no group
  std::vector<std::uint32_t> bad;
  std::vector<Evidence> ev;
  for (const auto& d : f.identity.devices) {
    if (!d.exists || !d.gid || usable(f, d)) continue;
    if (f.container.rootless && *d.gid == kOverflowGid) continue;  // container.rootless says it
    if (d.gid && has_gid(p, *d.gid)) continue;                    // in the group, refused for another reason
    if (std::find(bad.begin(), bad.end(), *d.gid) == bad.end()) bad.push_back(*d.gid);
    std::string v = gid_label(d);
    if (d.open == OpenCheck::failed) v += ", open: " + errno_label(d.open_errno);
    ev.push_back({d.path, v});
  }
  if (bad.empty()) return;
  auto fd = make_finding(FindingId::container_gid, "The container's process is not in the group that owns the GPU devices",
                         "Device nodes keep the host's numeric gid, and group names inside the image may stand for "
                         "other numbers: --group-add render resolves render in the image, not on the host. Add the "
                         "numbers the nodes carry.");
  fd.evidence = ev;
  std::string groups;
  for (auto g : p.groups.value_or(std::vector<std::uint32_t>{})) groups += (groups.empty() ? "" : ",") + std::to_string(g);
  fd.evidence.push_back({"process groups", groups.empty() ? "none" : groups});
  std::string add;
  for (auto g : bad) add += " --group-add " + std::to_string(g);
  switch (kind) {
    case ContainerKind::kubernetes: {
      std::string ids;
      for (auto g : bad) ids += (ids.empty() ? "" : ", ") + std::to_string(g);
      fd.commands.push_back("securityContext: {supplementalGroups: [" + ids + "]}");
      break;
    }
    case ContainerKind::podman:
      fd.commands.push_back("podman run --device=/dev/kfd --device=/dev/dri" + add + " IMAGE");
      if (f.container.rootless)
        fd.add_command("podman run --device=/dev/kfd --device=/dev/dri --group-add keep-groups IMAGE   # rootless, crun",
                       CommandRole::alt);
      break;
    case ContainerKind::lxc:
      fd.commands.push_back("groupadd -g " + std::to_string(bad.front()) + " hostrender && usermod -aG hostrender " +
                            user_word(f.identity.user) + "   # inside the container");
      break;
    case ContainerKind::docker:
    case ContainerKind::other:
      fd.commands.push_back("docker run --device=/dev/kfd --device=/dev/dri" + add + " IMAGE");
      break;
  }
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

// The rocm/dev-ubuntu image whose tag matches the host's AMD-packaged ROCm; the latest
// one when the host has none (or only a distribution's own build, which AMD does not tag).
std::string rocm_image(const Facts& f) {
  const auto& r = f.rocm;
  bool amd = r.source == RocmSource::opt_rocm || r.source == RocmSource::rocm_path;
  if (amd && r.version && r.version->major >= 6 && (r.version->major > 6 || r.version->minor >= 2))
    return "rocm/dev-ubuntu-24.04:" + r.version->str();
  if (amd && r.version && r.version->major >= 5) return "rocm/dev-ubuntu-22.04:" + r.version->str();
  return "rocm/dev-ubuntu-24.04:latest";
}

void host_docker_finding(const Facts& f, std::vector<Finding>& out) {
  const auto& d = f.container.docker;
  if (!d.binary) return;
  const auto& id = f.identity;
  std::string user = id.user.empty() ? "$USER" : id.user;
  std::string group = d.socket_group.value_or(d.socket_gid ? "gid " + std::to_string(*d.socket_gid) : "docker");
  // The group as usermod and newgrp take it: its name, else its number.
  const std::string group_arg =
      text::shell_word(d.socket_group.value_or(d.socket_gid ? std::to_string(*d.socket_gid) : "docker"));
  std::string verdict;
  std::vector<std::string> commands;
  std::vector<std::string> notes;
  bool behind_sudo = id.process.sudo_user && id.process.euid == 0u;
  if (id.root) {
    verdict = "root can use it";
  } else if (!d.socket_exists) {
    verdict = "whether " + user + " can use it is unknown (the daemon socket was not recorded)";
  } else if (!*d.socket_exists) {
    verdict = "its daemon is not running: " + d.socket_path + " does not exist";
    commands.push_back("sudo systemctl enable --now docker");
    if (d.docker_host) notes.push_back("DOCKER_HOST=" + *d.docker_host + " points the CLI elsewhere (rootless docker or a remote daemon).");
  } else if (d.socket_mode && (*d.socket_mode & 06) == 06) {
    verdict = user + " can use it (the socket is open to every user)";
  } else if (d.socket_uid && id.user_uid && *d.socket_uid == *id.user_uid) {
    verdict = user + " can use it (owns the socket)";
  } else if (d.socket_gid && !behind_sudo && has_gid(id.process, *d.socket_gid)) {
    verdict = user + " can use it (group " + group + ")";
  } else if (d.socket_gid && std::binary_search(id.user_groups_etc.begin(), id.user_groups_etc.end(), *d.socket_gid)) {
    verdict = user + " is in group " + group + " per /etc/group, but this session is not yet: log out and in";
    commands.push_back("newgrp " + group_arg + "   # this shell only");
  } else {
    verdict = user + " cannot use it without sudo (not in group " + group + ")";
    commands.push_back("sudo usermod -aG " + group_arg + " " + user_word(id.user) + "   # then log out and in");
    notes.push_back("Membership in " + group + " is equivalent to root on this machine.");
  }
  // The host's own gids for the nodes, numerically: the image's names mean other numbers.
  std::set<std::uint32_t> gids;
  bool any_node = false;
  for (const auto& n : id.devices) {
    if (!n.exists) continue;
    any_node = true;
    if (n.gid && !n.world_accessible) gids.insert(*n.gid);
  }
  std::string add;
  if (any_node)
    for (auto g : gids) add += " --group-add " + std::to_string(g);
  else
    add = kHostGroupArgs;
  std::string flags = "--device=/dev/kfd --device=/dev/dri" + add + " --security-opt seccomp=unconfined";
  std::string image = rocm_image(f);
  auto fd = make_finding(FindingId::container_host_docker, "Docker is installed; " + verdict,
                         "ROCm containers use this host's amdgpu driver through /dev/kfd and /dev/dri; the lines "
                         "below start one with the GPU passed in and the devices' numeric groups added.");
  fd.evidence.push_back({"docker", *d.binary});
  if (d.socket_exists && *d.socket_exists) {
    const std::string mode = d.socket_mode ? text::octal_mode(*d.socket_mode) : "?";
    fd.evidence.push_back({d.socket_path, "mode " + mode + ", group " + group});
  }
  for (auto& c : commands) fd.commands.push_back(std::move(c));
  fd.commands.push_back("docker run -it --rm " + flags + " " + text::shell_word(image));
  fd.add_command("docker run -it --rm " + flags + " --ipc=host --shm-size 8G rocm/pytorch:latest", CommandRole::alt);
  if (image.ends_with(":latest"))
    notes.push_back("No AMD-packaged ROCm on this host to match, so the image is the latest; pick a tag at "
                    "https://hub.docker.com/r/rocm/dev-ubuntu-24.04/tags.");
  else
    notes.push_back("The tag follows the host's ROCm " + f.rocm.version->str() + "; the container brings its own ROCm "
                    "user space, only the kernel driver is shared.");
  fd.notes = std::move(notes);
  out.push_back(std::move(fd));
}

}  // namespace

void container_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!in_container(f)) {
    host_docker_finding(f, out);
    return;
  }
  if (!f.identity.devices_known) return;
  ContainerKind kind = *f.container.kind;
  std::size_t before = out.size();
  devices_finding(f, kind, out);
  if (out.size() != before) return;  // nothing else matters until the nodes are in
  sysfs_finding(f, kind, out);
  rootless_finding(f, kind, out);
  gid_finding(f, kind, out);
}

}  // namespace amdml::rules
