// The ML rows of the text report's host table; see ml_text.hpp.
#include "render/ml_text.hpp"

namespace amdml {

std::vector<std::vector<std::string>> ml_summary_rows(const MlFacts& m) {
  std::vector<std::vector<std::string>> rows;
  const auto& o = m.ollama;
  if (o.installed) {
    std::string s = o.version ? o.version->str() : "version unknown";
    if (o.binary) s += " at " + *o.binary;
    if (o.bundled_rocm) s += ", ROCm " + o.bundled_rocm->str();
    if (o.service) {
      s += o.service->masked ? ", service masked" : ", service " + o.service->active.value_or("state unknown");
      if (!o.service->masked) s += " as " + o.service->user;
    }
    rows.push_back({"ollama", s});
  }
  for (const auto& e : m.python) {
    if (!e.torch_path) continue;
    std::string s = e.torch_version.value_or("?") + " (" + to_string(e.torch_build);
    if (e.torch_hip) s += " " + *e.torch_hip;
    s += ") in " + e.prefix;
    if (e.runtime && e.runtime->ran) {
      if (e.runtime->error) s += ", import failed";
      else if (e.runtime->available) s += *e.runtime->available ? ", sees " + std::to_string(e.runtime->device_count) + " GPU(s)" : ", sees no GPU";
    }
    rows.push_back({"PyTorch", s});
  }
  for (const auto& b : m.llama) {
    std::string kinds;
    for (auto k : b.backends) kinds += (kinds.empty() ? "" : "+") + std::string(to_string(k));
    rows.push_back({"llama.cpp", b.path + " (" + (kinds.empty() ? "backend unknown" : kinds) + ")"});
  }
  return rows;
}

}  // namespace amdml
