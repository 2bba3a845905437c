// runtime.*: did the HSA runtime load, initialise and
// list every GPU the kernel has, and if not, which layer lost it and why. The causes of
// an hsa_init failure are read off the other layers' facts (driver, /dev/kfd, render
// nodes, HSA_OVERRIDE_GFX_VERSION), because the runtime itself reports almost every
// failure as the same HSA_STATUS_ERROR_OUT_OF_RESOURCES.
#include <cerrno>
#include <cstring>

#include "base/errno_names.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {
namespace {

std::string errno_label(int e) {
  const char* name = errno_symbol(e);
  std::string text = std::strerror(e);
  return name ? std::string(name) + " (" + text + ")" : text;
}

// HSA_OVERRIDE_GFX_VERSION and its per-node forms, as set for the report's process.
std::vector<std::pair<std::string, std::string>> overrides(const Facts& f) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : f.env)
    if (k.starts_with("HSA_OVERRIDE_GFX_VERSION")) out.emplace_back(k, v);
  return out;
}

void add_tried(Finding& fd, const HsaFacts& h) {
  for (const auto& a : h.attempts) fd.evidence.push_back({a.path, a.error.empty() ? "loaded" : a.error});
}

std::string status_line(const HsaFacts& h) {
  std::string s = h.failed_call.value_or("hsa_init") + " returned ";
  if (h.status_name) s += *h.status_name;
  else if (h.status_code) s += "status " + std::to_string(*h.status_code);
  else if (h.status_text) s += *h.status_text;
  else s += "an error";
  return s;
}

// Why hsa_init failed, from what the other layers saw. Appends to detail, evidence
// and commands; the first cause that fits wins, in the order the runtime would hit them.
void explain_init_failure(const Facts& f, Finding& fd) {
  const auto& h = f.runtime.hsa;
  const DeviceAccess* kfd = find_device(f, "/dev/kfd");
  bool kfd_absent = f.identity.devices_known ? (!kfd || !kfd->exists) : !f.kfd.present;
  std::string cause;
  if (h.failed_call && *h.failed_call == "dlsym") {
    cause = "The library that loaded is not a usable HSA runtime.";
  } else if (kfd_absent && !f.driver.amdgpu_loaded) {
    cause = "The amdgpu kernel driver is not loaded, so there is no /dev/kfd for the runtime to open "
            "(rocminfo says \"ROCk module is NOT loaded\").";
    fd.evidence.push_back({"/sys/module/amdgpu", "absent"});
    fd.evidence.push_back({"/dev/kfd", "absent"});
    if (!f.gpus.empty()) fd.commands.push_back("sudo modprobe amdgpu && sudo dmesg | grep -i -E 'amdgpu|kfd'");
  } else if (kfd_absent && in_container(f)) {
    cause = "/dev/kfd was not passed into this container, and the runtime reports that as running out of resources.";
    fd.evidence.push_back({"/dev/kfd", "absent inside the container"});
    fd.commands.push_back("docker run --device=/dev/kfd --device=/dev/dri ...   (podman: the same --device flags)");
  } else if (kfd_absent) {
    cause = "/dev/kfd does not exist: the kernel has no KFD for this GPU (built without CONFIG_HSA_AMD, or KFD did "
            "not initialise for this ASIC).";
    fd.evidence.push_back({"/dev/kfd", "absent"});
    fd.commands.push_back("sudo dmesg | grep -i kfd");
  } else if (kfd && kfd->open == OpenCheck::failed) {
    int e = kfd->open_errno;
    fd.evidence.push_back({"/dev/kfd", "open(O_RDWR): " + errno_label(e)});
    if (e == EACCES || (e == EPERM && !in_container(f))) {
      cause = "This user cannot open /dev/kfd (rocminfo: \"Unable to open /dev/kfd read-write: Permission denied\"); "
              "see access.kfd for the group to join.";
    } else if (e == EPERM) {
      cause = "The container's device cgroup does not allow /dev/kfd; start it with --device=/dev/kfd.";
    } else if (e == EINVAL) {
      cause = "The kernel's KFD refused the open with EINVAL although the permissions allow it; this has been "
              "reported in LXC and Docker containers. Check the host's `dmesg | grep kfd` and try the same command "
              "on the host.";
    } else if (e == ENOMEM) {
      cause = "KFD answers the open with ENOMEM, which is what it does for a GPU it does not support for compute "
              "(dmesg: \"... not supported in kfd\"), or when /dev is mounted noexec.";
      fd.commands.push_back("sudo dmesg | grep kfd");
    } else if (e == EFAULT) {
      cause = "KFD answers the open with EFAULT, seen on old kernels with early APUs; a newer kernel is the fix.";
    } else {
      cause = "/dev/kfd cannot be opened: " + errno_label(e) + ".";
    }
  }
  if (cause.empty()) {
    // /dev/kfd opens: a render node the runtime needs may not.
    for (const auto& d : f.identity.devices) {
      if (!d.path.starts_with("/dev/dri/renderD") || d.open != OpenCheck::failed || d.open_errno != EACCES) continue;
      cause = "This user can open /dev/kfd but not " + d.path + "; the runtime fails on a render node it may not "
              "open (see access.kfd).";
      fd.evidence.push_back({d.path, "open(O_RDWR): " + errno_label(d.open_errno)});
      break;
    }
  }
  if (cause.empty()) {
    for (const auto& [k, v] : overrides(f)) {
      if (parse_gfx_override(v)) continue;  // libhsakmt would accept it (amdml/gfx.hpp)
      cause = k + "=" + v + " is not major.minor.stepping in decimal; libhsakmt rejects it and the runtime does not "
              "start at all.";
      fd.evidence.push_back({"env " + k, v});
      fd.commands.push_back("unset " + text::shell_word(k) + "   # or set it to a valid value such as 11.0.0");
      break;
    }
  }
  if (cause.empty() && h.status_code && *h.status_code == 0x1000) {
    cause = "The runtime gave a generic error. On new APUs (gfx1150-gfx1152) this has been reported with kernel "
            "drivers newer than the installed ROCm knows; check that the ROCm release supports this GPU and kernel.";
  }
  if (cause.empty()) {
    cause = "amdml found no cause in the other layers: /dev/kfd opens and the driver is loaded. The runtime's own "
            "debug output says more.";
    fd.commands.push_back("HSAKMT_DEBUG_LEVEL=7 rocminfo 2>&1 | tail -40");
  }
  fd.detail += " " + cause;
}

