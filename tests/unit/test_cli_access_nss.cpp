// Issue 14, case 9: a group the user has through NSS (sssd, LDAP) and not through
// /etc/group. The session that has it can open the nodes: no access.kfd, and `fix`
// does not add a local duplicate to /etc/group -- also behind sudo, where the session's
// groups are root's and NSS is what says alice is in render. A new membership that the
// session lacks asks for a login; a group only the directory knows gets no recipe.
#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;
using nlohmann::json;

namespace {

const char* kMachine = "user-in-render-via-nss";


json doctor(const TestTree& t) { return json::parse(run_amdml(root_args(t) + " doctor --no-runtime --format json").out); }

const json* finding(const json& report, const std::string& id) {
  for (const auto& f : report["findings"])
    if (f["id"] == id) return &f;
  return nullptr;
}

void edit_manifest(const TestTree& t, const std::function<void(json&)>& edit) {
  auto path = t / "amdml-host.json";
  auto doc = json::parse(read_file(path));
  edit(doc);
  write_file(path, doc.dump(2));
}

}  // namespace

TEST(AccessNss, ASessionWithTheGroupThroughNssCanOpenTheNodes) {
  TestTree t(kMachine);
  auto r = run_amdml(root_args(t) + " doctor --no-runtime");
  EXPECT_NE(r.out.find("/etc/group: no   NSS: yes   session: yes"), std::string::npos) << r.out;
  auto d = doctor(t);
  EXPECT_EQ(finding(d, "access.kfd"), nullptr) << d["findings"].dump(2);
  EXPECT_EQ(finding(d, "access.relogin"), nullptr);
  EXPECT_EQ(d["facts"]["access"]["devices"][0]["in_nss"], true);
}

TEST(AccessNss, BehindSudoFixDoesNotAddALocalDuplicate) {
  TestTree t(kMachine);
  become_root_via_sudo(t);
  auto d = doctor(t);
  EXPECT_EQ(finding(d, "access.kfd"), nullptr) << d["findings"].dump(2);
  auto plan = json::parse(run_amdml(root_args(t) + " fix --no-runtime --format json").out);
  for (const auto& rp : plan["recipes"]) EXPECT_NE(rp["id"], "groups") << rp.dump(2);
  auto a = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  EXPECT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(read_file(t / "etc/group"), read_file(fs::path(AMDML_FIXTURES_DIR) / kMachine / "etc/group"));
}

TEST(AccessNss, ANewDirectoryMembershipAsksForALoginNotARecipe) {
  TestTree t(kMachine);
  edit_manifest(t, [](json& m) { m["process"]["groups"] = {1000, 4, 24, 27, 30, 46, 100, 122}; });
  auto d = doctor(t);
  EXPECT_EQ(finding(d, "access.kfd"), nullptr) << d["findings"].dump(2);
  const json* f = finding(d, "access.relogin");
  ASSERT_NE(f, nullptr) << d["findings"].dump(2);
  EXPECT_TRUE((*f)["fix"].is_null());
  EXPECT_NE((*f)["detail"].get<std::string>().find("per NSS"), std::string::npos) << f->dump(2);
}

TEST(AccessNss, AGroupOnlyTheDirectoryKnowsGetsNoRecipe) {
  TestTree t(kMachine);
  // udev gives the nodes to gpu-users (gid 5001), a directory group alice is not in.
  edit_manifest(t, [](json& m) {
    for (auto& [path, node] : m["devices"].items()) node["gid"] = 5001;
    m["process"]["groups"] = {1000, 4, 24, 27, 30, 46, 100, 122};
  });
  auto d = doctor(t);
  const json* f = finding(d, "access.kfd");
  ASSERT_NE(f, nullptr) << d["findings"].dump(2);
  EXPECT_TRUE((*f)["fix"].is_null()) << f->dump(2);
  EXPECT_NE((*f)["detail"].get<std::string>().find("does not create a local duplicate"), std::string::npos);
  // No recipe writes /etc/group (rocm-install may plan: this machine has no ROCm).
  auto plan = json::parse(run_amdml(root_args(t) + " fix --no-runtime --format json").out);
  for (const auto& r : plan["recipes"]) {
    EXPECT_NE(r["id"], "groups") << r.dump(2);
    for (const auto& c : r["changes"]) EXPECT_NE(c["path"], "/etc/group") << r.dump(2);
  }
  EXPECT_EQ(plan["refused"], json::array());
}
