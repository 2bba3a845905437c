// Flags every probing command shares, and `doctor --list` as a document (issue 17, low
// items): --runtime-timeout takes only a finite number of seconds in range; `doctor
// --list --format json` prints JSON, not text.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"

using namespace amdml::test;

TEST(CliFlags, RuntimeTimeoutMustBeAFiniteNumberInRange) {
  const std::string never = ::testing::TempDir() + "amdml-never-written-" + std::to_string(::getpid());
  const std::vector<std::vector<std::string>> commands = {
      {"doctor"}, {"doctor", "--format", "json"}, {"info"}, {"check"}, {"report"}, {"snapshot", never}};
  for (const auto& cmd : commands)
    for (const std::string bad : {"nan", "-nan", "NaN", "inf", "-inf", "0", "-1", "0.05", "601", "1e9", "ten", ""}) {
      std::vector<std::string> args = {"--root", fixture("rdna2-dgpu"), "--color", "never"};
      args.insert(args.end(), cmd.begin(), cmd.end());
      args.insert(args.end(), {"--runtime-timeout", bad});
      CliRun r = shell_run(amdml_command(args));
      std::string what = cmd[0] + " --runtime-timeout '" + bad + "'";
      EXPECT_EQ(r.code, 2) << what << ": " << r.err;
      EXPECT_EQ(r.out, "") << what;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
      EXPECT_NE(r.err.find("--runtime-timeout"), std::string::npos) << what << ": " << r.err;
    }
  EXPECT_FALSE(std::filesystem::exists(never));
  std::filesystem::remove_all(never);
  for (const std::string good : {"0.1", "2.5", "600"}) {
    CliRun r = shell_run(amdml_command({"--root", fixture("rdna2-dgpu"), "doctor", "--runtime-timeout", good}));
    EXPECT_EQ(r.code, 0) << good << ": " << r.err;
  }
}

TEST(CliFlags, DoctorListAsJson) {
  CliRun r = shell_run(amdml_command({"doctor", "--list", "--format", "json"}));
  EXPECT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out.substr(0, 200);
  EXPECT_EQ(doc["schema"], "amdml.list/1");
  ASSERT_TRUE(doc["probes"].is_array());
  ASSERT_TRUE(doc["findings"].is_array());
  // The same entries as the text list, one line each.
  std::string text = shell_run(amdml_command({"doctor", "--list"})).out;
  for (const auto& p : doc["probes"]) {
    ASSERT_TRUE(p["name"].is_string() && p["what"].is_string()) << p;
    EXPECT_NE(text.find("  " + p["name"].get<std::string>() + " "), std::string::npos) << p;
  }
  bool gpu_none = false;
  for (const auto& f : doc["findings"]) {
    ASSERT_TRUE(f["id"].is_string() && f["severity"].is_string() && f["summary"].is_string()) << f;
    EXPECT_NE(text.find("  " + f["id"].get<std::string>() + " "), std::string::npos) << f;
    if (f["id"] == "gpu.none") gpu_none = f["severity"] == "error";
  }
  EXPECT_TRUE(gpu_none);
  EXPECT_EQ(doc["probes"].size() + doc["findings"].size() + 3,
            static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
}

// --recipes DIR: a key the knowledge tables do not know is an error naming the file and
// line (a typo would otherwise leave the entry silently without it), exit 2.
TEST(CliFlags, RecipesWithAnUnknownKnowledgeKeyFailNamingFileAndLine) {
  const std::string dir = "/tmp/amdml-recipes-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir + "/knowledge");
  {
    std::ofstream f(dir + "/knowledge/gfx.toml");
    f << "[[gfx]]\ntarget = \"gfx1030\"\nkfd_version = 100300\nisa = \"rdna2\"\noverride_to = \"10.3.0\"\n";
  }
  auto r = amdml::test::shell_run(
      amdml::test::amdml_command({"doctor", "--recipes", dir, "--root", amdml::test::fixture("rdna2-dgpu")}));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "amdml: error: recipes/knowledge/gfx.toml:5: unknown key 'override_to' in [[gfx]]\n");
}

// Every flag a command's --help lists is documented in the README: the help text is the
// parser's own, so a flag added without its README line fails here.
TEST(CliFlags, EveryFlagInHelpIsInTheReadme) {
  const std::string readme = read_file(std::filesystem::path(AMDML_SOURCE_DIR) / "README.md");
  ASSERT_FALSE(readme.empty());
  std::set<std::string> flags;
  for (const std::string cmd : {"", "doctor", "snapshot", "report", "explain", "info", "fix", "check", "update"}) {
    std::vector<std::string> args;
    if (!cmd.empty()) args.push_back(cmd);
    args.push_back("--help");
    CliRun r = shell_run(amdml_command(args));
    ASSERT_EQ(r.code, 0) << cmd << ": " << r.err;
    std::size_t before = flags.size();
    // CLI11 lists an option as "  --name ..." or "  -o,--name ...", one per line.
    static const std::regex option_line(R"(^ +(?:-[A-Za-z],)?(--[a-z0-9][a-z0-9-]*))");
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
      if (std::smatch m; std::regex_search(line, m, option_line)) flags.insert(m[1]);
    EXPECT_GT(flags.size() + (cmd.empty() ? 0 : 1), before) << cmd << " --help lists no flag";
  }
  flags.erase("--help");
  EXPECT_GT(flags.size(), 30u);
  for (const auto& f : flags) EXPECT_NE(readme.find("`" + f), std::string::npos) << f << " is not in README.md";
}