void probe_failure(const Facts& f, std::vector<Finding>& out) {
  const auto& h = f.runtime.hsa;
  auto with_child_evidence = [&](Finding& fd) {
    if (h.last_step) fd.evidence.push_back({"amdml __probe-hsa", "last step: " + *h.last_step});
    if (h.library) fd.evidence.push_back({"library", *h.library});
    if (!h.stderr_tail.empty()) fd.evidence.push_back({"stderr", h.stderr_tail});
  };
  switch (h.outcome) {
    case HsaOutcome::crashed: {
      auto fd = make_finding(FindingId::runtime_crashed, "The HSA runtime crashed while amdml asked it for the GPUs",
                             h.reason.empty() ? "The probe's child process died." : "The probe's child process: " + h.reason + ".");
      fd.detail += " Any ROCm program on this machine is likely to crash the same way.";
      if (h.signal) fd.evidence.push_back({"signal", std::to_string(h.signal)});
      with_child_evidence(fd);
      fd.commands.push_back("rocminfo; echo exit=$?");
      fd.commands.push_back("sudo dmesg | tail -50");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
      break;
    }
    case HsaOutcome::timed_out: {
      auto fd = make_finding(FindingId::runtime_timeout, "The HSA runtime did not answer in time",
                             "The probe's child process: " + h.reason + ". A runtime that hangs in initialisation "
                             "usually means a GPU or driver that stopped responding.");
      if (h.timeout_ms) fd.evidence.push_back({"--runtime-timeout", std::to_string(*h.timeout_ms) + " ms"});
      with_child_evidence(fd);
      fd.commands.push_back("sudo dmesg | grep -i -E 'amdgpu|kfd' | tail -30");
      fd.notes.push_back("If the machine is merely slow, try a longer limit: amdml doctor --runtime-timeout 60");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
      break;
    }
    case HsaOutcome::bad_output: {
      auto fd = make_finding(FindingId::runtime_probe_failed, "amdml could not read the HSA runtime's answer",
                             (h.reason.empty() ? std::string("The probe's child gave no usable result") : h.reason) + ".");
      with_child_evidence(fd);
      fd.commands.push_back("rocminfo");
      out.push_back(std::move(fd));
      break;
    }
    default: break;
  }
}

