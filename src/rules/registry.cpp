// The rule table and the finding catalog: one place lists every rule and every id.
#include <algorithm>

#include "formats/system_files.hpp"
#include "rules/rules_internal.hpp"

namespace amdml {

const std::vector<RuleSpec>& rule_table() {
  static const std::vector<RuleSpec> table = {
      {"gpu", rules::gpu_presence},          // gpu.none, driver.not-loaded, kfd.missing
      {"container", rules::container},       // container.* (inside), container.host-docker (host)
      {"access", rules::access},             // access.kfd, access.relogin
      {"rocm", rules::rocm_presence},        // rocm.missing
      {"knowledge", rules::knowledge_rules},  // gfx.*, memory.*, kernel.old, rocm.version, env.* (knowledge rules)
      {"runtime", rules::runtime_rules},      // runtime.* (HSA/libdrm layer)
      {"ml", rules::ml_rules},                // ollama.*, torch.*, llamacpp.* (ML stack)
  };
  return table;
}

const std::vector<FindingSpec>& finding_catalog() {
  static const std::vector<FindingSpec> catalog = [] {
    std::vector<FindingSpec> c = {
        {"gpu.none", Severity::error, "no AMD GPU visible to any layer"},
        {"driver.not-loaded", Severity::error, "an AMD GPU is on PCI but the amdgpu driver is absent or not initialised"},
        {"kfd.missing", Severity::error, "/dev/kfd absent (no KFD, or a container started without the device)"},
        {"access.kfd", Severity::error, "this user cannot open /dev/kfd or the render node: not in the owning group"},
        {"access.relogin", Severity::error, "in the group per /etc/group, but the running session does not have it yet"},
        {"rocm.missing", Severity::warning, "no ROCm user-space runtime found"},
        {"container.devices", Severity::error, "inside a container without /dev/kfd or /dev/dri passed in"},
        {"container.gid", Severity::error, "inside a container whose process groups do not include the device nodes' gid"},
    };
    for (const auto* extra : {&rules::container_catalog(), &rules::knowledge_catalog(), &rules::runtime_catalog(),
                               &rules::ml_catalog()})
      c.insert(c.end(), extra->begin(), extra->end());
    return c;
  }();
  return catalog;
}

const FindingSpec* find_finding_spec(const std::string& id) {
  for (const auto& s : finding_catalog())
    if (id == s.id) return &s;
  return nullptr;
}

std::vector<Finding> diagnose(const Facts& facts, const Knowledge& kb) {
  RuleContext ctx{facts, kb};
  std::vector<Finding> out;
  for (const auto& r : rule_table()) r.fn(ctx, out);
  rules::cross_reference(out);
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return out;
}

std::string fix_command(const Finding& fd, const Facts& facts) {
  if (!fd.fix) return {};
  std::string out = "sudo amdml fix --apply --only " + fd.fix->recipe;
  if (fd.id.rfind("torch.", 0) != 0) return out;
  // torch.* findings come from the Python environments doctor was pointed at (and the
  // child import of --deep): fix finds them only when it looks at the same ones.
  bool deep = false;
  for (const auto& env : facts.ml.python) {
    if (env.kind == "--python") out += " --python " + text::shell_word(env.interpreter.value_or(env.prefix));
    deep = deep || env.runtime.has_value();
  }
  if (deep) out += " --deep";
  return out;
}

}  // namespace amdml
