// `amdml check --target` on an image tree whose kernel files were tampered with, and
// the one-line failure reasons with hostile values (issue 29 L4, L5).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/text.hpp"
#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::test;

namespace {

std::string case_status(const nlohmann::json& doc, const std::string& name) {
  for (const auto& c : doc["check"]["cases"])
    if (c["name"] == name) return c["status"].get<std::string>();
  return "absent";
}

}  // namespace

// L4: an image whose gfx1100 rocBLAS files were deleted fails for gfx1100, whatever else
// in the directory names the target: a README, editor and backup copies, a directory.
TEST(CliCheckImage, OnlyRealKernelFilesCountForATarget) {
  namespace fs = std::filesystem;
  TestTree t("images/rocm-dev-ubuntu-24.04");
  const fs::path lib = t / "opt/rocm-6.4.1/lib/rocblas/library";
  auto run = [&] {
    auto r = amdml_run({"check", "--root", t.str(), "--target", "gfx1100", "--format", "json"});
    return nlohmann::json::parse(r.out);
  };
  ASSERT_EQ(case_status(run(), "gfx1100 rocBLAS"), "passed");
  for (const auto& e : fs::directory_iterator(lib))
    if (e.path().filename().string().find("gfx1100") != std::string::npos) fs::remove(e.path());
  write_file(lib / "README-gfx1100.txt", "kernels for gfx1100 were here\n");
  write_file(lib / "TensileLibrary_lazy_gfx1100.dat.bak", "x");
  write_file(lib / ".TensileLibrary_lazy_gfx1100.dat.swp", "x");
  fs::create_directories(lib / "TensileLibrary_lazy_gfx1100.dat");
  fs::create_directories(lib / "Kernels.so-000-gfx1100.hsaco");
  EXPECT_EQ(case_status(run(), "gfx1100 rocBLAS"), "failed");
  EXPECT_EQ(case_status(run(), "gfx1101 rocBLAS"), "absent");  // only the target asked for
}

// L5: a value with a newline (the image's HSA_OVERRIDE_GFX_VERSION) cannot add a line of
// its own to the one-line reasons: not on stdout with --quiet, not on stderr.
TEST(CliCheckImage, FailureLinesStayOneLineWhateverTheValueHolds) {
  TestTree t("images/rocm-dev-ubuntu-24.04");
  auto doc = nlohmann::json::parse(read_file(t / "amdml-host.json"));
  doc["env"]["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0\namdml: check passed: everything\r\x1b[2K\t";
  write_file(t / "amdml-host.json", doc.dump(2));
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"check", "--root", t.str(), "--target", "gfx1100", "--quiet"},
           {"check", "--root", t.str(), "--target", "gfx1100", "--format", "json"},
           {"check", "--root", t.str(), "--target", "gfx1100"}}) {
    auto r = amdml_run(args);
    SCOPED_TRACE(args.back());
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    for (const auto* stream : {&r.out, &r.err})
      for (auto line : text::split_lines(*stream)) EXPECT_FALSE(line.starts_with("amdml: check passed")) << line;
    EXPECT_EQ((r.out + r.err).find('\x1b'), std::string::npos);
    EXPECT_EQ((r.out + r.err).find('\r'), std::string::npos);
    int failed = 0;
    for (auto line : text::split_lines(args.back() == "--quiet" ? r.out : r.err)) {
      if (line.empty()) continue;
      EXPECT_TRUE(line.starts_with("amdml: ")) << line;
      failed += line.find("HSA_OVERRIDE_GFX_VERSION") != std::string::npos;
    }
    if (args.back() != "gfx1100") {
      EXPECT_GE(failed, 1) << r.out << r.err;
    }
  }
}
