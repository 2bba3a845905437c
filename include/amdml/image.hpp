// What a container image holds for the image gate (`amdml check --target`): the kernel
// files the ROCm math libraries ship, per library directory. probes/image.cpp lists
// them; src/rules/image_check.cpp judges them.
#pragma once

#include <string>
#include <vector>

namespace amdml {

// One kernel directory of a ROCm math library and the file names in it.
struct KernelDir {
  std::string library;  // "rocBLAS", "hipBLASLt", "MIOpen"
  std::string path;     // "/opt/rocm/lib/rocblas/library"
  bool present = false;
  std::vector<std::string> files;
};

struct ImageFacts {
  std::vector<KernelDir> kernel_dirs;  // rocBLAS, hipBLASLt, MIOpen (empty without a ROCm path)
};

}  // namespace amdml
