// doctor --deep's torch child end to end against the fake torch (tests/fake_torch): a venv
// is built around it in a temporary directory (its site-packages named after this
// interpreter's version), the probes run live with --python pointing at it, and each
// scenario -- success, invalid device function, out of memory, a hang -- gives its
// finding with the real error text; the budget holds when the matmul hangs; the child
// writes nothing (no __pycache__ appears in the venv).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/cli.hpp"
#include "support/fixtures.hpp"
#include "support/live_probes.hpp"
#include "support/findings.hpp"

using namespace amdml;
namespace fs = std::filesystem;

namespace {

using test::find_finding;
using test::evidence_text;
// "3.11" for /usr/bin/python3, or "" when there is none.
std::string python_version(const std::string& python) {
  std::string out;
  if (FILE* p = ::popen((python + " -c 'import sys;print(\"%d.%d\"%sys.version_info[:2])' 2>/dev/null").c_str(), "r")) {
    char buf[64];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// A venv around tests/fake_torch/torch; removed when it ends.
class FakeTorchVenv {
 public:
  FakeTorchVenv() {
    const std::string python = "/usr/bin/python3";
    version_ = fs::exists(python) ? python_version(python) : "";
    if (version_.empty()) return;
    char tmpl[] = "/tmp/amdml-fake-torch-XXXXXX";
    if (!::mkdtemp(tmpl)) return;
    dir_ = tmpl;
    fs::create_directories(dir_ / "bin");
    fs::create_symlink(python, dir_ / "bin" / "python3");
    std::ofstream(dir_ / "pyvenv.cfg") << "home = /usr/bin\ninclude-system-site-packages = false\nversion = "
                                        << version_ << "\n";
    site_ = dir_ / "lib" / ("python" + version_) / "site-packages";
    fs::create_directories(site_);
    fs::copy(test::source_path("tests/fake_torch/torch"), site_ / "torch", fs::copy_options::recursive);
  }
  ~FakeTorchVenv() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  bool ok() const { return !dir_.empty(); }
  std::string prefix() const { return dir_.string(); }
  bool wrote_bytecode() const {
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.path().filename() == "__pycache__") return true;
    return false;
  }

 private:
  std::string version_;
  fs::path dir_, site_;
};

test::LiveRun doctor_with(const FakeTorchVenv& venv, const std::string& scenario, std::chrono::milliseconds budget) {
  test::ScopedEnv scoped({{"AMDML_FAKE_TORCH", scenario}, {"AMDML_HSA_LIBRARY", std::string("/nonexistent/libhsa.so")}});
  probes::ProbeOptions o;
  o.deep = true;
  o.deep_timeout = budget;
  o.runtime = false;  // the HSA steps are tested in test_probes_deep.cpp; here only torch's child
  o.python = venv.prefix();
  return test::run_live_probes(o);
}

const PythonEnv* env_at(const Facts& f, const std::string& prefix) {
  for (const auto& e : f.ml.python)
    if (e.prefix == prefix) return &e;
  return nullptr;
}

#define NEED_VENV(v) \
  if (!(v).ok()) GTEST_SKIP() << "needs /usr/bin/python3"

}  // namespace

TEST(DeepTorch, SuccessIsVerifiedWithTflops) {
  FakeTorchVenv venv;
  NEED_VENV(venv);
  auto r = doctor_with(venv, "ok", std::chrono::milliseconds(20000));
  const PythonEnv* env = env_at(r.facts, venv.prefix());
  ASSERT_TRUE(env && env->runtime) << r.facts.ml.python.size();
  ASSERT_EQ(env->runtime->matmuls.size(), 1u) << env->runtime->error.value_or("");
  const auto& m = env->runtime->matmuls[0];
  EXPECT_TRUE(m.ok);
  EXPECT_EQ(m.size, 2048);
  EXPECT_EQ(m.data_ok, true);
  ASSERT_TRUE(m.tflops);
  EXPECT_GT(*m.tflops, 0.0);
  const Finding* v = find_finding(r.findings, FindingId::deep_torch_verified);
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->title.find("2048x2048 float32 matrices on cuda:0 (AMD Radeon 780M, gfx1103) at "), std::string::npos)
      << v->title;
  EXPECT_EQ(find_finding(r.findings, FindingId::deep_torch_failed), nullptr);
  EXPECT_FALSE(venv.wrote_bytecode());
}

