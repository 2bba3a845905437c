// `amdml check` and `amdml doctor --ci` end to end: the binary against the container
// fixtures -- every expectation passing and failing, usage errors, the one-line reasons
// on stderr, JSON that parses, and JUnit that validates against tests/schema/junit.xsd.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"

using namespace amdml::test;

namespace {

std::string temp_path(const std::string& tag) {
  return ::testing::TempDir() + "amdml_check_" + std::to_string(::getpid()) + "_" + tag;
}

CliRun amdml_on(const std::string& machine, std::vector<std::string> args) {
  if (!machine.empty()) args.insert(args.begin(), {"--root", fixture(machine)});
  return amdml_run(args);
}

bool have_xmllint() { return have_tool("xmllint"); }

// xmllint's verdict on a document, "" when it validates.
std::string junit_problems(const std::string& xml) {
  std::string path = temp_path("junit.xml");
  std::ofstream(path) << xml;
  CliRun r = shell_run("xmllint --noout --schema " + sh_quote(source_path("tests/schema/junit.xsd")) + " " +
                sh_quote(path));
  std::remove(path.c_str());
  return r.code == 0 ? "" : r.err;
}

const std::vector<std::string> kPassing = {"check",     "--expect-gpus", "1",       "--expect-gfx", "gfx1100",
                                           "--min-vram", "16GiB",         "--min-gtt", "16GiB",        "--rocm",
                                           ">=6.4",      "--require",     "runtime"};

}  // namespace

