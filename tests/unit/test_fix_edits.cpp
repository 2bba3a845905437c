// The fix engine's pure parts with literal inputs: group and modprobe edits, env
// files, diffs, parameter checks, the recipe table.
#include <gtest/gtest.h>

#include "fix/fix.hpp"
#include "support/knowledge.hpp"
#include "formats/fix_params_json.hpp"
#include "formats/recipe_toml.hpp"
#include "render/fix_text.hpp"
#include "platform/recipes_dir.hpp"
#include "fix/edits.hpp"
#include "formats/systemd_unit.hpp"
#include "fix/params.hpp"

using namespace amdml;
using namespace amdml::fix;
using amdml::test::params_json;

TEST(FixGroupEdit, AddsToEmptyAndExistingMemberLists) {
  std::string in = "root:x:0:\nvideo:x:44:bob\nrender:x:992:\nalice:x:1000:\n";
  auto e = add_group_members(in, "alice", {"render", "video"});
  EXPECT_EQ(e.text, "root:x:0:\nvideo:x:44:bob,alice\nrender:x:992:alice\nalice:x:1000:\n");
  EXPECT_EQ(e.added, (std::vector<std::string>{"video", "render"}));
  EXPECT_TRUE(e.missing.empty());
  // Again: nothing changes.
  auto again = add_group_members(e.text, "alice", {"render", "video"});
  EXPECT_EQ(again.text, e.text);
  EXPECT_TRUE(again.added.empty());
  EXPECT_EQ(again.already.size(), 2u);
}

TEST(FixGroupEdit, KeepsEverythingElseByteForByte) {
  // CRLF line, NIS compat entry, a comment, no final newline, a near-miss name.
  std::string in = "# local groups\r\nrender:x:992:\r\n+nisgroup\nrenderx:x:1:\nrender2:x:5:al";
  auto e = add_group_members(in, "al", {"render"});
  EXPECT_EQ(e.text, "# local groups\r\nrender:x:992:al\r\n+nisgroup\nrenderx:x:1:\nrender2:x:5:al");
  auto none = add_group_members(in, "al", {"nosuch"});
  EXPECT_EQ(none.text, in);
  EXPECT_EQ(none.missing, std::vector<std::string>{"nosuch"});
}

TEST(FixGroupEdit, GshadowMembersAreTheFourthFieldToo) {
  auto e = add_group_members("render:!:admin:bob\n", "alice", {"render"});
  EXPECT_EQ(e.text, "render:!:admin:bob,alice\n");
}

TEST(FixModprobeEdit, EditsTheValueAndKeepsCommentsAndOtherLines) {
  std::string in =
      "# Raised by hand\n"
      "# options ttm pages_limit=1048576\n"
      "options ttm pages_limit=3145728   # old value\n"
      "options amdgpu gttsize=8192\n"
      "garbage here\n";
  auto e = set_modprobe_options(in, "ttm", {{"pages_limit", "25165824"}});
  EXPECT_EQ(e.text,
            "# Raised by hand\n"
            "# options ttm pages_limit=1048576\n"
            "options ttm pages_limit=25165824   # old value\n"
            "options amdgpu gttsize=8192\n"
            "garbage here\n");
  EXPECT_EQ(e.found, std::vector<std::string>{"pages_limit"});
  EXPECT_EQ(e.last_line, 3);
  EXPECT_EQ(append_modprobe_options(e.text, 3, "page_pool_size=25165824"),
            "# Raised by hand\n"
            "# options ttm pages_limit=1048576\n"
            "options ttm pages_limit=25165824 page_pool_size=25165824   # old value\n"
            "options amdgpu gttsize=8192\n"
            "garbage here\n");
}

TEST(FixModprobeEdit, ModuleNamesCompareDashAndUnderscoreAndOnlyTheModule) {
  auto e = set_modprobe_options("options amd-ttm pages_limit=1\noptions ttm pages_limit=2\n", "amd_ttm", {{"pages_limit", "9"}});
  EXPECT_EQ(e.text, "options amd-ttm pages_limit=9\noptions ttm pages_limit=2\n");
  auto none = set_modprobe_options("options amdttm pages_limit=1\n", "ttm", {{"pages_limit", "9"}});
  EXPECT_TRUE(none.found.empty());
  EXPECT_EQ(none.text, "options amdttm pages_limit=1\n");
}

TEST(FixModprobeEdit, FollowsContinuationLines) {
  std::string in = "options ttm \\\n  page_pool_size=1 \\\n  pages_limit=2\nblacklist x\n";
  auto e = set_modprobe_options(in, "ttm", {{"pages_limit", "7"}, {"page_pool_size", "8"}});
  EXPECT_EQ(e.text, "options ttm \\\n  page_pool_size=8 \\\n  pages_limit=7\nblacklist x\n");
  EXPECT_EQ(e.found.size(), 2u);
}

