// `amdml doctor --format nfd -o FILE` when the run cannot start (issue 29 L6): the file
// is still replaced, withdrawing the usable label an earlier good run published -- as
// the Prometheus file then says amdml_run_success 0.
#include <gtest/gtest.h>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;

TEST(CliDoctorNfd, ARunThatCannotStartWithdrawsTheUsableLabel) {
  TestTree t;
  const std::string labels = t.str() + "/features.d-amdml";
  auto good = amdml_run({"doctor", "--root", fixture("rdna3-dgpu"), "--no-runtime", "--format", "nfd", "-o", labels});
  ASSERT_NE(read_file(labels).find("amd.com/gpu.count=1\n"), std::string::npos) << read_file(labels) << good.err;
  auto bad = amdml_run({"doctor", "--root", t.str() + "/no-such-root", "--format", "nfd", "-o", labels});
  EXPECT_EQ(bad.code, 2) << bad.err;
  const std::string text = read_file(labels);
  EXPECT_NE(text.find("\namd.com/gpu.usable=false\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("=true"), std::string::npos) << text;
  EXPECT_EQ(text.find("gpu.count"), std::string::npos) << text;
  EXPECT_TRUE(text.starts_with("# amdml doctor --format nfd could not run: ")) << text;
}
