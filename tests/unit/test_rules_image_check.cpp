// The image gate's evaluation on literal facts: kernel file names per library, the
// override moving the checks to its target, and what is skipped rather than passed.
#include <gtest/gtest.h>

#include <algorithm>

#include "rules/image_check.hpp"

namespace amdml {
namespace {

const GfxTarget k1100{11, 0, 0}, k1103{11, 0, 3}, k1030{10, 3, 0}, k90a{9, 0, 10};

Knowledge kb() {
  Knowledge k;
  auto gfx = [&](GfxTarget t, IsaFamily isa) {
    GfxInfo g;
    g.target = t;
    g.isa = isa;
    k.gfx.push_back(g);
  };
  gfx(k1100, IsaFamily::rdna3);
  gfx(k1103, IsaFamily::rdna3);
  gfx(k1030, IsaFamily::rdna2);
  k.gfx.back().override_to = std::nullopt;
  k.gfx[1].override_to = k1100;
  RocmRelease r;
  r.version = Version{6, 4, 0};
  r.kernels = {k1100, k1030};
  k.rocm.push_back(r);
  return k;
}

CheckStatus status(const CheckReport& r, const std::string& name) {
  auto it = std::find_if(r.cases.begin(), r.cases.end(), [&](const CheckCase& c) { return c.name == name; });
  EXPECT_NE(it, r.cases.end()) << name;
  return it == r.cases.end() ? CheckStatus::skipped : it->status;
}

TEST(ImageCheck, KernelFileNames) {
  EXPECT_TRUE(kernel_file_for("rocBLAS", "TensileLibrary_lazy_gfx1100.dat", k1100));
  EXPECT_TRUE(kernel_file_for("rocBLAS", "Kernels.so-000-gfx90a.hsaco", k90a));
  EXPECT_FALSE(kernel_file_for("rocBLAS", "TensileLibrary_lazy_gfx1101.dat", k1100));
  EXPECT_FALSE(kernel_file_for("hipBLASLt", "TensileLibrary_lazy_gfx11000.dat", k1100));
  EXPECT_TRUE(kernel_file_for("MIOpen", "gfx1100_48.kdb", k1100));
  EXPECT_TRUE(kernel_file_for("MIOpen", "gfx90a6e.kdb", k90a));
  EXPECT_FALSE(kernel_file_for("MIOpen", "gfx1101_30.kdb", k1100));
  EXPECT_FALSE(kernel_file_for("MIOpen", "gfx1100", k1100));
  EXPECT_FALSE(kernel_file_for("MIOpen", "xgfx1100_48.kdb", k1100));
}

// Issue 29 L4: only kernel files count -- a name that merely mentions the target does not.
TEST(ImageCheck, OnlyKernelFilesCountNotNotesOrCopies) {
  for (const char* name : {"README-gfx1100.txt", "TensileLibrary_lazy_gfx1100.dat.bak", ".TensileLibrary_lazy_gfx1100.dat.swp",
                           "TensileLibrary_lazy_gfx1100.dat~", "notes_gfx1100.md", "gfx1100.dat.orig"}) {
    EXPECT_FALSE(kernel_file_for("rocBLAS", name, k1100)) << name;
    EXPECT_FALSE(kernel_file_for("hipBLASLt", name, k1100)) << name;
  }
  EXPECT_TRUE(kernel_file_for("hipBLASLt", "TensileLibrary_Type_HH_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1100.co", k1100));
  EXPECT_TRUE(kernel_file_for("rocBLAS", "blas_lib_gfx1100.kpack", k1100));
  for (const char* name : {"gfx1100_48.kdb.bak", "gfx1100_48.HIP.fdb.txt", "gfx1100_48.db", "README-gfx1100_48.kdb.txt"})
    EXPECT_FALSE(kernel_file_for("MIOpen", name, k1100)) << name;
}

Facts image_facts() {
  Facts f;
  f.rocm.source = RocmSource::opt_rocm;
  f.rocm.path = "/opt/rocm";
  f.rocm.version = Version{6, 4, 1};
  return f;
}

ImageFacts rocblas(std::vector<std::string> files) {
  ImageFacts i;
  i.kernel_dirs.push_back({"rocBLAS", "/opt/rocm/lib/rocblas/library", true, std::move(files)});
  i.kernel_dirs.push_back({"MIOpen", "/opt/rocm/share/miopen/db", false, {}});
  return i;
}

TEST(ImageCheck, TargetsWithAndWithoutKernels) {
  auto r = evaluate_image(image_facts(), rocblas({"TensileLibrary_lazy_gfx1100.dat"}), kb(), {k1100, k1103});
  EXPECT_EQ(status(r, "gfx1100 ROCm"), CheckStatus::passed);
  EXPECT_EQ(status(r, "gfx1100 rocBLAS"), CheckStatus::passed);
  EXPECT_EQ(status(r, "gfx1100 MIOpen"), CheckStatus::skipped);  // not in the image: not a pass
  EXPECT_EQ(status(r, "gfx1103 ROCm"), CheckStatus::failed);
  EXPECT_EQ(status(r, "gfx1103 rocBLAS"), CheckStatus::failed);
  EXPECT_FALSE(r.passed());
}

TEST(ImageCheck, OverrideMovesTheChecksWithinTheFamilyOnly) {
  Facts f = image_facts();
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  auto ok = evaluate_image(f, rocblas({"TensileLibrary_lazy_gfx1100.dat"}), kb(), {k1103});
  EXPECT_TRUE(ok.passed());
  EXPECT_EQ(status(ok, "gfx1103 HSA_OVERRIDE_GFX_VERSION"), CheckStatus::passed);
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";  // RDNA 2 code on an RDNA 3 GPU
  auto cross = evaluate_image(f, rocblas({"TensileLibrary_lazy_gfx1030.dat"}), kb(), {k1100});
  EXPECT_EQ(status(cross, "gfx1100 HSA_OVERRIDE_GFX_VERSION"), CheckStatus::failed);
  EXPECT_EQ(status(cross, "gfx1100 rocBLAS"), CheckStatus::failed);  // still checked for gfx1100
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "\"11.0.0\"";
  EXPECT_EQ(status(evaluate_image(f, rocblas({}), kb(), {k1100}), "gfx1100 HSA_OVERRIDE_GFX_VERSION"),
            CheckStatus::failed);
}

TEST(ImageCheck, NoRocmAtAll) {
  Facts f;
  auto r = evaluate_image(f, ImageFacts{}, kb(), {k1100});
  EXPECT_EQ(status(r, "gfx1100 ROCm"), CheckStatus::failed);
  f.ml.ollama.installed = true;
  f.ml.ollama.rocm_dir = "/usr/lib/ollama/rocm";
  f.ml.ollama.rocblas_targets = {k1100};
  auto o = evaluate_image(f, ImageFacts{}, kb(), {k1100});
  EXPECT_EQ(status(o, "gfx1100 ROCm"), CheckStatus::skipped);
  EXPECT_EQ(status(o, "gfx1100 ollama"), CheckStatus::passed);
  EXPECT_TRUE(o.passed());
}

TEST(ImageCheck, PyTorchArchListPrefersTheImportedOne) {
  Facts f = image_facts();
  PythonEnv env;
  env.prefix = "/opt/venv";
  env.torch_path = "/opt/venv/lib/python3.12/site-packages/torch";
  env.torch_version = "2.6.0+rocm6.4.1";
  env.torch_build = TorchBuild::rocm;
  env.torch_rocblas_targets = {k1030};
  f.ml.python.push_back(env);
  EXPECT_EQ(status(evaluate_image(f, ImageFacts{}, kb(), {k1100}), "gfx1100 PyTorch /opt/venv"), CheckStatus::failed);
  TorchRuntime rt;  // --deep: torch.cuda.get_arch_list() is what the build was compiled for
  rt.ran = true;
  rt.arch_list = {"gfx1030", "gfx1100"};
  f.ml.python[0].runtime = rt;
  EXPECT_EQ(status(evaluate_image(f, ImageFacts{}, kb(), {k1100}), "gfx1100 PyTorch /opt/venv"), CheckStatus::passed);
  f.ml.python[0].runtime.reset();
  f.ml.python[0].torch_rocblas_targets.clear();  // nothing to read: no verdict
  EXPECT_EQ(status(evaluate_image(f, ImageFacts{}, kb(), {k1100}), "gfx1100 PyTorch /opt/venv"), CheckStatus::skipped);
}

}  // namespace
}  // namespace amdml