TEST(FixEnvFile, RendersEachFormatWithTheOwnMarker) {
  EnvSettings env;
  env.set = {{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}};
  env.unset = {"OLD"};
  auto sh = render_env_file(EnvFormat::profile_sh, "hsa-override", env);
  EXPECT_TRUE(sh.starts_with(kOwnMarker));
  EXPECT_NE(sh.find("\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\n"), std::string::npos);
  auto d = render_env_file(EnvFormat::environment_d, "hsa-override", env);
  EXPECT_NE(d.find("\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n"), std::string::npos);
  auto unit = render_env_file(EnvFormat::systemd_dropin, "ollama-override", env);
  EXPECT_NE(unit.find("[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=11.0.0\"\nUnsetEnvironment=OLD\n"), std::string::npos);
  // The unit codec reads back what was rendered, as systemd would.
  namespace su = formats::systemd_unit;
  auto parsed = su::merge_service({su::parse_unit_text(unit, "/etc/systemd/system/ollama.service.d/90-amdml.conf")});
  EXPECT_TRUE(parsed.issues.empty());
  EXPECT_EQ(parsed.environment.at("HSA_OVERRIDE_GFX_VERSION").value, "11.0.0");
  EXPECT_EQ(parsed.unset_environment, std::vector<std::string>{"OLD"});
}

TEST(FixDiff, ShowsChangesWithContextAndNewFiles) {
  EXPECT_EQ(render::unified_diff("/etc/x", std::string("a\n"), "a\n"), "");
  EXPECT_EQ(render::unified_diff("/etc/x", std::nullopt, "one\ntwo\n"), "--- /dev/null\n+++ b/etc/x\n@@ -0,0 +1,2 @@\n+one\n+two\n");
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string after = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
  EXPECT_EQ(render::unified_diff("/etc/x", before, after),
            "--- a/etc/x\n+++ b/etc/x\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
  auto nl = render::unified_diff("/etc/x", std::string("a"), "a\n");
  EXPECT_NE(nl.find("\\ No newline at end of file"), std::string::npos);
}

namespace {

Facts facts_with(std::uint64_t ram_bytes) {
  Facts f;
  f.memory.total = Bytes{ram_bytes};
  f.identity.passwd = {{"root", 0, 0, "/root", "/bin/sh"}, {"alice", 1000, 1000, "/home/alice", "/bin/bash"},
                       {"toor", 0, 0, "/root", "/bin/sh"}};
  return f;
}

}  // namespace

TEST(FixParams, TtmRefusesNonsense) {
  Facts f = facts_with(32 * kGiB);
  EXPECT_TRUE(parse_ttm_params(params_json({{"module", "ttm"}, {"pages_limit", 6291456}}), f));
  EXPECT_TRUE(parse_ttm_params(params_json({{"module", "amdttm"}, {"pages_limit", 6291456}, {"page_pool_size", 6291456}}), f));
  EXPECT_FALSE(parse_ttm_params(params_json({{"module", "ttm"}, {"pages_limit", 8388609}}), f));  // > 32 GiB of RAM
  EXPECT_FALSE(parse_ttm_params(params_json({{"module", "ttm"}, {"pages_limit", 100}}), f));      // 400 KiB
  // Not a page count at all: the JSON form does not even read back.
  EXPECT_FALSE(formats::parse_fix_params({{"module", "ttm"}, {"pages_limit", -5}}));
  EXPECT_FALSE(formats::parse_fix_params({{"module", "ttm"}, {"pages_limit", "6291456"}}));
  EXPECT_FALSE(parse_ttm_params(params_json({{"module", "radeon"}, {"pages_limit", 6291456}}), f));
  EXPECT_FALSE(parse_ttm_params(params_json({{"module", "ttm"}}), f));
  EXPECT_FALSE(parse_ttm_params(params_json({{"module", "ttm"}, {"pages_limit", 6291456}, {"page_pool_size", 9999999999}}), f));
  Facts unknown;
  EXPECT_FALSE(parse_ttm_params(params_json({{"module", "ttm"}, {"pages_limit", 6291456}}), unknown));
}

TEST(FixParams, HsaValuesAndNodes) {
  auto g = parse_hsa_params(params_json({{"value", "11.0.0"}}));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->set.at(0), (std::pair<std::string, std::string>{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}));
  auto n = parse_hsa_params(params_json({{"per_node", {{"2", "10.3.0"}, {"1", "11.0.0"}}}}));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->set.at(0).first, "HSA_OVERRIDE_GFX_VERSION_1");
  EXPECT_EQ(n->set.at(1).first, "HSA_OVERRIDE_GFX_VERSION_2");
  for (const char* bad : {"\"11.0.0\"", "11.0", "gfx1100", "11.0.0; rm -rf /", "64.0.0", "11.0.0\n"})
    EXPECT_FALSE(parse_hsa_params(params_json({{"value", bad}}))) << bad;
  EXPECT_FALSE(parse_hsa_params(params_json({{"value", "11.0.0"}, {"per_node", {{"1", "11.0.0"}}}})));
  EXPECT_FALSE(parse_hsa_params(params_json({{"per_node", {{"x", "11.0.0"}}}})));
  EXPECT_FALSE(parse_hsa_params(HsaParams{}));
  // shell_unset names variables of the override family only; the files do not carry it.
  auto u = parse_hsa_params(HsaParams{"11.0.0", {}, {"HSA_OVERRIDE_GFX_VERSION_1"}});
  ASSERT_TRUE(u);
  EXPECT_EQ(u->set, g->set);
  EXPECT_TRUE(u->unset.empty());
  EXPECT_TRUE(parse_hsa_params(HsaParams{std::nullopt, {{"1", "11.0.0"}}, {"HSA_OVERRIDE_GFX_VERSION"}}));
  for (const char* bad : {"PATH", "HSA_OVERRIDE_GFX_VERSION_", "HSA_OVERRIDE_GFX_VERSION_1x", "HSA_OVERRIDE_GFX_VERSIONS",
                          "HSA_OVERRIDE_GFX_VERSION_1; id", ""})
    EXPECT_FALSE(parse_hsa_params(HsaParams{"11.0.0", {}, {bad}})) << bad;
}

