// The login-env-clear step's pure parts: turning lines into comments keeps every other
// byte, the hsa parameters name what gets in the way, the step is read from a recipe
// file and needs its files.
#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "formats/recipe_toml.hpp"

using namespace amdml;
using namespace amdml::fix;

TEST(FixLoginEnvClear, CommentsOutOnlyTheNamedLines) {
  const std::string text = "PATH=\"/usr/bin\"\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n# keep\n";
  EXPECT_EQ(comment_out_lines(text, {2}, "why"),
            "PATH=\"/usr/bin\"\n#HSA_OVERRIDE_GFX_VERSION=10.3.0   # why\n# keep\n");
  EXPECT_EQ(comment_out_lines(text, {}, "why"), text);
  // No final newline, and CRLF: both kept.
  EXPECT_EQ(comment_out_lines("A=1\nB=2", {2}, "w"), "A=1\n#B=2   # w");
  EXPECT_EQ(comment_out_lines("A=1\r\nB=2\r\n", {1}, "w"), "#A=1   # w\r\nB=2\r\n");
}

TEST(FixLoginEnvClear, HsaParamsNameWhatGetsInTheWay) {
  auto per_node = parse_hsa_params(HsaParams{std::nullopt, {{"2", "10.3.0"}}});
  ASSERT_TRUE(per_node);
  // Per-GPU values: the global variable would still reach the other GPUs.
  EXPECT_EQ(per_node->clear, (std::vector<std::string>{"HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_2"}));
  auto global = parse_hsa_params(HsaParams{"11.0.0", {}});
  ASSERT_TRUE(global);
  EXPECT_EQ(global->clear, (std::vector<std::string>{"HSA_OVERRIDE_GFX_VERSION"}));
}

TEST(FixLoginEnvClear, TheStepIsReadFromARecipeAndNeedsFiles) {
  const std::string head = "id = \"x\"\ntitle = \"t\"\nparams = \"hsa\"\n[[steps]]\nkind = \"login-env-clear\"\n";
  auto ok = formats::load_recipes({{"fixes/x.toml", head + "files = [\"/etc/environment\", \"/etc/profile.d/*.sh\"]\n"}});
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->front().steps.size(), 1u);
  EXPECT_EQ(kind_of(ok->front().steps[0]), StepKind::login_env_clear);
  EXPECT_EQ(std::get<LoginEnvClearStep>(ok->front().steps[0]).files.size(), 2u);
  auto none = formats::load_recipes({{"fixes/x.toml", head}});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("login-env-clear needs 'files'"), std::string::npos) << none.error().message;
}
