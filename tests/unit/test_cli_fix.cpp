// `amdml fix` end to end through the binary, on fixture copies: the plan writes
// nothing, --apply needs root (exit 4), applies, re-diagnoses, is idempotent, --undo
// restores the tree byte for byte, and a process killed between steps leaves every
// file old or new with the journal able to undo it.
#include <gtest/gtest.h>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;

TEST(FixCli, PlanShowsDiffsAndWritesNothing) {
  TestTree t("fix-apu");
  auto before = snapshot(t.dir);
  auto r = run_amdml(root_args(t) + " fix --no-runtime");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("[groups]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("resolves access.kfd"), std::string::npos);
  EXPECT_NE(r.out.find("+render:x:992:alice"), std::string::npos);
  EXPECT_NE(r.out.find("sudo amdml fix --apply --root " + t.str()), std::string::npos);
  EXPECT_EQ(snapshot(t.dir), before);
  EXPECT_FALSE(fs::exists(t / "var/lib/amdml"));
}

TEST(FixCli, ApplyWithoutRootExits4WithTheSudoCommand) {
  TestTree t("fix-apu");
  set_euid(t, 1000);
  auto before = snapshot(t.dir);
  auto r = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  EXPECT_EQ(r.code, 4);
  EXPECT_NE(r.err.find("sudo amdml fix --apply --root " + t.str()), std::string::npos) << r.err;
  EXPECT_EQ(snapshot(t.dir), before);
  auto u = run_amdml(root_args(t) + " fix --undo");
  EXPECT_EQ(u.code, 4);
}

TEST(FixCli, ApplyReprobesIsIdempotentAndUndoRestoresTheTree) {
  TestTree t("fix-apu");
  auto before = snapshot(t.dir);
  auto r = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("wrote /etc/group"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gone: access.kfd"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Then: Log out and in again so alice"), std::string::npos);
  auto doctor = run_amdml(root_args(t) + " doctor --no-runtime --format json");
  EXPECT_EQ(doctor.out.find("\"access.kfd\""), std::string::npos);
  auto applied = snapshot(t.dir);

  auto again = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  EXPECT_EQ(again.code, 0);
  EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
  EXPECT_EQ(snapshot(t.dir), applied);

  auto undo = run_amdml(root_args(t) + " fix --undo");
  EXPECT_EQ(undo.code, 0) << undo.err;
  EXPECT_NE(undo.out.find("/etc/group (previous bytes restored)"), std::string::npos) << undo.out;
  EXPECT_NE(undo.out.find("/etc/gshadow (previous bytes restored)"), std::string::npos);
  EXPECT_EQ(snapshot(t.dir), before);
  auto undo2 = run_amdml(root_args(t) + " fix --undo");
  EXPECT_EQ(undo2.code, 0);
  EXPECT_NE(undo2.out.find("no applied transaction"), std::string::npos);
}

TEST(FixCli, ListOnlyAndUsageErrors) {
  TestTree t("fix-apu");
  auto l = run_amdml(root_args(t) + " fix --list");
  EXPECT_EQ(l.code, 0);
  for (const char* id : {"groups", "ttm-pages-limit", "hsa-override", "ollama-override"})
    EXPECT_NE(l.out.find(id), std::string::npos) << id;
  auto bad = run_amdml(root_args(t) + " fix --only nosuch");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("no such recipe"), std::string::npos);
  auto both = run_amdml(root_args(t) + " fix --apply --undo");
  EXPECT_EQ(both.code, 2);
  auto only = run_amdml(root_args(t) + " fix --no-runtime --only ttm-pages-limit");
  EXPECT_EQ(only.code, 0);
  EXPECT_EQ(only.out.find("[groups]"), std::string::npos) << only.out;
}

