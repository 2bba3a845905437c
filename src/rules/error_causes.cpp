// Checking an error's causes against this machine (see error_explain.hpp): a finding
// the doctor reports confirms a cause; the facts a cause needs confirm it or rule it out.
#include <algorithm>
#include <optional>

#include "base/text.hpp"
#include "rules/error_explain.hpp"

namespace amdml {

const char* to_string(CauseVerdict v) {
  switch (v) {
    case CauseVerdict::confirmed: return "confirmed";
    case CauseVerdict::unknown: return "unknown";
    case CauseVerdict::ruled_out: return "ruled-out";
  }
  return "unknown";
}

namespace {

// What the machine shows for a check: whether the fact holds (nullopt: not known) and
// the line that says so.
struct Shown {
  std::optional<bool> holds;
  std::string text;
};

std::optional<std::string> env_value(const Facts& f, const std::string& name, std::string& where) {
  if (auto it = f.env.find(name); it != f.env.end()) {
    where = "amdml's environment";
    return it->second;
  }
  for (const auto& l : f.login_env)
    if (l.name == name) {
      where = l.where;
      return l.value;
    }
  return std::nullopt;
}

Shown env_check(const Facts& f, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    std::string where;
    if (auto v = env_value(f, n, where)) return {true, std::string(n) + "=" + *v + " (" + where + ")"};
  }
  std::vector<std::string> all(names.begin(), names.end());
  return {false, text::join(all, ", ") + ": not set (amdml's environment, login files)"};
}

Shown kfd_access(const Facts& f) {
  for (const auto& d : f.identity.devices) {
    if (d.path != "/dev/kfd") continue;
    if (!d.exists) return {false, "/dev/kfd does not exist"};
    if (d.open == OpenCheck::ok) return {true, "this user can open /dev/kfd"};
    if (d.open == OpenCheck::failed) return {false, "this user cannot open /dev/kfd"};
    if (d.world_accessible) return {true, "/dev/kfd is open to everyone (mode " + text::octal_mode(d.mode.value_or(0)) + ")"};
    const std::string group = d.group.value_or("its group");
    if (d.in_session == true) return {true, "this session is in " + group + ", which owns /dev/kfd"};
    if (d.in_session == false) return {false, "this session is not in " + group + ", which owns /dev/kfd"};
    return {};
  }
  return f.identity.devices_known ? Shown{false, "/dev/kfd does not exist"} : Shown{};
}

Shown torch_rocm(const Facts& f) {
  Shown other;
  for (const auto& env : f.ml.python) {
    if (!env.torch_version) continue;
    const std::string what = "torch " + *env.torch_version + " in " + env.prefix;
    if (env.torch_build == TorchBuild::rocm) return {true, what + " is a ROCm build"};
    if (env.torch_build == TorchBuild::cuda || env.torch_build == TorchBuild::cpu)
      other = {false, what + " is a " + std::string(to_string(env.torch_build)) + " build"};
  }
  if (!other.holds && f.ml.probed) return {std::nullopt, "no PyTorch found in the environments amdml searched"};
  return other;
}

Shown show(ErrorCheck c, const Facts& f) {
  switch (c) {
    case ErrorCheck::amd_gpu:
      if (f.pci.empty()) return {false, "no AMD GPU on PCI"};
      return {true, "an AMD GPU on PCI: " + f.pci.front().slot};
    case ErrorCheck::driver_loaded:
      if (f.driver.amdgpu_loaded) return {true, "amdgpu is loaded (/sys/module/amdgpu)"};
      return {false, "amdgpu is not loaded (no /sys/module/amdgpu)"};
    case ErrorCheck::kfd_gpu:
      for (const auto& n : f.kfd.nodes)
        if (!n.cpu) return {true, "KFD lists GPU node " + std::to_string(n.index) + (n.gfx ? " (" + n.gfx->name() + ")" : "")};
      return {false, f.kfd.present ? "KFD lists no GPU node" : "no KFD topology (/sys/class/kfd)"};
    case ErrorCheck::kfd_access: return kfd_access(f);
    case ErrorCheck::rocm:
      if (f.rocm.source != RocmSource::none)
        return {true, "ROCm " + f.rocm.version_text.value_or("?") + " at " + f.rocm.resolved_path.value_or(f.rocm.path.value_or("?"))};
      if (!f.rocm.installs.empty()) return {true, "ROCm " + f.rocm.installs.front().version_text + " at " + f.rocm.installs.front().path};
      return {false, "no ROCm runtime found"};
    case ErrorCheck::override_set: return env_check(f, {"HSA_OVERRIDE_GFX_VERSION"});
    case ErrorCheck::visible_devices:
      return env_check(f, {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"});
    case ErrorCheck::secure_boot:
      if (!f.boot.secure_boot) return {};
      return {*f.boot.secure_boot, *f.boot.secure_boot ? "Secure Boot is on (EFI variable SecureBoot)" : "Secure Boot is off"};
    case ErrorCheck::dkms:
      if (f.boot.dkms == DkmsState::none) return {false, "AMD's amdgpu-dkms is not installed"};
      return {true, "amdgpu-dkms " + text::join(f.boot.dkms_versions, ", ") + ": " + to_string(f.boot.dkms) + " for this kernel"};
    case ErrorCheck::blacklist:
      if (f.boot.blacklists.empty()) return {false, "nothing blacklists amdgpu (modprobe.d, kernel command line)"};
      return {true, f.boot.blacklists.front().text + " (" + f.boot.blacklists.front().where + ")"};
    case ErrorCheck::container:
      if (f.container.kind) return {true, "amdml runs inside a " + std::string(to_string(*f.container.kind)) + " container"};
      return {false, "not inside a container"};
    case ErrorCheck::apu:
      if (f.gpus.empty()) return {};
      for (const auto& g : f.gpus)
        if (g.apu == true) return {true, g.marketing_name.value_or(g.gfx ? g.gfx->name() : "a GPU") + " is an APU"};
      return {false, "no GPU here is an APU"};
    case ErrorCheck::torch_rocm: return torch_rocm(f);
    case ErrorCheck::ollama:
      if (f.ml.ollama.installed)
        return {true, "ollama " + (f.ml.ollama.version ? f.ml.ollama.version->str() + " " : std::string()) + "at " +
                          f.ml.ollama.binary.value_or("?")};
      return {f.ml.probed ? std::optional<bool>(false) : std::nullopt, "ollama is not installed"};
  }
  return {};
}

CheckedCause check_one(const ErrorCause& c, std::size_t rank, const Facts& facts, const std::vector<Finding>& findings) {
  CheckedCause out;
  out.cause = &c;
  out.rank = rank;
  for (const auto& f : findings)
    if (std::find(c.findings.begin(), c.findings.end(), f.id) != c.findings.end()) {
      out.evidence.push_back({std::string(to_string(f.id)), f.title, true});
      if (out.commands.empty())
        for (std::size_t i = 0; i < f.commands.size(); ++i) {
          out.commands.push_back(f.commands[i]);
          out.command_roles.emplace_back(to_string(f.command_role(i)));
        }
      out.verdict = CauseVerdict::confirmed;
    }
  bool all_hold = !c.checks.empty(), against = false;
  for (const auto& k : c.checks) {
    Shown s = show(k.check, facts);
    if (!s.holds) {
      all_hold = false;
      continue;
    }
    const bool supports = *s.holds != k.negate;
    out.evidence.push_back({std::string(k.negate ? "!" : "") + to_string(k.check), s.text, supports});
    if (!supports) against = true;
    all_hold = all_hold && supports;
  }
  if (out.verdict != CauseVerdict::confirmed) out.verdict = against ? CauseVerdict::ruled_out : all_hold ? CauseVerdict::confirmed : CauseVerdict::unknown;
  if (out.verdict != CauseVerdict::confirmed && !c.findings.empty()) {
    std::vector<std::string> ids;
    for (auto id : c.findings) ids.emplace_back(to_string(id));
    out.evidence.push_back({"doctor", "the doctor reports none of: " + text::join(ids, ", "), false});
  }
  return out;
}

}  // namespace

std::vector<CheckedCause> check_causes(const ErrorEntry& e, const Facts& facts, const std::vector<Finding>& findings) {
  std::vector<CheckedCause> out;
  for (std::size_t i = 0; i < e.causes.size(); ++i) out.push_back(check_one(e.causes[i], i + 1, facts, findings));
  std::stable_sort(out.begin(), out.end(), [](const CheckedCause& a, const CheckedCause& b) {
    return static_cast<int>(a.verdict) < static_cast<int>(b.verdict);
  });
  return out;
}

}  // namespace amdml
