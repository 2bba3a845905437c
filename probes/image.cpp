// The image gate's file listings (rules/image_check.hpp): the kernel directories of
// rocBLAS, hipBLASLt and MIOpen under the ROCm path the rocm probe found. Read-only;
// a directory that cannot be listed is absent.
#include <algorithm>

#include "amdml/image.hpp"
#include "platform/host.hpp"
#include "probes/ml_probes.hpp"

namespace amdml::probes {

ImageFacts image(const platform::Host& host, const Facts& facts) {
  ImageFacts out;
  if (!facts.rocm.path) return out;
  static const std::pair<const char*, const char*> kDirs[] = {
      {"rocBLAS", "lib/rocblas/library"}, {"hipBLASLt", "lib/hipblaslt/library"}, {"MIOpen", "share/miopen/db"}};
  for (const auto& [library, sub] : kDirs) {
    KernelDir d;
    d.library = library;
    d.path = mlpath::join(*facts.rocm.path, sub);
    if (auto entries = host.list_dir(d.path)) {
      d.present = true;
      // Kernel files are files: a directory named like one holds no kernels.
      for (const auto& e : *entries)
        if (e.type == FileType::regular || e.type == FileType::symlink) d.files.push_back(e.name);
      std::sort(d.files.begin(), d.files.end());
    }
    out.kernel_dirs.push_back(std::move(d));
  }
  return out;
}

}  // namespace amdml::probes
