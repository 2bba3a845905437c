// The rule table: one place lists every rule, in the order they run.
#include <algorithm>

#include "formats/system_files.hpp"
#include "rules/rules_internal.hpp"

namespace amdml {

const std::vector<RuleSpec>& rule_table() {
  // One rule per finding-id prefix, each in the file named after it (kfd and rocm have
  // two, run where their findings have always come). The order is the order findings
  // of one severity are reported in.
  static const std::vector<RuleSpec> table = {
      {"gpu", rules::gpu_rules},
      {"driver", rules::driver_rules},
      {"kfd", rules::kfd_missing},
      {"container", rules::container_rules},  // container.* (inside), container.host-docker (host)
      {"access", rules::access_rules},
      {"rocm", rules::rocm_missing},
      {"gfx", rules::gfx_rules},
      {"memory", rules::memory_rules},
      {"kernel", rules::kernel_rules},
      {"kernel", rules::kernel_log_rules},  // kernel.* read off this boot's kernel log
      {"firmware", rules::firmware_rules},
      {"kfd", rules::kfd_gpu_missing},
      {"rocm", rules::rocm_version_rules},
      {"rocm", rules::rocm_device_rules},
      {"env", rules::env_rules},
      {"runtime", rules::runtime_rules},
      {"drm", rules::drm_rules},
      {"deep", rules::deep_rules},
      {"ollama", rules::ollama_rules},
      {"torch", rules::torch_rules},
      {"llamacpp", rules::llamacpp_rules},
      {"ml", rules::ml_rules},
      {"vulkan", rules::vulkan_rules},  // after ollama: it reads ollama.gfx-unsupported
      {"knowledge", rules::knowledge_rules},
      {"ollama", rules::ollama_journal_rules},  // last: ties ollama's journal to the findings above
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
