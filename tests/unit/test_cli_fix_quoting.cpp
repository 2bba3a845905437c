// The `amdml fix` lines that name amdml itself -- "To make these changes:", the JSON
// apply_command, the need-root message -- quote --root and --recipes like --python
// (issue 29 M12): played in a shell where nothing runs (support/shell_play.hpp), each
// gives amdml exactly the directories it was run with, blanks, quotes and $(...) in them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/shell_play.hpp"
#include "support/tree.hpp"

using namespace amdml::test;

namespace {

// The words amdml would get from `line`, which starts with "sudo amdml fix".
std::vector<std::string> amdml_argv(const std::string& line) {
  const Played p = play_command(line);
  EXPECT_EQ(p.sh_syntax, 0) << line;
  EXPECT_FALSE(p.called("amdml_pwned")) << line;
  EXPECT_EQ(p.calls.size(), 1u) << line;
  return p.calls.empty() ? std::vector<std::string>{} : p.calls[0].argv;
}

std::string line_after(const std::string& text, const std::string& marker) {
  auto at = text.find(marker);
  if (at == std::string::npos) return "";
  at += marker.size();
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST(CliFixQuoting, TheApplyCommandGivesAmdmlTheSameRootAndRecipes) {
  TestTree box;
  const std::string root = box.str() + "/a b'$(amdml_pwned 1)`amdml_pwned 2`;x";
  const std::string recipes = box.str() + "/my recipes $(amdml_pwned 3)";
  namespace fs = std::filesystem;
  fs::copy(fixture("user-not-in-render"), root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::copy(source_path("recipes"), recipes, fs::copy_options::recursive);
  const std::vector<std::string> want = {"amdml", "fix", "--apply", "--root", root, "--recipes", recipes, "--no-runtime"};

  auto plan = amdml_run({"fix", "--root", root, "--recipes", recipes, "--no-runtime", "--color", "never"});
  ASSERT_EQ(plan.code, 0) << plan.out << plan.err;
  EXPECT_EQ(amdml_argv(line_after(plan.out, "To make these changes: ")), want) << plan.out;

  auto json = amdml_run({"fix", "--root", root, "--recipes", recipes, "--no-runtime", "--format", "json"});
  ASSERT_EQ(json.code, 0) << json.out << json.err;
  EXPECT_EQ(amdml_argv(nlohmann::json::parse(json.out)["apply_command"].get<std::string>()), want);

  // The process in the tree is not root: --apply says what to run instead.
  auto apply = amdml_run({"fix", "--root", root, "--recipes", recipes, "--no-runtime", "--apply", "--yes"});
  EXPECT_EQ(apply.code, 4) << apply.out << apply.err;
  EXPECT_EQ(amdml_argv(line_after(apply.err, "Run:\n  ")), want) << apply.err;
}