// Killed right before step N: every file is its old or its new bytes, and --undo puts
// the tree back.
TEST(FixCli, KilledMidApplyLeavesOldOrNewAndUndoWorks) {
  for (int step : {1, 2}) {
    TestTree t("fix-apu");
    auto before = snapshot(t.dir);
    std::string old_group = read_file(t / "etc/group"), old_gshadow = read_file(t / "etc/gshadow");
    auto r = run_amdml(root_args(t) + " fix --no-runtime --apply --yes", "AMDML_TEST_KILL_AT_STEP=" + std::to_string(step));
    EXPECT_EQ(r.signal, 9) << "step " << step << ": exit " << r.code << r.out << r.err;
    std::string group = read_file(t / "etc/group"), gshadow = read_file(t / "etc/gshadow");
    // Step 1 is /etc/group, step 2 /etc/gshadow.
    EXPECT_EQ(group == old_group, step == 1) << group;
    EXPECT_EQ(gshadow, old_gshadow);
    EXPECT_TRUE(group == old_group || group.find("render:x:992:alice\n") != std::string::npos);
    for (const auto& e : fs::directory_iterator(t / "etc"))
      EXPECT_EQ(e.path().filename().string().find(".amdml-"), std::string::npos) << e.path();
    // The next run says so.
    auto plan = run_amdml(root_args(t) + " fix --no-runtime");
    EXPECT_NE(plan.err.find("was interrupted before it finished"), std::string::npos) << plan.err;
    auto undo = run_amdml(root_args(t) + " fix --undo");
    EXPECT_EQ(undo.code, 0) << undo.out << undo.err;
    EXPECT_EQ(snapshot(t.dir), before) << "step " << step;
    EXPECT_EQ(run_amdml(root_args(t) + " fix --no-runtime").err.find("interrupted"), std::string::npos);
  }
}

// The ML layer's rules on its own fixture: ollama.env's fix, applied through the
// binary, leaves nothing for the recipe to do on re-diagnosis; the person's drop-ins
// (a typo in override.conf, a quoted value in 10-gfx.conf) stay as they were.
TEST(FixCli, OllamaOverrideOnTheMlFixture) {
  TestTree t("ml-apu-ollama");
  become_root_via_sudo(t);
  auto before = snapshot(t.dir);
  auto plan = run_amdml(root_args(t) + " fix --no-runtime --only ollama-override");
  ASSERT_EQ(plan.code, 0) << plan.out << plan.err;
  ASSERT_NE(plan.out.find("[ollama-override]"), std::string::npos) << plan.out;
  ASSERT_NE(plan.out.find("resolves ollama.env"), std::string::npos) << plan.out;

  auto r = run_amdml(root_args(t) + " fix --no-runtime --only ollama-override --apply --yes");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("wrote /etc/systemd/system/ollama.service.d/90-amdml.conf"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("systemctl daemon-reload: recorded, not run"), std::string::npos) << r.out;
  auto after = snapshot(t.dir);
  for (const char* kept : {"etc/systemd/system/ollama.service.d/override.conf", "etc/systemd/system/ollama.service.d/10-gfx.conf",
                           "etc/systemd/system/ollama.service"})
    EXPECT_EQ(after.at(kept), before.at(kept)) << kept;

  // Re-diagnosis: whatever ollama.env still says, it asks nothing more of this recipe.
  auto doctor = run_amdml(root_args(t) + " doctor --no-runtime --format json");
  auto doc = nlohmann::json::parse(doctor.out);
  for (const auto& f : doc["findings"])
    if (f["id"] == "ollama.env" && f.contains("fix") && !f["fix"].is_null()) {
      auto again = run_amdml(root_args(t) + " fix --no-runtime --only ollama-override --apply --yes");
      EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
    }
  auto again = run_amdml(root_args(t) + " fix --no-runtime --only ollama-override --apply --yes");
  EXPECT_EQ(again.code, 0);
  EXPECT_EQ(snapshot(t.dir), after);
  auto undo = run_amdml(root_args(t) + " fix --undo");
  EXPECT_EQ(undo.code, 0) << undo.err;
  EXPECT_EQ(snapshot(t.dir), before);
}