TEST(FixParams, EnvRefusesWhatWouldBreakAFile) {
  EXPECT_TRUE(parse_env_params("ollama-override", params_json({{"env", {{"OLLAMA_IGPU_ENABLE", "1"}}}})));
  EXPECT_TRUE(parse_env_params("ollama-override", params_json({{"unset", {"HSA_OVERRIDE_GFX_VERSION"}}})));
  for (const char* bad : {"a b", "x\"y", "x\ny", "$(id)", "x;y", "%n", ""})
    EXPECT_FALSE(parse_env_params("ollama-override", params_json({{"env", {{"OLLAMA_X", bad}}}}))) << bad;
  EXPECT_FALSE(parse_env_params("ollama-override", params_json({{"env", {{"BAD NAME", "1"}}}})));
  EXPECT_FALSE(parse_env_params("ollama-override", params_json({{"env", {{"A", "1"}}}, {"unset", {"A"}}})));
  EXPECT_FALSE(parse_env_params("ollama-override", params_json({{"env", {{"HSA_OVERRIDE_GFX_VERSION", "gfx1100"}}}})));
  EXPECT_FALSE(parse_env_params("ollama-override", EnvParams{}));
}

TEST(FixParams, GroupsNeverRootAndOnlyKnownUsers) {
  Facts f = facts_with(8 * kGiB);
  EXPECT_TRUE(parse_groups_params(params_json({{"user", "alice"}, {"groups", {"render", "video"}}}), f));
  EXPECT_FALSE(parse_groups_params(params_json({{"user", "root"}, {"groups", {"render"}}}), f));
  EXPECT_FALSE(parse_groups_params(params_json({{"user", "toor"}, {"groups", {"render"}}}), f));  // uid 0 by another name
  EXPECT_FALSE(parse_groups_params(params_json({{"user", "mallory"}, {"groups", {"render"}}}), f));
  EXPECT_FALSE(parse_groups_params(params_json({{"user", "alice"}, {"groups", {"render:x"}}}), f));
  EXPECT_FALSE(parse_groups_params(params_json({{"user", "alice"}, {"groups", nlohmann::json::array()}}), f));
  EXPECT_FALSE(parse_groups_params(params_json({{"user", "al:ice"}, {"groups", {"render"}}}), f));
}

TEST(FixRecipes, TheEmbeddedTableHasThePinnedIds) {
  auto files = platform::recipe_files("");
  ASSERT_TRUE(files);
  auto r = formats::load_recipes(*files);
  ASSERT_TRUE(r) << r.error().message;
  std::vector<std::string> ids;
  for (const auto& x : *r) ids.push_back(x.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"groups", "hsa-override", "kernel-cmdline", "ollama-override", "rocm-install",
                                           "ttm-pages-limit"}));
  auto list = render::format_recipe_list(*r);
  for (const auto& id : ids) EXPECT_NE(list.find(id), std::string::npos);
}

