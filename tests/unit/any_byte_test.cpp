// Every output survives any byte (issue 17, items 4 and 10): a fixture machine whose
// files hold Latin-1 bytes and terminal escapes. JSON documents stay valid (invalid
// UTF-8 becomes U+FFFD, control characters are JSON escapes), and text on the terminal
// never carries a raw control character from the machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"
#include "test_tree.hpp"

using namespace amdml::test;
using nlohmann::json;

namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// A copy of a fixture machine the test may change.
void copy_fixture(const TestTree& t, const std::string& machine) {
  std::filesystem::copy(fixture(machine), t.root(),
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks |
                            std::filesystem::copy_options::overwrite_existing);
}

void replace_in(const TestTree& t, const std::string& inner, const std::string& from, const std::string& to) {
  std::string text = slurp(t.real(inner));
  auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << inner << " has no " << from;
  text.replace(at, from.size(), to);
  t.write(inner, text);
}

ShellRun amdml_on(const TestTree& t, std::vector<std::string> args) {
  args.insert(args.begin(), {"--root", t.root(), "--color", "never"});
  return shell_run(amdml_command(args));
}

}  // namespace

// rdna2-dgpu with a Latin-1 byte in /etc/os-release's PRETTY_NAME, in a KFD sysfs value
// and in the ROCm version file.
TEST(AnyByte, JsonDocumentsSurviveLatin1Bytes) {
  TestTree t;
  copy_fixture(t, "rdna2-dgpu");
  replace_in(t, "etc/os-release", "22.04.4 LTS\"", "22.04.4 LTS \xE9" "dition\"");
  replace_in(t, "sys/class/kfd/kfd/topology/nodes/1/name", "sienna_cichlid", "sienna_cichlid\xE9");
  replace_in(t, "opt/rocm-6.2.4/.info/version", "6.2.4-120", "6.2.4-120\xE9");
  for (const std::string cmd : {"doctor", "check", "report", "info"}) {
    ShellRun r = amdml_on(t, {cmd, "--format", "json"});
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << cmd << ": not one JSON document: " << r.out.substr(0, 300);
    EXPECT_NE(r.out.find("6.2.4-120" + kReplacement), std::string::npos) << cmd;
    if (cmd == "info") continue;  // info has no host or facts section
    EXPECT_EQ(doc["host"]["os"]["pretty_name"], "Ubuntu 22.04.4 LTS " + kReplacement + "dition") << cmd;
    EXPECT_EQ(doc["facts"]["kfd"]["nodes"][1]["name"], "sienna_cichlid" + kReplacement) << cmd;
  }
  // The snapshot's manifest is written by the same writer.
  ShellRun r = amdml_on(t, {"snapshot", t.real("snap")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(json::parse(slurp(t.real("snap/amdml-host.json")), nullptr, false).is_discarded());
}
