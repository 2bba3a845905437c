// `amdml fix --apply` on every fixture machine, through the binary, driven by what the
// doctor itself finds there (not by literal findings): every finding that names a
// recipe is either gone after the apply or waits for the reboot or login the recipe
// says it needs; modprobe.d files written parse with `modprobe -C`; a second apply
// has nothing to do and changes nothing; `fix --undo` restores the tree byte for byte.
// A machine whose findings name no recipe is left exactly as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;

namespace {

std::vector<std::string> all_fixtures() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fixture())) {
    if (!e.is_directory()) continue;
    if (fs::exists(e.path() / "amdml-host.json")) out.push_back(e.path().filename().string());
    else  // bad-manifest/<case>: one broken manifest each
      for (const auto& c : fs::directory_iterator(e.path()))
        if (fs::exists(c.path() / "amdml-host.json"))
          out.push_back(e.path().filename().string() + "/" + c.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string args(const TestTree& t) { return "--root " + t.str() + " --color never "; }

// The fixable findings the doctor reports: (id, recipe) pairs.
std::set<std::pair<std::string, std::string>> fixable(const TestTree& t) {
  auto r = run_amdml(args(t) + "doctor --no-runtime --format json");
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  std::set<std::pair<std::string, std::string>> out;
  if (!doc.is_object() || !doc.contains("findings")) return out;
  for (const auto& f : doc["findings"])
    if (f.contains("fix") && f["fix"].is_object()) out.insert({f["id"].get<std::string>(), f["fix"]["recipe"].get<std::string>()});
  return out;
}

// Files under etc/modprobe.d that differ between two snapshots.
std::vector<std::string> changed_modprobe_files(const std::map<std::string, std::string>& a,
                                                const std::map<std::string, std::string>& b) {
  std::vector<std::string> out;
  for (const auto& [rel, content] : b)
    if (rel.starts_with("etc/modprobe.d/") && rel.size() > 5 && rel.substr(rel.size() - 5) == ".conf") {
      auto it = a.find(rel);
      if (it == a.end() || it->second != content) out.push_back(rel);
    }
  return out;
}

class FixEveryFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(FixEveryFixture, ApplyResolvesOrWaitsThenIdempotentThenUndo) {
  TestTree t(GetParam());
  if (run_amdml(args(t) + "doctor --no-runtime --format json").code == 2) {
    // A broken manifest: a one-line error (exit 2) and nothing written.
    ASSERT_TRUE(GetParam().starts_with("bad-manifest/")) << "doctor exit 2 on " << GetParam();
    auto before = snapshot(t.dir);
    auto r = run_amdml(args(t) + "fix --no-runtime --apply --yes");
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(snapshot(t.dir), before);
    return;
  }
  become_root_via_sudo(t);
  auto before = snapshot(t.dir);
  auto wanted = fixable(t);

  auto r = run_amdml(args(t) + "fix --no-runtime --apply --yes");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("still there:"), std::string::npos) << r.out;
  if (wanted.empty()) {
    EXPECT_NE(r.out.find("Nothing to do"), std::string::npos) << r.out;
    EXPECT_EQ(snapshot(t.dir), before);
    return;
  }
  for (const auto& [id, recipe] : wanted) {
    // "left for you": the recipe did its part and the finding no longer asks for it.
    bool accounted = r.out.find("gone: " + id + " ") != std::string::npos ||
                     r.out.find("after a reboot: " + id + " ") != std::string::npos ||
                     r.out.find("after a new login: " + id + " ") != std::string::npos ||
                     r.out.find("after the recorded commands run: " + id + " ") != std::string::npos ||
                     r.out.find("left for you: " + id + " ") != std::string::npos ||
                     // the same recipe with other parameters: the plan defers it to the next run
                     r.out.find("next run: " + id + " ") != std::string::npos;
    EXPECT_TRUE(accounted) << id << " (" << recipe << ") not accounted for after the apply:\n" << r.out;
  }
  auto applied = snapshot(t.dir);
  // A recipe whose change is a command of its own (rocm-install's pip install into a venv)
  // leaves the tree as it was under --root, where commands are recorded, not run: the next
  // fix plans it again, and --undo has nothing to put back.
  const bool recorded_only = applied == before && r.out.find("recorded, not run (--root)") != std::string::npos;
  if (!recorded_only) EXPECT_NE(applied, before);
  for (const auto& [id, recipe] : fixable(t))
    if (r.out.find("left for you: " + id + " ") != std::string::npos) {
      EXPECT_FALSE(wanted.count({id, recipe})) << id << " still asks for " << recipe;
    }

  // What was written to modprobe.d is what modprobe itself accepts.
  if (have_tool("modprobe")) {
    for (const auto& rel : changed_modprobe_files(before, applied)) {
      auto out = fs::temp_directory_path() / ("amdml-showconfig-" + std::to_string(::getpid()));
      std::string cmd = "modprobe -C '" + (t / rel).string() + "' --showconfig >'" + out.string() + "' 2>&1";
      EXPECT_EQ(std::system(cmd.c_str()), 0) << rel;
      auto shown = read_file(out);
      fs::remove(out);
      EXPECT_NE(shown.find("options "), std::string::npos) << rel << ":\n" << shown;
      EXPECT_EQ(shown.find("ignoring"), std::string::npos) << rel << ":\n" << shown;
    }
  }

  if (!recorded_only) {
    auto again = run_amdml(args(t) + "fix --no-runtime --apply --yes");
    EXPECT_EQ(again.code, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
    EXPECT_EQ(snapshot(t.dir), applied);
  }

  auto undo = run_amdml(args(t) + "fix --undo");
  EXPECT_EQ(undo.code, 0) << undo.out << undo.err;
  EXPECT_EQ(snapshot(t.dir), before);
  EXPECT_EQ(fixable(t), wanted);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixEveryFixture, ::testing::ValuesIn(all_fixtures()),
                         [](const auto& test_info) {
                           std::string n = test_info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
