// Helpers shared by rules.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

std::vector<int> amd_gpu_indices(const Facts& f) {
  std::vector<int> out;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) out.push_back(static_cast<int>(i));
  return out;
}

std::string gpu_label(const Facts& f, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= f.gpus.size()) return "GPU ?";
  const Gpu& g = f.gpus[static_cast<std::size_t>(index)];
  std::string s = "GPU " + std::to_string(index);
  std::string inner;
  if (g.marketing_name) inner = *g.marketing_name;
  if (g.gfx) inner += (inner.empty() ? "" : ", ") + g.gfx->name();
  if (!inner.empty()) s += " (" + inner + ")";
  return s;
}

Finding make_finding(FindingId id, std::string title, std::string detail) {
  Finding f;
  f.id = id;
  f.severity = default_severity(id);
  f.title = std::move(title);
  f.detail = std::move(detail);
  return f;
}

bool in_container(const Facts& f) { return f.container.kind.has_value(); }

}  // namespace amdml::rules