// The fixtures helper's machine whose user is not in render: the groups recipe end to end.
TEST(FixCli, GroupsOnTheUserNotInRenderFixture) {
  TestTree t("user-not-in-render");
  auto before = snapshot(t.dir);
  auto refused = run_amdml(root_args(t) + " fix --no-runtime --apply --yes");
  auto manifest = nlohmann::json::parse(read_file(t / "amdml-host.json"));
  if (manifest["process"].value("euid", 1) != 0) {
    EXPECT_EQ(refused.code, 4);
    become_root_via_sudo(t);
    before = snapshot(t.dir);
  }
  auto r = run_amdml(root_args(t) + " fix --no-runtime --only groups --apply --yes");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gone: access.kfd"), std::string::npos) << r.out;
  auto doctor = run_amdml(root_args(t) + " doctor --no-runtime --format json");
  EXPECT_EQ(doctor.out.find("\"access.kfd\""), std::string::npos);
  auto undo = run_amdml(root_args(t) + " fix --undo");
  EXPECT_EQ(undo.code, 0) << undo.err;
  EXPECT_EQ(snapshot(t.dir), before);
}

// ollama.env's hand commands write the very file, byte for byte, the recipe writes:
// following them and then running `amdml fix` leaves the recipe nothing to do and one
// amdml drop-in, not two.
TEST(FixCli, OllamaHandCommandsWriteWhatTheRecipeWrites) {
  TestTree t("ml-apu-ollama");
  become_root_via_sudo(t);
  auto planned = run_amdml(root_args(t) + " fix --no-runtime --only ollama-override");
  ASSERT_NE(planned.out.find("90-amdml.conf"), std::string::npos) << planned.out;
  auto doctor = run_amdml(root_args(t) + " doctor --no-runtime --format json");
  auto doc = nlohmann::json::parse(doctor.out);
  std::vector<std::string> cmds;
  for (const auto& f : doc["findings"])
    if (f["id"] == "ollama.env") cmds = f["commands"].get<std::vector<std::string>>();
  ASSERT_FALSE(cmds.empty()) << doctor.out;
  int wrote = 0;
  for (auto c : cmds) {
    if (c.starts_with("sudo systemctl")) continue;  // nothing to restart in a tree
    for (auto p = c.find("sudo "); p != std::string::npos; p = c.find("sudo ")) c.erase(p, 5);
    for (auto p = c.find("/etc/"); p != std::string::npos; p = c.find("/etc/", p + t.str().size() + 5))
      c.insert(p, t.str());
    ASSERT_EQ(std::system(c.c_str()), 0) << c;
    ++wrote;
  }
  EXPECT_GT(wrote, 0);
  auto again = run_amdml(root_args(t) + " fix --no-runtime --only ollama-override");
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out.find("90-amdml.conf"), std::string::npos) << again.out;
  int ours = 0;
  for (const auto& e : fs::directory_iterator(t / "etc/systemd/system/ollama.service.d"))
    ours += e.path().filename().string().find("amdml") != std::string::npos;
  EXPECT_EQ(ours, 1);
}

