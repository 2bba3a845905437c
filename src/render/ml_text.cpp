// The ML and ROCm-install rows of the text report's host table; see ml_text.hpp.
#include "render/ml_text.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace amdml::render {

namespace {

std::string gfx_short(const std::vector<GfxTarget>& v) {
  std::string s;
  const std::size_t shown = std::min<std::size_t>(v.size(), 6);
  for (std::size_t i = 0; i < shown; ++i) s += (s.empty() ? "" : " ") + v[i].name();
  if (v.size() > shown) s += " +" + std::to_string(v.size() - shown) + " more";
  return s;
}

// The consumer's verdict per GPU, from the targets its ROCm's files name: "kernels for
// gfx1151", "no kernels for gfx1103"; nothing when the targets are not known.
std::string verdict(const Facts& f, const std::vector<GfxTarget>& targets) {
  if (targets.empty()) return "";
  std::vector<std::string> yes, no;
  for (const auto& g : f.gpus) {
    if (!g.gfx) continue;
    (std::find(targets.begin(), targets.end(), *g.gfx) != targets.end() ? yes : no).push_back(g.gfx->name());
  }
  std::string s;
  if (!yes.empty()) s += ", kernels for " + text::join(yes, " ");
  if (!no.empty()) s += ", no kernels for " + text::join(no, " ");
  return s;
}

std::string torch_rocm(const Facts& f, const PythonEnv& e) {
  const auto& w = e.rocm_wheels;
  switch (e.torch_rocm) {
    case TorchRocm::bundled:
      return ", ROCm in torch/lib" + verdict(f, e.torch_rocblas_targets);
    case TorchRocm::rocm_wheels:
    case TorchRocm::amd_device:
      if (!w.core_path && !w.core_version) return ", its rocm wheels are missing";
      return ", ROCm from the rocm wheels " + w.rocm_version.value_or(w.core_version.value_or("")) + verdict(f, w.device_targets);
    case TorchRocm::unknown:
      break;
  }
  return "";
}

}  // namespace

std::string kernels_verdict(const Facts& f, const std::vector<GfxTarget>& targets) { return verdict(f, targets); }

std::vector<std::vector<std::string>> rocm_install_rows(const RocmFacts& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& in : r.installs) {
    // The one the ROCm row already names.
    if (r.resolved_path.value_or(r.path.value_or("")) == in.path || (r.path && *r.path == in.path && in.channel != RocmChannel::pip))
      continue;
    std::string s = (in.version ? in.version->str() : "unknown version") + " (" + to_string(in.channel) + ") ";
    s += in.python_env ? "in " + *in.python_env : "at " + in.path;
    if (!in.targets.empty()) s += ": " + gfx_short(in.targets);
    rows.push_back({"ROCm", s});
  }
  return rows;
}

std::vector<std::vector<std::string>> ml_summary_rows(const Facts& f) {
  const MlFacts& m = f.ml;
  std::vector<std::vector<std::string>> rows;
  const auto& o = m.ollama;
  if (o.installed) {
    std::string s = o.version ? o.version->str() : "version unknown";
    if (o.binary) s += " at " + *o.binary;
    if (o.bundled_rocm) s += ", ROCm " + o.bundled_rocm->str() + verdict(f, o.rocblas_targets);
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
    s += ") in " + e.prefix + torch_rocm(f, e);
    if (e.runtime && e.runtime->ran) {
      if (e.runtime->error) s += ", import failed";
      else if (e.runtime->available) s += *e.runtime->available ? ", sees " + std::to_string(e.runtime->device_count) + " GPU(s)" : ", sees no GPU";
    }
    rows.push_back({"PyTorch", s});
  }
  for (const auto& b : m.llama) {
    std::string kinds;
    for (auto k : b.backends) kinds += (kinds.empty() ? "" : "+") + std::string(to_string(k));
    bool hip = std::find(b.backends.begin(), b.backends.end(), LlamaBackend::hip) != b.backends.end();
    std::string from;
    if (hip && b.bundled_hip) {
      from = ", own ROCm";
    } else if (hip) {
      // the system ROCm's verdict, from the targets its files name
      from = ", system ROCm";
      const std::string where = f.rocm.resolved_path.value_or(f.rocm.path.value_or(""));
      for (const auto& in : f.rocm.installs)
        if (!where.empty() && in.path == where) from += verdict(f, in.targets);
    }
    rows.push_back({"llama.cpp", b.path + " (" + (kinds.empty() ? "backend unknown" : kinds) + from + ")"});
  }
  return rows;
}

}  // namespace amdml::render