TEST(CheckCli, CorrectContainerPassesEveryExpectation) {
  CliRun r = amdml_on("container-ok", kPassing);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("✓ expect-gpus 1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("✓ rocm >=6.4\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("✓ require runtime\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: passed"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(CheckCli, EachExpectationCanFail) {
  struct Case {
    std::vector<std::string> args;
    std::string line;  // the failed expectation's line in the text report
    int failed = 1;
    std::string machine = "container-ok";
  } cases[] = {
      {{"--expect-gpus", "2"}, "✗ expect-gpus 2: expected 2 GPUs, ROCm can use 1\n"},
      {{"--expect-gfx", "gfx942"}, "✗ expect-gfx gfx942: no usable GPU is gfx942 (found: gfx1100 on GPU 0)\n",
       2},  // and "expect-gfx: no other targets"
      // (the label's name part comes from the knowledge base)
      {{"--min-vram", "32GiB"}, "✗ min-vram 32 GiB: GPU 0 ("},
      {{"--min-gtt", "64GiB"}, "✗ min-gtt 64 GiB: GPU 0 ("},
      {{"--rocm", ">=6.2,<6.4"}, "✗ rocm >=6.2,<6.4: ROCm 6.4.1 does not satisfy <6.4\n"},
      {{"--require", "runtime"},
       "✗ require runtime: the HSA runtime was not asked (--no-runtime, or nothing recorded under --root)\n", 1,
       "host-docker"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"check"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CliRun r = amdml_on(c.machine, args);
    EXPECT_EQ(r.code, 1) << c.args[0];
    EXPECT_NE(r.out.find("  " + c.line), std::string::npos) << c.args[0] << "\n" << r.out;
    EXPECT_NE(r.out.find("check: FAILED (" + std::to_string(c.failed) + " failed"), std::string::npos) << c.args[0];
  }
  CliRun vram = amdml_on("container-ok", {"check", "--min-vram", "32GiB"});
  EXPECT_NE(vram.out.find(", 0000:23:00.0) has 24 GiB VRAM, less than 32 GiB\n"), std::string::npos) << vram.out;
  CliRun gtt = amdml_on("container-ok", {"check", "--min-gtt", "64GiB"});
  EXPECT_NE(gtt.out.find(", 0000:23:00.0) has 31.4 GiB GTT, less than 64 GiB\n"), std::string::npos) << gtt.out;
}

TEST(CheckCli, UsageErrorsExitTwo) {
  std::vector<std::vector<std::string>> bad = {
      {"check", "--min-vram", "12QB"},        {"check", "--min-gtt", "lots"},
      {"check", "--rocm", "6.4"},             {"check", "--rocm", ">=six"},
      {"check", "--expect-gfx", "gfxZZZ"},    {"check", "--expect-gpus", "-1"},
      {"check", "--require", "gpu"},          {"check", "--format", "xml"},
      {"check", "--require", "runtime", "--no-runtime"}, {"doctor", "--ci", "--format", "markdown"},
  };
  for (const auto& args : bad) {
    CliRun r = amdml_on("container-ok", args);
    EXPECT_EQ(r.code, 2) << args[1] << " " << args[2];
    EXPECT_NE(r.err.find("amdml: error: "), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << args[1];  // nothing half-written
  }
}

TEST(CheckCli, FailuresGoToStderrOneLineEachWhenStdoutIsADocument) {
  std::string file = temp_path("report.xml");
  CliRun r = amdml_on("container-gid-mismatch", {"check", "--expect-gpus", "2", "--format", "junit", "--output", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "amdml: check failed: container.gid: The container's process is not in the group that owns the GPU devices\n"
            "amdml: check failed: expect-gpus 2: expected 2 GPUs, ROCm can use 1\n");
  std::string xml = read_file(file);
  std::remove(file.c_str());
  EXPECT_NE(xml.find("<testcase classname=\"amdml.doctor\" name=\"container.gid\">"), std::string::npos);
  EXPECT_NE(xml.find("--group-add 109"), std::string::npos);
  if (have_xmllint()) {
    EXPECT_EQ(junit_problems(xml), "");
  }
}

TEST(CheckCli, JunitValidatesForEveryContainerFixture) {
  if (!have_xmllint()) GTEST_SKIP() << "xmllint (libxml2-utils) is not installed";
  for (const char* m : {"container-ok", "container-gid-mismatch", "container-podman-rootless", "container-nodev-podman",
                        "container-nosysfs", "host-docker"}) {
    CliRun r = amdml_on(m, {"check", "--format", "junit", "--expect-gpus", "1", "--expect-gfx", "gfx1100", "--min-vram",
                      "8GiB", "--rocm", ">=6.4", "--strict"});
    EXPECT_TRUE(r.code == 0 || r.code == 1) << m << r.err;
    EXPECT_TRUE(r.out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ")) << m;
    EXPECT_EQ(junit_problems(r.out), "") << m;
  }
  // The gate's verdict is in the document: the correct container has no failure element.
  CliRun ok = amdml_on("container-ok", {"check", "--format", "junit", "--expect-gpus", "1"});
  EXPECT_EQ(ok.code, 0);
  EXPECT_EQ(ok.out.find("<failure"), std::string::npos);
  EXPECT_NE(ok.out.find("<testsuites name=\"amdml check\" tests=\""), std::string::npos);
  EXPECT_NE(ok.out.find("failures=\"0\""), std::string::npos);
}

TEST(CheckCli, StartupFailureStillWritesAValidDocument) {
  CliRun j = amdml_on("does-not-exist", {"check", "--format", "junit"});
  EXPECT_EQ(j.code, 2);
  EXPECT_NE(j.out.find("<failure type=\"startup\""), std::string::npos);
  if (have_xmllint()) {
    EXPECT_EQ(junit_problems(j.out), "");
  }
  CliRun js = amdml_on("does-not-exist", {"check", "--format", "json"});
  EXPECT_EQ(js.code, 2);
  auto doc = nlohmann::json::parse(js.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_TRUE(doc.contains("error"));
}

TEST(CheckCli, JsonIsTheDoctorDocumentPlusCheck) {
  CliRun r = amdml_on("container-gid-mismatch", {"check", "--format", "json", "--min-vram", "16GiB"});
  EXPECT_EQ(r.code, 1);
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["schema"], "amdml.doctor/1");
  EXPECT_EQ(doc["host"]["container"], "docker");
  EXPECT_EQ(doc["gpus"].size(), 1u);
  EXPECT_EQ(doc["check"]["passed"], false);
  EXPECT_EQ(doc["check"]["counts"]["failed"], 1);
  bool vram_passed = false;
  for (const auto& c : doc["check"]["cases"])
    if (c["name"] == "min-vram 16 GiB") vram_passed = c["status"] == "passed";
  EXPECT_TRUE(vram_passed);
  EXPECT_EQ(doc["facts"]["container"]["rootless"], false);
  EXPECT_EQ(doc["facts"]["container"]["user_namespace"], false);
}

TEST(CheckCli, DoctorCiIsTheGateWithoutColour) {
  CliRun ok = amdml_on("container-ok", {"--color", "always", "doctor", "--ci"});
  EXPECT_EQ(ok.code, 0);
  EXPECT_EQ(ok.out.find('\033'), std::string::npos);
  EXPECT_NE(ok.out.find("\nChecks\n"), std::string::npos);
  CliRun bad = amdml_on("container-podman-rootless", {"doctor", "--ci"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("✗ container.rootless: "), std::string::npos);
  // Two runs, same bytes: no timestamps, stable order.
  CliRun again = amdml_on("container-podman-rootless", {"doctor", "--ci", "--format", "junit"});
  CliRun again2 = amdml_on("container-podman-rootless", {"doctor", "--ci", "--format", "junit"});
  EXPECT_EQ(again.out, again2.out);
  if (have_xmllint()) {
    EXPECT_EQ(junit_problems(again.out), "");
  }
}

TEST(CheckCli, StrictFailsOnWarningsNotOnInfos) {
  // host-docker has one info finding (container.host-docker): strict still passes.
  CliRun info = amdml_on("host-docker", {"check", "--strict"});
  EXPECT_EQ(info.code, 0) << info.out;
  // The correct container without its ROCm: rocm.missing is a warning.
  std::string root = temp_path("norocm");
  ASSERT_EQ(shell_run("cp -r " + sh_quote(fixture("container-ok")) + " " + sh_quote(root) +
                  " && rm -rf " + sh_quote(root + "/opt"))
                .code,
            0);
  std::string bin = sh_quote(AMDML_BINARY) + " --root " + sh_quote(root) + " check";
  CliRun lax = shell_run(bin);
  CliRun strict = shell_run(bin + " --strict");
  shell_run("rm -rf " + sh_quote(root));
  EXPECT_EQ(lax.code, 0) << lax.out;
  EXPECT_EQ(strict.code, 1) << strict.out;
  EXPECT_NE(strict.out.find("✗ rocm.missing: "), std::string::npos) << strict.out;
}
