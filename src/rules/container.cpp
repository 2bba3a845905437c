// container.devices and container.gid: inside a container, were /dev/kfd and /dev/dri
// passed in, and can the process use them.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void container(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!in_container(f) || !f.identity.devices_known) return;
  const char* kind = to_string(*f.container.kind);
  bool kfd = false, render = false;
  for (const auto& d : f.identity.devices) {
    if (!d.exists) continue;
    if (d.path == "/dev/kfd") kfd = true;
    else if (d.path.rfind("/dev/dri/renderD", 0) == 0) render = true;
  }
  bool podman = *f.container.kind == ContainerKind::podman;
  bool k8s = *f.container.kind == ContainerKind::kubernetes;
  if (!kfd || !render) {
    std::string what = !kfd && !render ? "/dev/kfd and /dev/dri" : (!kfd ? "/dev/kfd" : "/dev/dri render nodes");
    auto fd = make_finding("container.devices", "This " + std::string(kind) + " container has no " + what,
                           "ROCm needs /dev/kfd and a /dev/dri render node inside the container; they are only "
                           "there when the container is started with them.");
    if (!kfd) fd.evidence.push_back({"/dev/kfd", "absent"});
    if (!render) fd.evidence.push_back({"/dev/dri", "no renderD* node"});
    if (k8s) {
      fd.commands.push_back("request the GPU from the AMD device plugin: resources.limits: amd.com/gpu: 1");
    } else {
      std::string run = podman ? "podman run" : "docker run";
      fd.commands.push_back(run + " --device=/dev/kfd --device=/dev/dri" +
                            std::string(podman ? " --group-add keep-groups" : " --group-add video --group-add render") +
                            " --security-opt seccomp=unconfined IMAGE");
    }
    out.push_back(std::move(fd));
    return;
  }
  // Devices present: can a non-root process use them?
  const auto& id = f.identity;
  if (id.process.euid == 0u) return;
  std::vector<std::uint32_t> bad;
  std::vector<Evidence> ev;
  for (const auto& d : id.devices) {
    if (!d.exists || !d.gid || d.world_accessible || d.owner_is_user || d.open == OpenCheck::ok) continue;
    bool has = false;
    if (id.process.groups) {
      const auto& g = *id.process.groups;
      has = std::find(g.begin(), g.end(), *d.gid) != g.end();
    }
    if (id.process.gid == *d.gid) has = true;
    if (has) continue;
    if (std::find(bad.begin(), bad.end(), *d.gid) == bad.end()) bad.push_back(*d.gid);
    ev.push_back({d.path, "gid " + std::to_string(*d.gid) + (d.group ? " (" + *d.group + " in the image)" : " (no name in the image)")});
  }
  if (bad.empty()) return;
  auto fd = make_finding("container.gid", "The container's user is not in the group that owns the GPU devices",
                         "Device nodes keep the host's numeric gid; group names inside the image may map to other "
                         "numbers, so --group-add render can add the wrong gid. Add the numeric gid.");
  fd.evidence = ev;
  std::string groups;
  for (auto g : bad) groups += " --group-add " + std::to_string(g);
  if (k8s) {
    std::string ids;
    for (auto g : bad) ids += (ids.empty() ? "" : ", ") + std::to_string(g);
    fd.commands.push_back("securityContext: supplementalGroups: [" + ids + "]");
  } else if (podman) {
    fd.commands.push_back("podman run --device=/dev/kfd --device=/dev/dri --group-add keep-groups IMAGE   # crun; or" + groups);
  } else {
    fd.commands.push_back("docker run --device=/dev/kfd --device=/dev/dri" + groups + " IMAGE");
  }
  out.push_back(std::move(fd));
}

}  // namespace amdml::rules