void not_installed(const Facts& f, std::vector<Finding>& out) {
  const auto& h = f.runtime.hsa;
  if (h.outcome != HsaOutcome::not_installed) return;
  bool found = false;
  for (const auto& a : h.attempts) found |= a.exists;
  if (found) {
    auto fd = make_finding(FindingId::runtime_load_failed, "libhsa-runtime64 is installed but cannot be loaded",
                           "The dynamic loader found the HSA runtime but could not load it (a missing dependency "
                           "such as libhsakmt, or a library for another architecture). Programs that use the "
                           "system ROCm will fail the same way.");
    add_tried(fd, h);
    fd.commands.push_back("ldd $(ldconfig -p | awk '/libhsa-runtime64.so.1/{print $NF; exit}') | grep 'not found'");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
    return;
  }
  if (f.gpus.empty()) return;
  auto fd = make_finding(FindingId::runtime_not_installed, "No HSA runtime (libhsa-runtime64) to ask",
                         "amdml could not load libhsa-runtime64 from AMDML_HSA_LIBRARY, ROCM_PATH, /opt/rocm or the "
                         "system library path, so it reports what the kernel exposes but not what ROCm programs "
                         "will see. PyTorch ROCm wheels and ollama bring their own copy.");
  add_tried(fd, h);
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void init_failed(const Facts& f, std::vector<Finding>& out) {
  const auto& h = f.runtime.hsa;
  if (h.outcome != HsaOutcome::init_failed) return;
  auto fd = make_finding(FindingId::runtime_init_failed, "The HSA runtime failed to initialise: " + status_line(h),
                         "ROCm programs on this machine will see no GPU.");
  if (f.gpus.empty()) {
    fd.severity = Severity::info;
    fd.detail = "There is no AMD GPU here, so this is expected.";
  }
  if (h.status_text) fd.evidence.push_back({"hsa_status_string", *h.status_text});
  if (h.library) fd.evidence.push_back({"library", *h.library});
  explain_init_failure(f, fd);
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

// Live without a usable /dev/kfd the probe does not start the runtime (it could only
// fail, slowly): say so, and why, where the runtime would otherwise have been asked.
void not_asked(const Facts& f, std::vector<Finding>& out) {
  const auto& h = f.runtime.hsa;
  if (h.outcome != HsaOutcome::skipped || (f.gpus.empty() && !f.rocm.hsa_library)) return;
  const DeviceAccess* kfd = find_device(f, "/dev/kfd");
  if (!f.identity.devices_known || (kfd && kfd->exists && kfd->open != OpenCheck::failed)) return;
  auto fd = make_finding(FindingId::runtime_not_asked, "amdml did not ask the HSA runtime: " + h.reason,
                         "ROCm programs on this machine will see no GPU.");
  if (f.gpus.empty()) {
    fd.severity = Severity::info;
    fd.detail = "There is no AMD GPU here, so this is expected.";
  }
  if (f.rocm.hsa_library) fd.evidence.push_back({"library", *f.rocm.hsa_library});
  explain_init_failure(f, fd);
  fd.notes.push_back("AMDML_HSA_LIBRARY=/path/to/libhsa-runtime64.so.1 makes amdml ask that runtime anyway.");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

// GPUs KFD lists that the runtime did not return as agents.
void gpu_missing(const Facts& f, std::vector<Finding>& out) {
  const auto& h = f.runtime.hsa;
  if (h.outcome != HsaOutcome::ok) return;
  std::vector<int> missing;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    if (!f.gpus[i].kfd_node) continue;  // no KFD node: the kernel-side rules say why
    bool joined = false;
    for (const auto& a : h.agents) joined |= a.gpu == static_cast<int>(i);
    if (!joined) missing.push_back(static_cast<int>(i));
  }
  if (missing.empty()) return;
  bool all = missing.size() == [&] {
    std::size_t n = 0;
    for (const auto& g : f.gpus) n += g.kfd_node.has_value();
    return n;
  }();
  std::string title = all ? "The HSA runtime lists no GPU although the kernel has " + std::to_string(missing.size())
                          : std::to_string(missing.size()) + " GPU(s) the kernel has are missing from the HSA runtime";
  auto fd = make_finding(FindingId::runtime_gpu_missing, title,
                         "KFD lists the GPU but hsa_init left it out, so PyTorch, ollama and every other ROCm "
                         "program will not see it either.");
  fd.gpus = missing;
  fd.evidence.push_back({"HSA agents", std::to_string(h.gpu_agents()) + " GPU, " +
                                           std::to_string(h.agents.size() - h.gpu_agents()) + " other"});
  std::string causes;
  auto ovs = overrides(f);
  auto add_command = [&fd](std::string c) {
    for (const auto& have : fd.commands)
      if (have == c) return;
    fd.commands.push_back(std::move(c));
  };
  for (int i : missing) {
    const Gpu& g = f.gpus[static_cast<std::size_t>(i)];
    std::string label = gpu_label(f, i);
    fd.evidence.push_back({"/sys/class/kfd/kfd/topology/nodes/" + std::to_string(*g.kfd_node),
                           g.gfx ? g.gfx->name() : "GPU node"});
    const DeviceAccess* rn = g.render_node ? find_device(f, *g.render_node) : nullptr;
    if (g.render_node && f.identity.devices_known && (!rn || !rn->exists)) {
      causes += " " + label + ": its render node " + *g.render_node + " is not present here (a container started "
                "without it); the runtime skips GPUs whose render node it cannot open.";
      add_command("docker run --device=/dev/kfd " + text::shell_word("--device=" + *g.render_node) +
                  " IMAGE   # or --device=/dev/dri for all GPUs");
      continue;
    }
    if (rn && rn->open == OpenCheck::failed && (rn->open_errno == EPERM || rn->open_errno == ENOENT)) {
      causes += " " + label + ": opening " + *g.render_node + " gives " + errno_label(rn->open_errno) +
                " (the device cgroup hides it), and the runtime silently skips such GPUs.";
      fd.evidence.push_back({*g.render_node, "open(O_RDWR): " + errno_label(rn->open_errno)});
      continue;
    }
    std::string per_node = "HSA_OVERRIDE_GFX_VERSION_" + std::to_string(*g.kfd_node);
    const std::pair<std::string, std::string>* ov = nullptr;
    for (const auto& o : ovs)
      if (o.first == per_node) ov = &o;
    for (const auto& o : ovs)
      if (!ov && o.first == "HSA_OVERRIDE_GFX_VERSION") ov = &o;
    if (ov) {
      causes += " " + label + ": " + ov->first + "=" + ov->second +
                " asks the runtime to treat it as an ISA this runtime does not know, so it drops the GPU; "
                "unset it or use a value the runtime supports (the knowledge rules name the right one).";
      fd.evidence.push_back({"env " + ov->first, ov->second});
      add_command("unset " + text::shell_word(ov->first) + "   # and drop it from ~/.bashrc, /etc/environment or the service's Environment=");
      continue;
    }
    causes += " " + label + ": the runtime does not recognise " + (g.gfx ? g.gfx->name() : std::string("its ISA")) +
              "; this ROCm release is older than the GPU.";
  }
  fd.detail += causes;
  fd.notes.push_back("Check what the runtime lists: rocminfo | grep -E 'Name: +gfx|Marketing'");
  out.push_back(std::move(fd));
}

}  // namespace

void runtime_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  not_installed(f, out);
  init_failed(f, out);
  not_asked(f, out);
  probe_failure(f, out);
  gpu_missing(f, out);
}

}  // namespace amdml::rules
