// ml.rocm-libraries: TensorFlow and onnxruntime ROCm builds load ROCm libraries from
// the system (PyTorch wheels bundle theirs): are they installed.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

// What each ROCm framework build needs from the system ROCm.
const std::vector<std::string>& needed_libraries(const std::string& package) {
  static const std::vector<std::string> tf = {"MIOpen", "rocBLAS", "hipBLAS", "hipFFT", "rocRAND", "RCCL", "hipCUB"};
  static const std::vector<std::string> ort = {"MIOpen", "rocBLAS", "hipBLAS", "hipFFT", "hipCUB"};
  return package == "tensorflow-rocm" ? tf : ort;
}

}  // namespace

void ml_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (!f.ml.probed) return;
  for (const auto& env : f.ml.python) {
    for (const auto& pkg : env.rocm_packages) {
      std::vector<std::string> missing_names, packages;
      for (const auto& want : needed_libraries(pkg.name))
        for (const auto& lib : f.ml.rocm_libraries)
          if (lib.name == want && !lib.present) {
            missing_names.push_back(lib.name);
            packages.push_back(lib.package);
          }
      if (missing_names.empty()) continue;
      auto fd = make_finding(FindingId::ml_rocm_libraries, pkg.name + " in " + env.prefix + " is missing ROCm libraries: " +
                                                      text::join(missing_names, ", "),
                             pkg.name + " " + pkg.version + " loads these from the system ROCm (" +
                                 f.rocm.path.value_or("none installed") + ") rather than bundling them the way PyTorch "
                                 "wheels do; without them it finds no GPU.");
      fd.evidence.push_back({pkg.path, pkg.name + " " + pkg.version});
      fd.evidence.push_back({f.rocm.path.value_or("/opt/rocm"), "missing " + text::join(missing_names, ", ")});
      fd.commands.push_back(ml::install_command(f, packages) + "   # AMD ROCm repository package names");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
    }
  }
}

}  // namespace amdml::rules
