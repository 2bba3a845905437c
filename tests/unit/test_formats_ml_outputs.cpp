// The ML probes' text parsers: ollama --version, torch/version.py, library names,
// the --deep child's output.
#include <gtest/gtest.h>

#include "formats/ml_outputs.hpp"

using namespace amdml;
using namespace amdml::formats::mlparse;

TEST(MlParse, OllamaVersion) {
  EXPECT_EQ(formats::mlparse::ollama_version("ollama version is 0.12.3\n"), (Version{0, 12, 3}));
  EXPECT_EQ(formats::mlparse::ollama_version("Warning: could not connect to a running Ollama instance\n"
                           "Warning: client version is 0.5.7\n"),
            (Version{0, 5, 7}));
  EXPECT_EQ(formats::mlparse::ollama_version("ollama version is v0.30.1-rc2"), (Version{0, 30, 1}));
  EXPECT_FALSE(formats::mlparse::ollama_version("command not found"));
  EXPECT_FALSE(formats::mlparse::ollama_version("version is unknown"));
}

TEST(MlParse, TorchVersionPy) {
  auto rocm = formats::mlparse::torch_version_py(
      "from typing import Optional\n__version__ = '2.5.1+rocm6.2'\ndebug = False\n"
      "cuda: Optional[str] = None\nhip: Optional[str] = '6.2.41133-dd7f95766'\n");
  EXPECT_EQ(rocm.version, "2.5.1+rocm6.2");
  EXPECT_EQ(rocm.hip, "6.2.41133-dd7f95766");
  EXPECT_FALSE(rocm.cuda);
  EXPECT_EQ(formats::mlparse::torch_build(rocm), TorchBuild::rocm);
  auto cuda = formats::mlparse::torch_version_py("__version__ = \"2.4.0+cu121\"\ncuda = '12.1'\nhip = None\n");
  EXPECT_EQ(formats::mlparse::torch_build(cuda), TorchBuild::cuda);
  auto cpu = formats::mlparse::torch_version_py("__version__ = '2.5.1+cpu'\ncuda: Optional[str] = None\nhip: Optional[str] = None\n");
  EXPECT_EQ(formats::mlparse::torch_build(cpu), TorchBuild::cpu);
  EXPECT_EQ(formats::mlparse::torch_build(formats::mlparse::torch_version_py("garbage\n")), TorchBuild::unknown);
}

TEST(MlParse, LibraryFileTargets) {
  EXPECT_EQ(formats::mlparse::library_file_target("TensileLibrary_lazy_gfx1030.dat"), GfxTarget::parse_name("gfx1030"));
  EXPECT_EQ(formats::mlparse::library_file_target("TensileLibrary_lazy_gfx90a.dat"), GfxTarget::parse_name("gfx90a"));
  EXPECT_EQ(formats::mlparse::library_file_target("Kernels.so-000-gfx1100.hsaco"), GfxTarget::parse_name("gfx1100"));
  EXPECT_FALSE(formats::mlparse::library_file_target("TensileLibrary.dat"));
  EXPECT_FALSE(formats::mlparse::library_file_target("libgfxfoo.so"));
}

TEST(MlParse, RocmDirVersion) {
  EXPECT_EQ(formats::mlparse::ollama_rocm_dir_version("rocm_v7_2"), (Version{7, 2, 0}));
  EXPECT_FALSE(formats::mlparse::ollama_rocm_dir_version("rocm"));
  EXPECT_FALSE(formats::mlparse::ollama_rocm_dir_version("rocm_vx"));
}

TEST(MlParse, TorchRuntimeJsonLine) {
  CommandResult r;
  r.exit_code = 0;
  r.out = "some warning\nAMDML_TORCH {\"available\": true, \"count\": 1, \"names\": [\"AMD Radeon RX 7900 XTX\"], "
          "\"archs\": [\"gfx1100\"], \"arch_list\": [\"gfx1030\", \"gfx1100\"]}\n";
  auto t = formats::mlparse::torch_runtime(r);
  EXPECT_EQ(t.available, true);
  EXPECT_EQ(t.device_count, 1);
  EXPECT_EQ(t.device_archs, (std::vector<std::string>{"gfx1100"}));
  EXPECT_EQ(t.arch_list.size(), 2u);
  EXPECT_FALSE(t.error);
}

TEST(MlParse, TorchRuntimeAbortKeepsTheHipError) {
  CommandResult r;
  r.exit_code = 134;
  r.signal = 6;
  r.err = "\n\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"\n";
  auto t = formats::mlparse::torch_runtime(r);
  ASSERT_TRUE(t.error);
  EXPECT_NE(t.error->find("hipErrorNoBinaryForGpu"), std::string::npos);
  CommandResult hung;
  hung.timed_out = true;
  EXPECT_EQ(formats::mlparse::torch_runtime(hung).error, "timed out importing torch");
}

TEST(MlParse, TorchMatmulLinesPerDevice) {
  CommandResult r;
  r.exit_code = 0;
  r.out =
      "AMDML_TORCH {\"available\": true, \"count\": 2, \"archs\": [\"gfx1100\", \"gfx1103\"]}\n"
      "AMDML_MATMUL_START 0\n"
      "AMDML_MATMUL {\"device\": 0, \"ok\": true, \"size\": 2048, \"ms\": 0.25, \"tflops\": 68.7, \"data_ok\": true}\n"
      "AMDML_MATMUL_START 1\n"
      "AMDML_MATMUL {\"device\": 1, \"ok\": false, \"error\": \"RuntimeError: HIP error: invalid device function\\nmore\"}\n";
  auto t = torch_runtime(r);
  EXPECT_FALSE(t.error);
  ASSERT_EQ(t.matmuls.size(), 2u);
  EXPECT_TRUE(t.matmuls[0].ok);
  EXPECT_EQ(t.matmuls[0].size, 2048);
  EXPECT_DOUBLE_EQ(*t.matmuls[0].tflops, 68.7);
  EXPECT_EQ(t.matmuls[0].data_ok, true);
  EXPECT_FALSE(t.matmuls[1].ok);
  EXPECT_EQ(t.matmuls[1].error, "RuntimeError: HIP error: invalid device function\nmore");
  EXPECT_FALSE(t.matmuls[1].timed_out);
}