TEST(FixRecipes, BadRecipeFilesAreErrorsNamingTheFile) {
  auto bad_kind = formats::load_recipes({{"fixes/x.toml", "id = \"x\"\ntitle = \"t\"\nparams = \"env\"\n[[steps]]\nkind = \"run-shell\"\n"}});
  ASSERT_FALSE(bad_kind);
  EXPECT_NE(bad_kind.error().message.find("recipes/fixes/x.toml"), std::string::npos);
  EXPECT_NE(bad_kind.error().message.find("run-shell"), std::string::npos);
  auto rel = formats::load_recipes({{"fixes/y.toml", "id = \"y\"\ntitle = \"t\"\nparams = \"env\"\n[[steps]]\nkind = \"env-file\"\n"
                                            "format = \"profile-sh\"\npath = \"etc/x\"\n"}});
  EXPECT_FALSE(rel);
  std::string ok = "id = \"z\"\ntitle = \"t\"\nparams = \"env\"\n[[steps]]\nkind = \"daemon-reload\"\n";
  EXPECT_TRUE(formats::load_recipes({{"fixes/z.toml", ok}}));
  EXPECT_FALSE(formats::load_recipes({{"fixes/z.toml", ok}, {"fixes/z2.toml", ok}}));
  EXPECT_FALSE(formats::load_recipes({{"fixes/w.toml", "id = \"w\"\ntitle = \"t\"\nparams = \"magic\"\n[[steps]]\nkind = \"initramfs\"\n"}}));
}

TEST(FixRecipes, AnUnknownKeyIsAnErrorNamingFileAndLine) {
  const std::string head = "id = \"k\"\ntitle = \"t\"\nparams = \"env\"\n";
  // A typo in a step: "fromat" for "format" (line 7).
  auto step = formats::load_recipes({{"fixes/k.toml", head + "[[steps]]\nkind = \"env-file\"\nfromat = \"profile-sh\"\n"
                                                    "path = \"/etc/x.sh\"\nformat = \"profile-sh\"\n"}});
  ASSERT_FALSE(step);
  EXPECT_EQ(step.error().message, "recipes/fixes/k.toml:6: unknown key 'fromat' in a env-file step");
  // A key another step kind has is still unknown here: a restart step has no 'path'.
  auto other = formats::load_recipes({{"fixes/k.toml", head + "[[steps]]\nkind = \"restart-if-running\"\nunit = \"u.service\"\n"
                                                     "path = \"/etc/x\"\n"}});
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message, "recipes/fixes/k.toml:7: unknown key 'path' in a restart-if-running step");
  // A typo at the top: "resolve" for "resolves".
  auto top = formats::load_recipes({{"fixes/k.toml", head + "resolve = [\"ollama.env\"]\n[[steps]]\nkind = \"daemon-reload\"\n"}});
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error().message, "recipes/fixes/k.toml:4: unknown key 'resolve'");
  EXPECT_TRUE(formats::load_recipes({{"fixes/k.toml", head + "resolves = [\"ollama.env\"]\n[[steps]]\nkind = \"daemon-reload\"\n"}}));
}

TEST(FixRecipes, MalformedArrayTableHeadersAreOneLineErrors) {
  // toml++ 3.3.0 asserts on these in debug builds (src/formats/toml.hpp).
  for (const char* text : {"[[[1]]]\n", "id = \"q\"\n[[[steps]]]\n", "[[=\n"}) {
    auto r = formats::load_recipes({{"fixes/q.toml", text}});
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.error().message.find("recipes/fixes/q.toml"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
  }
}

TEST(FixRecipes, APathOrUnitWithANulOrNewlineIsRejectedAtLoad) {
  // TOML can spell both (\u0000, \n); a NUL would cut the path short at the syscall.
  const std::string head = "id = \"p\"\ntitle = \"t\"\nparams = \"env\"\n[[steps]]\nkind = \"env-file\"\nformat = \"systemd-dropin\"\n";
  for (const char* bad : {"path = \"/etc/x\\u0000y.conf\"\nunit = \"u.service\"\n", "path = \"/etc/x\\ny.conf\"\nunit = \"u.service\"\n",
                          "path = \"/etc/x\\ty.conf\"\nunit = \"u.service\"\n", "path = \"/etc/x.conf\"\nunit = \"u\\n.service\"\n"}) {
    auto r = formats::load_recipes({{"fixes/p.toml", head + bad}});
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("recipes/fixes/p.toml"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("control character"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find('\0'), std::string::npos);
  }
  EXPECT_TRUE(formats::load_recipes({{"fixes/p.toml", head + "path = \"/etc/x.conf\"\nunit = \"u.service\"\n"}}));
}

TEST(FixEdits, ModprobeOptionNamesCompareWithDashAndUnderscoreAlike) {
  auto e = set_modprobe_options("options ttm pages-limit=1048576 page-pool-size=1 # mine\n", "ttm",
                                {{"pages_limit", "6291456"}, {"page_pool_size", "6291456"}});
  EXPECT_EQ(e.text, "options ttm pages-limit=6291456 page-pool-size=6291456 # mine\n");
  EXPECT_EQ(e.found, (std::vector<std::string>{"pages_limit", "page_pool_size"}));
}