TEST(DeepTorch, InvalidDeviceFunctionNamesTheMissingGfx) {
  FakeTorchVenv venv;
  NEED_VENV(venv);
  auto r = doctor_with(venv, "invalid-device-function", std::chrono::milliseconds(20000));
  const Finding* fd = find_finding(r.findings, FindingId::deep_torch_no_gfx);
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->title.find("has no kernels for gfx1103"), std::string::npos) << fd->title;
  EXPECT_NE(fd->title.find("\"RuntimeError: HIP error: invalid device function\""), std::string::npos) << fd->title;
  EXPECT_NE(fd->detail.find("does not include it"), std::string::npos) << fd->detail;  // the fake's list lacks gfx1103
  EXPECT_NE(evidence_text(*fd).find("AMD_SERIALIZE_KERNEL=3"), std::string::npos)
      << evidence_text(*fd);  // the whole text
  EXPECT_EQ(find_finding(r.findings, FindingId::deep_torch_verified), nullptr);
  EXPECT_EQ(find_finding(r.findings, FindingId::torch_runtime), nullptr);  // the import itself was fine
}

TEST(DeepTorch, OutOfMemoryIsAFailureWithItsText) {
  FakeTorchVenv venv;
  NEED_VENV(venv);
  auto r = doctor_with(venv, "oom", std::chrono::milliseconds(20000));
  const Finding* fd = find_finding(r.findings, FindingId::deep_torch_failed);
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->title.find("ran out of GPU memory"), std::string::npos) << fd->title;
  EXPECT_NE(evidence_text(*fd).find("OutOfMemoryError: HIP out of memory. Tried to allocate 16.00 MiB"),
            std::string::npos)
      << evidence_text(*fd);
  EXPECT_EQ(find_finding(r.findings, FindingId::deep_torch_no_gfx), nullptr);
}

TEST(DeepTorch, TheBudgetHoldsWhenTheMatmulHangs) {
  FakeTorchVenv venv;
  NEED_VENV(venv);
  auto r = doctor_with(venv, "hang", std::chrono::milliseconds(3000));
  // The child is killed at what is left of the 3 s budget; the kill and the reap add little.
  EXPECT_LT(r.took.count(), 3000 + 2000);
  EXPECT_TRUE(r.facts.deep.budget_spent);
  const PythonEnv* env = env_at(r.facts, venv.prefix());
  ASSERT_TRUE(env && env->runtime);
  EXPECT_EQ(env->runtime->available, true);  // the import had answered before the hang
  ASSERT_EQ(env->runtime->matmuls.size(), 1u);
  EXPECT_TRUE(env->runtime->matmuls[0].timed_out);
  const Finding* fd = find_finding(r.findings, FindingId::deep_torch_failed);
  ASSERT_NE(fd, nullptr);
  EXPECT_NE(fd->title.find("never finished"), std::string::npos) << fd->title;
  EXPECT_EQ(find_finding(r.findings, FindingId::torch_runtime), nullptr);
}

TEST(DeepTorch, NoBudgetLeftStartsNoChild) {
  FakeTorchVenv venv;
  NEED_VENV(venv);
  auto r = doctor_with(venv, "hang", std::chrono::milliseconds(100));
  EXPECT_LT(r.took.count(), 2000);
  const PythonEnv* env = env_at(r.facts, venv.prefix());
  ASSERT_TRUE(env && env->runtime);
  EXPECT_FALSE(env->runtime->ran);
  EXPECT_NE(env->runtime->error->find("budget was spent"), std::string::npos);
  EXPECT_TRUE(r.facts.deep.budget_spent);
}

TEST(DeepTorch, UnavailableIsTorchRuntimeAndNoMatmul) {
  FakeTorchVenv venv;
  NEED_VENV(venv);
  auto r = doctor_with(venv, "unavailable", std::chrono::milliseconds(20000));
  const PythonEnv* env = env_at(r.facts, venv.prefix());
  ASSERT_TRUE(env && env->runtime);
  EXPECT_EQ(env->runtime->available, false);
  EXPECT_TRUE(env->runtime->matmuls.empty());
  EXPECT_EQ(find_finding(r.findings, FindingId::deep_torch_verified), nullptr);
  EXPECT_EQ(find_finding(r.findings, FindingId::deep_torch_failed), nullptr);
}