TEST(MlParse, TorchMatmulThatNeverAnsweredIsNamed) {
  // Killed at the limit after the import answered: the import is fine, device 0 hung.
  CommandResult hung;
  hung.timed_out = true;
  hung.out = "AMDML_TORCH {\"available\": true, \"count\": 1}\nAMDML_MATMUL_START 0\n";
  auto t = torch_runtime(hung);
  EXPECT_FALSE(t.error);
  EXPECT_EQ(t.available, true);
  ASSERT_EQ(t.matmuls.size(), 1u);
  EXPECT_TRUE(t.matmuls[0].timed_out);
  EXPECT_EQ(t.matmuls[0].error, "did not finish: the child was killed at its time limit");
  // rocBLAS aborts the process when it has no kernels for the GPU: its line is the error.
  CommandResult abort;
  abort.exit_code = -1;
  abort.signal = 6;
  abort.out = "AMDML_TORCH {\"available\": true, \"count\": 1}\nAMDML_MATMUL_START 0\n";
  abort.err = "\nrocBLAS error: Cannot read /x/TensileLibrary.dat: No such file or directory for GPU arch : gfx1103\n"
              " List of available TensileLibrary Files : \n";
  t = torch_runtime(abort);
  ASSERT_EQ(t.matmuls.size(), 1u);
  EXPECT_FALSE(t.matmuls[0].timed_out);
  EXPECT_NE(t.matmuls[0].error->find("Cannot read /x/TensileLibrary.dat"), std::string::npos) << *t.matmuls[0].error;
  // Nonsense in a matmul line is dropped, not trusted.
  CommandResult odd;
  odd.exit_code = 0;
  odd.out = "AMDML_MATMUL {\"device\": \"x\"}\nAMDML_MATMUL {\"device\": 0, \"ok\": true, \"tflops\": -3, \"size\": 1e30}\n";
  t = torch_runtime(odd);
  ASSERT_EQ(t.matmuls.size(), 1u);
  EXPECT_FALSE(t.matmuls[0].tflops);
  EXPECT_FALSE(t.matmuls[0].size);
}

TEST(MlParse, TorchProgramIsOneLine) {
  EXPECT_EQ(formats::mlparse::torch_probe_program().find('\n'), std::string::npos);
  EXPECT_NE(formats::mlparse::torch_probe_program().find("AMDML_TORCH"), std::string::npos);
}

TEST(MlParse, DistInfoNames) {
  auto d = formats::mlparse::dist_info_name("rocm_sdk_device_gfx1151-7.14.1.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "rocm-sdk-device-gfx1151");
  EXPECT_EQ(d->version, "7.14.1");
  d = formats::mlparse::dist_info_name("amd_torch_device_gfx110x-2.12.0+rocm7.14.0.dist-info");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "amd-torch-device-gfx110x");
  EXPECT_EQ(d->version, "2.12.0+rocm7.14.0");
  EXPECT_EQ(formats::mlparse::dist_info_name("Rocm_SDK.Core-7.14.0.post1.dist-info")->name, "rocm-sdk-core");
  EXPECT_FALSE(formats::mlparse::dist_info_name("rocm_sdk_core"));
  EXPECT_FALSE(formats::mlparse::dist_info_name("-1.0.dist-info"));
  EXPECT_FALSE(formats::mlparse::dist_info_name("rocm-.dist-info"));
  EXPECT_FALSE(formats::mlparse::dist_info_name(".dist-info"));
}

TEST(MlParse, TheRockDistInfoTargets) {
  auto t = formats::mlparse::therock_dist_targets(R"({"dist_amdgpu_targets": "gfx1201;gfx1200;gfx1201"})");
  ASSERT_TRUE(t);
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0].name(), "gfx1200");
  t = formats::mlparse::therock_dist_targets(R"({"dist_amdgpu_targets": ["gfx1151", "gfx942:xnack-"]})");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->size(), 2u);
  EXPECT_FALSE(formats::mlparse::therock_dist_targets("{ not json"));
  EXPECT_FALSE(formats::mlparse::therock_dist_targets(R"(["gfx942"])"));
  EXPECT_FALSE(formats::mlparse::therock_dist_targets(R"({"other": 1})"));
  EXPECT_FALSE(formats::mlparse::therock_dist_targets(R"({"dist_amdgpu_targets": 3})"));
}

TEST(MlParse, PacmanDescFields) {
  const char* desc = "%NAME%\nrocm-core\n\n%VERSION%\n6.4.4-1\n\n%BASE%\nrocm-core\n";
  EXPECT_EQ(formats::mlparse::pacman_desc_field(desc, "VERSION").value_or(""), "6.4.4-1");
  EXPECT_EQ(formats::mlparse::pacman_desc_field(desc, "NAME").value_or(""), "rocm-core");
  EXPECT_FALSE(formats::mlparse::pacman_desc_field(desc, "URL"));
  EXPECT_FALSE(formats::mlparse::pacman_desc_field("%VERSION%\n", "VERSION"));
  EXPECT_FALSE(formats::mlparse::pacman_desc_field("%VERSION%\n\n6.4.4\n", "VERSION"));
}
