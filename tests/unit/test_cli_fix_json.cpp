// `amdml fix --format json` (schema amdml.fix/1) through the binary: the plan names each
// change by kind and SHA-256 of the bytes on disk before and after, the apply document
// says what was written and what the re-diagnosis found, a second plan is empty, the
// undo document lists what came back; the exit codes are the text mode's.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "base/sha256.hpp"
#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;
using nlohmann::json;

namespace {


json doc(const CliRun& r) {
  auto j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not one JSON document: " << r.out << r.err;
  return j;
}

}  // namespace

TEST(FixJson, PlanNamesEachChangeByKindAndHash) {
  TestTree t("fix-apu");
  auto before = snapshot(t.dir);
  auto r = run_amdml(root_args(t) + " fix --no-runtime --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  json d = doc(r);
  EXPECT_EQ(d["schema"], "amdml.fix/1");
  EXPECT_EQ(d["mode"], "plan");
  EXPECT_EQ(snapshot(t.dir), before);  // JSON or not, the plan writes nothing
  const json* groups = nullptr;
  for (const auto& rp : d["recipes"])
    if (rp["id"] == "groups" && rp["params"]["user"] == "alice") groups = &rp;  // (ollama's is planned after it)
  ASSERT_NE(groups, nullptr) << d.dump(2);
  EXPECT_NE(std::find((*groups)["resolves"].begin(), (*groups)["resolves"].end(), "access.kfd"), (*groups)["resolves"].end());
  EXPECT_EQ((*groups)["params"]["user"], "alice");
  bool group_file = false;
  for (const auto& c : (*groups)["changes"]) {
    if (c["path"] != "/etc/group") continue;
    group_file = true;
    EXPECT_EQ(c["kind"], "modify");
    EXPECT_EQ(c["before_sha256"], amdml::sha256_hex(read_file(t / "etc/group")));
    EXPECT_NE(c["diff"].get<std::string>().find("+render:x:992:alice"), std::string::npos);
  }
  EXPECT_TRUE(group_file);
  EXPECT_EQ((*groups)["follow_ups"][0]["need"], "relogin");
  EXPECT_NE(d["apply_command"].get<std::string>().find("sudo amdml fix --apply --root " + t.str()), std::string::npos);
  // A recipe that creates its own file: no bytes before.
  for (const auto& rp : d["recipes"])
    for (const auto& c : rp["changes"]) {
      if (c["kind"] == "create") {
        EXPECT_TRUE(c["before_sha256"].is_null()) << c.dump();
      }
    }
}

// Per recipe, what comes after the apply and how to see that it worked (issue 28): a
// person's group needs a new login, a service account's a restart of its service, a TTM
// limit a reboot, proved by `amdml check --min-gtt` with the limit's size.
TEST(FixJson, EachRecipeSaysWhatItNeedsAfterwardsAndHowToVerify) {
  TestTree t("fix-apu");
  auto r = run_amdml(root_args(t) + " fix --no-runtime --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  json d = doc(r);
  std::map<std::string, json> by;
  for (const auto& rp : d["recipes"]) by[rp["id"].get<std::string>() + "/" + rp["params"].value("user", "")] = rp;
  ASSERT_TRUE(by.count("groups/alice") && by.count("groups/ollama") && by.count("ttm-pages-limit/")) << d.dump(2);
  for (const auto& [id, rp] : by) EXPECT_EQ(rp["needs_root"], true) << id;
  EXPECT_EQ(by["groups/alice"]["needs_relogin"], true);
  EXPECT_EQ(by["groups/alice"]["needs_service_restart"], false);
  EXPECT_EQ(by["groups/alice"]["verify"], "amdml check --require runtime");
  EXPECT_EQ(by["groups/ollama"]["needs_relogin"], false);
  EXPECT_EQ(by["groups/ollama"]["needs_service_restart"], true);
  EXPECT_EQ(by["groups/ollama"]["verify"], "id -nG ollama");
  const json& ttm = by["ttm-pages-limit/"];
  EXPECT_EQ(ttm["needs_reboot"], true);
  EXPECT_EQ(ttm["needs_relogin"], false);
  const auto pages = ttm["params"]["pages_limit"].get<std::uint64_t>();
  EXPECT_EQ(ttm["verify"], "amdml check --min-gtt " + std::to_string(pages * 4096 / (1024 * 1024)) + "MiB");
}

TEST(FixJson, ApplyThenNothingToDoThenUndo) {
  TestTree t("fix-apu");
  auto before = snapshot(t.dir);
  auto plan = doc(run_amdml(root_args(t) + " fix --no-runtime --format json"));
  auto r = run_amdml(root_args(t) + " fix --no-runtime --apply --yes --format json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  json d = doc(r);
  EXPECT_EQ(d["mode"], "apply");
  ASSERT_TRUE(d["outcome"].is_object()) << d.dump(2);
  EXPECT_TRUE(d["outcome"]["ok"].get<bool>());
  std::string txn = d["outcome"]["txn"];
  EXPECT_FALSE(txn.empty());
  // The way back names the same tree: without --root it would undo this machine's files.
  EXPECT_EQ(d["outcome"]["undo_command"], "amdml fix --undo " + txn + " --root " + t.str());
  // Every planned file is on disk with exactly the planned bytes (a file two recipes
  // change, /etc/group for alice and for ollama, ends as the later one leaves it).
  std::map<std::string, std::string> last;
  for (const auto& rp : plan["recipes"])
    for (const auto& c : rp["changes"]) last[c["path"]] = c["after_sha256"];
  EXPECT_GE(last.size(), 2u);
  for (const auto& [path, sha] : last) {
    EXPECT_EQ(amdml::sha256_hex(read_file(t / path.substr(1))), sha) << path;
    EXPECT_NE(std::find(d["outcome"]["written"].begin(), d["outcome"]["written"].end(), path), d["outcome"]["written"].end());
  }
  bool access_gone = false;
  for (const auto& v : d["outcome"]["verify"]) access_gone |= v["id"] == "access.kfd" && v["status"] == "gone";
  EXPECT_TRUE(access_gone) << d["outcome"]["verify"].dump();

  auto again = run_amdml(root_args(t) + " fix --no-runtime --format json");
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(doc(again)["recipes"], json::array()) << again.out;
  EXPECT_TRUE(doc(again)["apply_command"].is_null());
  auto again_apply = run_amdml(root_args(t) + " fix --no-runtime --apply --yes --format json");
  EXPECT_EQ(again_apply.code, 0);
  EXPECT_TRUE(doc(again_apply)["outcome"].is_null()) << again_apply.out;

  auto u = run_amdml(root_args(t) + " fix --undo --format json");
  ASSERT_EQ(u.code, 0) << u.err;
  json ud = doc(u);
  EXPECT_EQ(ud["mode"], "undo");
  EXPECT_EQ(ud["txn"], txn);
  bool group_back = false;
  for (const auto& c : ud["changes"]) group_back |= c["path"] == "/etc/group" && c["kind"] == "modify";
  EXPECT_TRUE(group_back) << ud.dump(2);
  EXPECT_EQ(snapshot(t.dir), before);
  auto u2 = doc(run_amdml(root_args(t) + " fix --undo --format json"));
  EXPECT_TRUE(u2["txn"].is_null());
  EXPECT_FALSE(u2["message"].get<std::string>().empty());
}

TEST(FixJson, WithoutRootExits4WithAnErrorDocument) {
  TestTree t("fix-apu");
  set_euid(t, 1000);
  auto before = snapshot(t.dir);
  auto r = run_amdml(root_args(t) + " fix --no-runtime --apply --yes --format json");
  EXPECT_EQ(r.code, 4);
  json d = doc(r);
  EXPECT_EQ(d["mode"], "apply");
  EXPECT_NE(d["error"].get<std::string>().find("needs root"), std::string::npos);
  EXPECT_EQ(snapshot(t.dir), before);
  auto list = run_amdml(root_args(t) + " fix --list --format json");
  EXPECT_EQ(list.code, 2);
}
