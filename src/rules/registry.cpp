// The rule table: one place lists every rule, in the order they run.
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
  if (finding_prefix(fd.id) != "torch") return out;
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
