// Issue 14, case 3: a global HSA_OVERRIDE_GFX_VERSION that breaks one GPU of a mixed box
// comes from /etc/environment. The finding names that file and line; `fix --apply`
// turns the line off (journaled) besides writing per-GPU values; until the new login
// doctor says to log in again and offers no recipe; after it (played here from the
// login files, as pam_env and the login shell would) the finding is gone and `fix`
// plans nothing; --undo brings the line back byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;
using nlohmann::json;

namespace {

const char* kMachine = "mixed-rdna3-rdna2-etc-environment";


// A new login: the process environment without the HSA override family, then what
// /etc/environment, /etc/environment.d/*.conf and /etc/profile.d/*.sh plainly set, in
// the order a login reads them (comments and other lines skipped).
void play_new_login(const TestTree& t) {
  std::vector<fs::path> files = {t / "etc/environment"};
  for (const char* dir : {"etc/environment.d", "etc/profile.d"}) {
    if (!fs::exists(t / dir)) continue;
    std::vector<fs::path> in;
    for (const auto& e : fs::directory_iterator(t / dir)) in.push_back(e.path());
    std::sort(in.begin(), in.end());
    files.insert(files.end(), in.begin(), in.end());
  }
  auto path = t / "amdml-host.json";
  auto doc = json::parse(read_file(path));
  json env = json::object();
  for (auto& [k, v] : doc["env"].items())
    if (!k.starts_with("HSA_OVERRIDE_GFX_VERSION")) env[k] = v;
  for (const auto& f : files) {
    if (!fs::exists(f)) continue;
    std::string text = read_file(f);
    std::size_t i = 0;
    while (i < text.size()) {
      std::size_t j = text.find('\n', i);
      std::string line = text.substr(i, j == std::string::npos ? std::string::npos : j - i);
      i = j == std::string::npos ? text.size() : j + 1;
      if (line.starts_with("export ")) line = line.substr(7);
      auto eq = line.find('=');
      if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
      if (line.starts_with("HSA_")) env[line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  doc["env"] = env;
  write_file(path, doc.dump(2));
}

const json* finding(const json& report, const std::string& id) {
  for (const auto& f : report["findings"])
    if (f["id"] == id) return &f;
  return nullptr;
}

}  // namespace

TEST(FixLoginEnv, TheFindingNamesTheFileThatSetsTheGlobalValue) {
  TestTree t(kMachine);
  auto r = run_amdml(root_args(t) + " doctor --no-runtime --format json");
  auto d = json::parse(r.out);
  const json* f = finding(d, "gfx.override-invalid");
  ASSERT_NE(f, nullptr) << r.out;
  bool named = false;
  for (const auto& e : (*f)["evidence"]) named |= e["source"] == "/etc/environment:2";
  EXPECT_TRUE(named) << f->dump(2);
  EXPECT_NE((*f)["detail"].get<std::string>().find("/etc/environment:2"), std::string::npos);
}

TEST(FixLoginEnv, ApplyTurnsTheLineOffAndTheLoopConverges) {
  TestTree t(kMachine);
  become_root_via_sudo(t);
  auto a = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  ASSERT_EQ(a.code, 0) << a.out << a.err;
  EXPECT_NE(a.out.find("wrote /etc/environment\n"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("after a new login: gfx.override-invalid"), std::string::npos) << a.out;
  std::string etc = read_file(t / "etc/environment");
  EXPECT_NE(etc.find("\n#HSA_OVERRIDE_GFX_VERSION=10.3.0"), std::string::npos) << etc;

  // Before the new login: the finding stays, but asks for a login, not the recipe again.
  auto d = json::parse(run_amdml(root_args(t) + " doctor --no-runtime --format json").out);
  const json* f = finding(d, "gfx.override-invalid");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE((*f)["fix"].is_null()) << f->dump(2);
  auto plan = run_amdml(root_args(t) + " fix --no-runtime --format json");
  EXPECT_EQ(json::parse(plan.out)["recipes"], json::array()) << plan.out;

  // After it: nothing left, nothing to do.
  play_new_login(t);
  auto after = json::parse(run_amdml(root_args(t) + " doctor --no-runtime --format json").out);
  EXPECT_EQ(finding(after, "gfx.override-invalid"), nullptr) << after["findings"].dump(2);
  EXPECT_EQ(finding(after, "gfx.override-needed"), nullptr) << after["findings"].dump(2);
  auto again = run_amdml(root_args(t) + " fix --no-runtime");
  EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;

  // Undo: the person's line is back as it was.
  auto u = run_amdml(root_args(t) + " fix --undo");
  ASSERT_EQ(u.code, 0) << u.err;
  EXPECT_EQ(read_file(t / "etc/environment"), read_file(fs::path(AMDML_FIXTURES_DIR) / kMachine / "etc/environment"));
}

// The same box with the global value from no file amdml reads (~/.profile, the program
// that started the shell): a new login brings it back. The fix pins the 7900 XTX to its
// own target, which libhsakmt reads before the global value, so after the login nothing
// is left and `fix` has nothing to do (main planned only the 610M's value: the finding
// stayed for ever).
TEST(FixLoginEnv, AGlobalValueFromNoLoginFileIsOutvotedByPins) {
  TestTree t("mixed-rdna3-rdna2-global-override");
  become_root_via_sudo(t);
  auto a = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  ASSERT_EQ(a.code, 0) << a.out << a.err;
  EXPECT_NE(a.out.find("after a new login: gfx.override-invalid"), std::string::npos) << a.out;
  EXPECT_NE(read_file(t / "etc/profile.d/amdml-gpu.sh").find("export HSA_OVERRIDE_GFX_VERSION_1=11.0.0\n"), std::string::npos);

  play_new_login(t);
  auto path = t / "amdml-host.json";
  auto doc = json::parse(read_file(path));
  doc["env"]["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";  // ~/.profile sets it again
  write_file(path, doc.dump(2));
  auto after = json::parse(run_amdml(root_args(t) + " doctor --no-runtime --format json").out);
  EXPECT_EQ(finding(after, "gfx.override-invalid"), nullptr) << after["findings"].dump(2);
  EXPECT_EQ(finding(after, "gfx.override-unneeded"), nullptr) << after["findings"].dump(2);
  auto again = run_amdml(root_args(t) + " fix --no-runtime");
  EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
}