// `doctor --python ENV` finds torch.gfx there and advertises hsa-override; fix takes the
// same flag, so the command doctor prints plans that recipe (without it fix would see
// no torch and nothing to do).
TEST(FixCli, FixTakesDoctorsProbeFlags) {
  TestTree t("rx7600s-laptop");
  become_root_via_sudo(t);
  std::string torch = "opt/envs/rocm/lib/python3.11/site-packages/torch";
  fs::create_directories(t / (torch + "/lib/rocblas/library"));
  write_file(t / (torch + "/version.py"), "__version__ = '2.3.0+rocm5.7'\nhip = '5.7.31921'\ncuda = None\n");
  for (const char* lib : {"TensileLibrary_lazy_gfx1030.dat", "TensileLibrary_lazy_gfx1100.dat"})
    write_file(t / (torch + "/lib/rocblas/library/" + lib), "");
  auto doctor = run_amdml(root_args(t) + " doctor --no-runtime --python /opt/envs/rocm");
  ASSERT_NE(doctor.out.find("[torch.gfx]"), std::string::npos) << doctor.out;
  const std::string advice = "sudo amdml fix --apply --only hsa-override --python /opt/envs/rocm";
  EXPECT_NE(doctor.out.find(advice), std::string::npos) << doctor.out;
  auto without = run_amdml(root_args(t) + " fix --no-runtime");
  EXPECT_EQ(without.out.find("[hsa-override]"), std::string::npos) << without.out;
  auto with = run_amdml(root_args(t) + " fix --no-runtime --runtime-timeout 5 --python /opt/envs/rocm");
  ASSERT_EQ(with.code, 0) << with.err;
  EXPECT_NE(with.out.find("[hsa-override]"), std::string::npos) << with.out;
  EXPECT_NE(with.out.find("resolves torch.gfx"), std::string::npos) << with.out;
  // The apply command it prints keeps the flags too.
  EXPECT_NE(with.out.find("--python /opt/envs/rocm"), std::string::npos) << with.out;
}

// Alternatives are not steps: host-docker's two `docker run` lines (the base image or
// the PyTorch one) carry the role "or", shown as "or:" in text and in JSON's `steps`,
// while the pinned `commands` list stays plain strings in the same order.
TEST(FixCli, CommandRolesSayWhichAreAlternatives) {
  TestTree t("host-docker");
  auto text = run_amdml(root_args(t) + " doctor --no-runtime");
  EXPECT_NE(text.out.find("or:    docker run -it --rm"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("then:  docker run"), std::string::npos) << text.out;
  auto doc = nlohmann::json::parse(run_amdml(root_args(t) + " doctor --no-runtime --format json").out);
  bool seen = false;
  for (const auto& f : doc["findings"]) {
    ASSERT_EQ(f["steps"].size(), f["commands"].size()) << f["id"];
    for (std::size_t i = 0; i < f["steps"].size(); ++i) {
      EXPECT_EQ(f["steps"][i]["command"], f["commands"][i]);
      EXPECT_EQ(f["steps"][i]["role"], i == 0 ? "run" : f["steps"][i]["role"].get<std::string>());
    }
    if (f["id"] != "container.host-docker") continue;
    seen = true;
    ASSERT_GE(f["steps"].size(), 2u);
    const auto& last = f["steps"].back();
    EXPECT_EQ(last["role"], "or");
    EXPECT_NE(last["command"].get<std::string>().find("rocm/pytorch"), std::string::npos);
  }
  EXPECT_TRUE(seen);
}

// A user's --recipes DIR is checked as strictly as the embedded recipes: a misspelt
// key is a usage error naming the file and line, not a key silently ignored.
TEST(FixCli, ATypoKeyInAUsersRecipesDirIsAnErrorNamingFileAndLine) {
  TestTree t("fix-apu");
  fs::path dir = t / "my-recipes";
  fs::copy(fs::path(AMDML_SOURCE_DIR) / "recipes", dir, fs::copy_options::recursive);
  auto good = run_amdml("--recipes " + dir.string() + " " + root_args(t) + " fix --no-runtime --list");
  EXPECT_EQ(good.code, 0) << good.err;
  {
    std::ofstream out(dir / "fixes/groups.toml", std::ios::app);
    out << "\n[[steps]]\nkind = \"follow-up\"\nneed = \"relogin\"\ntext = \"x\"\nservice_txt = \"y\"\n";
  }
  auto text = read_file(dir / "fixes/groups.toml");
  const auto line = std::count(text.begin(), text.end(), '\n');  // the typo is on the last line
  auto bad = run_amdml("--recipes " + dir.string() + " " + root_args(t) + " fix --no-runtime");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.err.find("recipes/fixes/groups.toml:" + std::to_string(line) + ": unknown key 'service_txt' in a follow-up step"),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.out, "");
}
