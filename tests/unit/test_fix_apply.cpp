// Every recipe on a copy of tests/fixtures/fix-apu: plan, apply, apply again (nothing
// to do, same bytes), undo (the tree byte-identical to before); a person's files kept;
// the generated files accepted by systemd-analyze and modprobe; failures rolled back.
// ttm/hsa/ollama findings are constructed literally here (their rules live with the
// knowledge and ML layers); groups comes from the real access rule.
#include <gtest/gtest.h>

#include "render/fix_text.hpp"
#include "support/faulty_fs.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

using namespace amdml;
using namespace amdml::fix;
using namespace amdml::test;

namespace {

constexpr std::uint64_t k24GiBPages = 6291456;

struct Engine {
  TestTree t{"fix-apu"};
  std::unique_ptr<Diagnosed> d;
  std::vector<Finding> findings;
  platform::SafeTree tree{t.str()};
  ApplyOptions options;

  Engine() {
    options.run_commands = false;
    options.live = false;
    options.lock_timeout_ms = 1000;
    rediagnose();
  }
  void rediagnose(std::vector<Finding> extra = {}) {
    d = std::make_unique<Diagnosed>(t.str());
    // Literal findings replace what the real rules ask of the same recipe, so each
    // test controls its parameters.
    findings.clear();
    for (const auto& f : d->findings) {
      bool replaced = false;
      for (const auto& x : extra) replaced = replaced || (f.fix && x.fix && f.fix->recipe == x.fix->recipe);
      if (!replaced) findings.push_back(f);
    }
    for (auto& f : extra) findings.push_back(std::move(f));
  }
  FixPlan plan(std::optional<std::string> only = std::nullopt) {
    PlanRequest in{*d->host, tree, d->facts, findings, d->recipes, only};
    return plan_fixes(in);
  }
  ApplyOutcome apply(const FixPlan& p, platform::SafeTree* targets = nullptr) {
    auto r = apply_plan(p, *d->host, targets ? *targets : tree, tree, options);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : ApplyOutcome{};
  }
  UndoOutcome undo(std::optional<std::string> txn = std::nullopt) {
    auto r = undo_transaction(txn, *d->host, tree, tree, options);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : UndoOutcome{};
  }
  nlohmann::json journal(const std::string& txn) {
    return nlohmann::json::parse(read_file(t / ("var/lib/amdml/journal/" + txn + "/journal.json")));
  }
};

Finding ttm_finding(std::uint64_t pages, bool pool = true, const std::string& module = "ttm") {
  nlohmann::json p = {{"module", module}, {"pages_limit", pages}};
  if (pool) p["page_pool_size"] = pages;
  return literal_finding("memory.gtt-limit", "ttm-pages-limit", p);
}

Finding ollama_finding() {
  return literal_finding("ollama.env", "ollama-override",
                         {{"env", {{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}, {"OLLAMA_IGPU_ENABLE", "1"}}}});
}

std::vector<std::string> argvs(const nlohmann::json& commands) {
  std::vector<std::string> out;
  for (const auto& c : commands) {
    std::string s;
    for (const auto& a : c["argv"]) s += (s.empty() ? "" : " ") + a.get<std::string>();
    out.push_back(s);
  }
  return out;
}

// The common cycle: apply, nothing to do the second time, undo back to the original tree.
void apply_again_undo(Engine& e, const std::map<std::string, std::string>& original, const std::string& recipe,
                      std::vector<Finding> extra) {
  auto after_first = snapshot(e.t.dir);
  e.rediagnose(extra);
  FixPlan again = e.plan(recipe.empty() ? std::nullopt : std::optional<std::string>(recipe));
  EXPECT_FALSE(again.pending()) << render::format_plan(again, true, "");
  EXPECT_NE(render::format_plan(again, true, "").find("othing to do"), std::string::npos) << render::format_plan(again, true, "");
  auto out2 = e.apply(again);
  EXPECT_TRUE(out2.txn.empty());
  EXPECT_EQ(snapshot(e.t.dir), after_first);
  auto u = e.undo();
  EXPECT_FALSE(u.nothing);
  EXPECT_EQ(snapshot(e.t.dir), original);
  // A second undo finds nothing left to undo.
  auto u2 = e.undo();
  EXPECT_TRUE(u2.nothing);
}

}  // namespace

TEST(FixGroups, ApplyResolvesAccessKfdAndUndoRestoresBothFiles) {
  Engine e;
  ASSERT_TRUE(e.d->has("access.kfd"));
  auto original = snapshot(e.t.dir);
  auto before_findings = e.findings;
  FixPlan p = e.plan("groups");
  // access.kfd (alice) and ollama.access (the service user): two plans, one run.
  ASSERT_EQ(p.recipes.size(), 2u) << render::format_plan(p, true, "");
  ASSERT_TRUE(p.pending()) << render::format_plan(p, true, "");
  EXPECT_EQ(p.recipes[1].files.at(0).before, p.recipes[0].files.at(0).after);
  auto text = render::format_plan(p, true, "sudo amdml fix --apply");
  EXPECT_NE(text.find("-render:x:992:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("+render:x:992:alice\n"), std::string::npos) << text;
  EXPECT_NE(text.find("+render:x:992:alice,ollama\n"), std::string::npos) << text;
  EXPECT_NE(text.find("newgrp render"), std::string::npos);
  EXPECT_EQ(snapshot(e.t.dir), original);  // the plan writes nothing

  auto out = e.apply(p);
  ASSERT_TRUE(out.ok) << (out.failure ? out.failure->message : "");
  EXPECT_NE(read_file(e.t / "etc/group").find("\nrender:x:992:alice,ollama\n"), std::string::npos);
  EXPECT_NE(read_file(e.t / "etc/gshadow").find("\nrender:!::alice,ollama\n"), std::string::npos);
  // Everything else in the group file is as it was.
  EXPECT_NE(read_file(e.t / "etc/group").find("\nadm:x:4:syslog,alice\nsudo:x:27:alice\nvideo:x:44:\n"), std::string::npos);
  struct stat st {};
  ::stat((e.t / "etc/gshadow").c_str(), &st);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  auto j = e.journal(out.txn);
  EXPECT_EQ(j["state"], "applied");
  EXPECT_EQ(j["changes"].size(), 4u);
  EXPECT_EQ(j["changes"][0]["mode"], 0644);
  EXPECT_EQ(j["changes"][1]["mode"], 0640);

  e.rediagnose();
  EXPECT_FALSE(e.d->has("access.kfd"));
  EXPECT_FALSE(e.d->has("ollama.access"));
  auto verify = render::format_verify(p, out, fix::classify_verify(p, out, before_findings, e.findings));
  EXPECT_NE(verify.find("gone: access.kfd"), std::string::npos) << verify;
  EXPECT_NE(verify.find("Then: Log out and in again so alice"), std::string::npos) << verify;
  EXPECT_NE(verify.find("Then: Restart the services that run as ollama"), std::string::npos) << verify;
  apply_again_undo(e, original, "groups", {});
  e.rediagnose();
  EXPECT_TRUE(e.d->has("access.kfd"));
}

TEST(FixTtm, EditsThePersonsLineKeepsTheirCommentsAndRegeneratesTheInitramfs) {
  Engine e;
  auto original = snapshot(e.t.dir);
  e.rediagnose({ttm_finding(k24GiBPages)});
  FixPlan p = e.plan("ttm-pages-limit");
  ASSERT_TRUE(p.pending()) << render::format_plan(p, true, "");
  auto out = e.apply(p);
  ASSERT_TRUE(out.ok) << (out.failure ? out.failure->message : "");
  // The person's ttm.conf: their comments and the old-value comment stay; the value is new.
  EXPECT_EQ(read_file(e.t / "etc/modprobe.d/ttm.conf"),
            "# Raised by hand after reading the Strix Halo guide -- 12 GiB.\n"
            "# options ttm pages_limit=1048576\n"
            "options ttm pages_limit=6291456 page_pool_size=6291456\n");
  // No second, conflicting file; the garbage file untouched.
  EXPECT_FALSE(fs::exists(e.t / "etc/modprobe.d/amdml-ttm.conf"));
  EXPECT_EQ(original.at("etc/modprobe.d/local.conf"), snapshot(e.t.dir).at("etc/modprobe.d/local.conf"));
  // Module in the image (recorded lsinitramfs): update-initramfs recorded, not run.
  auto j = e.journal(out.txn);
  EXPECT_EQ(argvs(j["commands"]), std::vector<std::string>{"update-initramfs -u -k 6.8.0-45-generic"});
  EXPECT_FALSE(j["commands"][0]["ran"].get<bool>());
  EXPECT_EQ(p.recipes[0].follow_ups, std::vector<FollowUp>{FollowUp::reboot});

  if (have_tool("modprobe")) {
    std::string cmd = "modprobe -C " + (e.t / "etc/modprobe.d/ttm.conf").string() + " --showconfig 2>&1 | grep '^options ttm'";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    char buf[512] = {};
    std::string shown;
    while (std::fgets(buf, sizeof buf, pipe)) shown += buf;
    ::pclose(pipe);
    EXPECT_EQ(shown, "options ttm pages_limit=6291456 page_pool_size=6291456\n");
  }
  apply_again_undo(e, original, "ttm-pages-limit", {ttm_finding(k24GiBPages)});
}

TEST(FixTtm, WritesItsOwnFileWhenNobodySetsTheOption) {
  Engine e;
  fs::remove(e.t / "etc/modprobe.d/ttm.conf");
  auto original = snapshot(e.t.dir);
  e.rediagnose({ttm_finding(k24GiBPages, false, "amdttm")});
  FixPlan p = e.plan("ttm-pages-limit");
  auto out = e.apply(p);
  ASSERT_TRUE(out.ok);
  std::string own = read_file(e.t / "etc/modprobe.d/amdml-ttm.conf");
  EXPECT_NE(own.find("\noptions amdttm pages_limit=6291456\n"), std::string::npos) << own;
  // amdttm is not in the recorded image: no rebuild, and the plan says why.
  EXPECT_TRUE(e.journal(out.txn)["commands"].empty());
  EXPECT_NE(render::format_plan(p, true, "").find("amdttm is not in /boot/initrd.img-6.8.0-45-generic"), std::string::npos);
  if (have_tool("modprobe")) {
    std::string cmd = "modprobe -C " + (e.t / "etc/modprobe.d/amdml-ttm.conf").string() + " --showconfig | grep -c '^options amdttm pages_limit=6291456$'";
    EXPECT_EQ(std::system((cmd + " >/dev/null").c_str()), 0);
  }
  apply_again_undo(e, original, "ttm-pages-limit", {ttm_finding(k24GiBPages, false, "amdttm")});
}

TEST(FixTtm, RefusesMoreThanRamAndWritesNothing) {
  Engine e;
  auto original = snapshot(e.t.dir);
  e.rediagnose({ttm_finding(64ULL * 262144)});  // 64 GiB on a 32 GB machine
  FixPlan p = e.plan("ttm-pages-limit");
  ASSERT_EQ(p.recipes.size(), 1u);
  ASSERT_TRUE(p.recipes[0].refused);
  EXPECT_NE(p.recipes[0].refused->message.find("more than the RAM"), std::string::npos);
  EXPECT_FALSE(p.pending());
  auto out = e.apply(p);
  EXPECT_TRUE(out.txn.empty());
  EXPECT_EQ(snapshot(e.t.dir), original);
}

TEST(FixHsa, WritesProfileAndEnvironmentDAndUndoRemovesTheNewDirectory) {
  Engine e;
  auto original = snapshot(e.t.dir);
  auto finding = literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}});
  e.rediagnose({finding});
  FixPlan p = e.plan("hsa-override");
  auto out = e.apply(p);
  ASSERT_TRUE(out.ok);
  EXPECT_NE(read_file(e.t / "etc/profile.d/amdml-gpu.sh").find("\nexport HSA_OVERRIDE_GFX_VERSION=11.0.0\n"), std::string::npos);
  EXPECT_NE(read_file(e.t / "etc/environment.d/90-amdml.conf").find("\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n"), std::string::npos);
  EXPECT_EQ(read_file(e.t / "etc/profile.d/editor.sh"), "export EDITOR=vim\n");
  if (have_tool("sh")) {
    std::string cmd = "sh -c '. " + (e.t / "etc/profile.d/amdml-gpu.sh").string() + " && test \"$HSA_OVERRIDE_GFX_VERSION\" = 11.0.0'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  apply_again_undo(e, original, "hsa-override", {finding});
  EXPECT_FALSE(fs::exists(e.t / "etc/environment.d"));
}

TEST(FixHsa, PerNodeValuesOnMixedBoxes) {
  Engine e;
  e.rediagnose({literal_finding("gfx.override-needed", "hsa-override", {{"per_node", {{"1", "11.0.0"}, {"2", "10.3.0"}}}})});
  FixPlan p = e.plan("hsa-override");
  ASSERT_TRUE(e.apply(p).ok);
  auto sh = read_file(e.t / "etc/profile.d/amdml-gpu.sh");
  EXPECT_NE(sh.find("export HSA_OVERRIDE_GFX_VERSION_1=11.0.0\nexport HSA_OVERRIDE_GFX_VERSION_2=10.3.0\n"), std::string::npos);
}

TEST(FixHsa, NeverOverwritesAFileAPersonPutAtItsPath) {
  Engine e;
  write_file(e.t / "etc/profile.d/amdml-gpu.sh", "export MINE=1\n");
  e.rediagnose({literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}})});
  FixPlan p = e.plan("hsa-override");
  ASSERT_TRUE(p.recipes.at(0).refused);
  EXPECT_NE(p.recipes[0].refused->message.find("not written by amdml"), std::string::npos);
  EXPECT_TRUE(e.apply(p).txn.empty());
  EXPECT_EQ(read_file(e.t / "etc/profile.d/amdml-gpu.sh"), "export MINE=1\n");
}

TEST(FixHsa, RefusesASymlinkElsewhere) {
  Engine e;
  TestTree outside("fix-apu");
  std::string victim = read_file(outside / "etc/passwd");
  fs::create_symlink(outside / "etc/passwd", e.t / "etc/profile.d/amdml-gpu.sh");
  e.rediagnose({literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}})});
  FixPlan p = e.plan("hsa-override");
  ASSERT_TRUE(p.recipes.at(0).refused);
  EXPECT_NE(p.recipes[0].refused->message.find("symlink"), std::string::npos);
  EXPECT_TRUE(e.apply(p).txn.empty());
  EXPECT_EQ(read_file(outside / "etc/passwd"), victim);
}

// A drop-in read after amdml's that sets the same name wins; the plan says so (the unit
// codec reads it: only [Service] counts, and an UnsetEnvironment= name is named too).
TEST(FixOllama, ALaterDropInThatSetsTheSameNameIsNamed) {
  Engine e;
  write_file(e.t / "etc/systemd/system/ollama.service.d/95-later.conf",
             "[Unit]\nEnvironment=\"OLLAMA_IGPU_ENABLE=0\"\n[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\"\n");
  e.rediagnose({ollama_finding()});
  FixPlan p = e.plan("ollama-override");
  ASSERT_EQ(p.recipes.size(), 1u);
  const auto& notes = p.recipes[0].notes;
  auto named = [&](const std::string& what) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(named("95-later.conf sets HSA_OVERRIDE_GFX_VERSION=10.3.0 and is read after amdml's drop-in"));
  EXPECT_FALSE(named("OLLAMA_IGPU_ENABLE"));  // set in [Unit], which systemd does not read for the service
}

TEST(FixOllama, DropInKeepsOverrideConfAndPassesSystemd) {
  Engine e;
  auto original = snapshot(e.t.dir);
  e.rediagnose({ollama_finding()});
  FixPlan p = e.plan("ollama-override");
  auto out = e.apply(p);
  ASSERT_TRUE(out.ok);
  std::string dropin = read_file(e.t / "etc/systemd/system/ollama.service.d/90-amdml.conf");
  EXPECT_NE(dropin.find("[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=11.0.0\"\nEnvironment=\"OLLAMA_IGPU_ENABLE=1\"\n"),
            std::string::npos) << dropin;
  EXPECT_EQ(snapshot(e.t.dir).at("etc/systemd/system/ollama.service.d/override.conf"),
            original.at("etc/systemd/system/ollama.service.d/override.conf"));
  EXPECT_EQ(snapshot(e.t.dir).at("etc/systemd/system/ollama.service"), original.at("etc/systemd/system/ollama.service"));
  EXPECT_EQ(argvs(e.journal(out.txn)["commands"]),
            (std::vector<std::string>{"systemctl daemon-reload", "systemctl try-restart ollama.service"}));

  if (have_tool("systemd-analyze")) {
    bool had_usr_lib = fs::exists(e.t / "usr/lib");
    // verify needs the targets the unit's default dependencies name: borrow the host's.
    for (const char* u : {"sysinit.target", "basic.target", "shutdown.target", "network-online.target", "default.target",
                          "multi-user.target", "sockets.target", "paths.target", "timers.target", "slices.target",
                          "local-fs.target", "swap.target"})
      for (const char* d : {"/usr/lib/systemd/system/", "/lib/systemd/system/"})
        if (fs::exists(std::string(d) + u) && !fs::exists(e.t / ("usr/lib/systemd/system/" + std::string(u)))) {
          fs::create_directories(e.t / "usr/lib/systemd/system");
          fs::copy_file(std::string(d) + u, e.t / ("usr/lib/systemd/system/" + std::string(u)));
        }
    std::string log = (e.t / "verify.log").string();
    int rc = std::system(("systemd-analyze verify --root=" + e.t.str() + " ollama.service >" + log + " 2>&1").c_str());
    std::string vlog = read_file(log);
    EXPECT_EQ(rc, 0) << vlog;
    EXPECT_EQ(vlog.find("90-amdml.conf"), std::string::npos) << vlog;
    std::string cat = (e.t / "cat.log").string();
    rc = std::system(("systemd-analyze cat-config --root=" + e.t.str() + " systemd/system/ollama.service.d/90-amdml.conf >" +
                      cat + " 2>&1").c_str());
    EXPECT_EQ(rc, 0);
    EXPECT_NE(read_file(cat).find("Environment=\"OLLAMA_IGPU_ENABLE=1\""), std::string::npos) << read_file(cat);
    fs::remove_all(e.t / (had_usr_lib ? "usr/lib/systemd" : "usr/lib"));
    fs::remove(log);
    fs::remove(cat);
  }
  apply_again_undo(e, original, "ollama-override", {ollama_finding()});
  // Undo re-syncs systemd with the restored files (recorded under --root).
  auto ids = platform::JournalStore(e.tree).list();
  auto j = e.journal(ids->back());
  EXPECT_EQ(j["state"], "undone");
  EXPECT_EQ(argvs(j["undo_commands"]), (std::vector<std::string>{"systemctl daemon-reload", "systemctl try-restart ollama.service"}));
}

TEST(FixOllama, WarnsWhenALaterDropInWinsTheSameName) {
  Engine e;
  write_file(e.t / "etc/systemd/system/ollama.service.d/override.conf",
             "[Service]\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=10.3.0\"\n");
  e.rediagnose({ollama_finding()});
  FixPlan p = e.plan("ollama-override");
  auto text = render::format_plan(p, true, "");
  EXPECT_NE(text.find("override.conf sets HSA_OVERRIDE_GFX_VERSION=10.3.0"), std::string::npos) << text;
}

TEST(FixApply, AllRecipesTogetherThenOneUndo) {
  Engine e;
  auto original = snapshot(e.t.dir);
  std::vector<Finding> extra = {ttm_finding(k24GiBPages), ollama_finding(),
                                literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}})};
  e.rediagnose(extra);
  FixPlan p = e.plan();
  EXPECT_EQ(p.recipes.size(), 6u);  // groups twice (alice, ollama), rocm-install (6.2 lacks gfx1103)
  auto out = e.apply(p);
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.recipes_applied.size(), 6u);
  apply_again_undo(e, original, "", extra);
}

// Faults: an injected failure on the Nth rename rolls back everything this run wrote.
TEST(FixFaults, AFailingWriteRollsBackTheWholeRun) {
  for (auto [op, err] : {std::pair{FaultyFs::Op::rename, EROFS}, {FaultyFs::Op::write, ENOSPC},
                         {FaultyFs::Op::fsync, EIO}}) {
    Engine e;
    auto original = snapshot(e.t.dir);
    std::vector<Finding> extra = {ollama_finding(), literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}})};
    e.rediagnose(extra);
    FixPlan p = e.plan();
    // Files in order: /etc/group and /etc/gshadow for alice, the same two for ollama,
    // profile.d, environment.d, the drop-in. The third is /etc/group's second change.
    FaultyFs ops(op, 3, err);
    platform::SafeTree faulty(e.t.str(), ops);
    auto out = e.apply(p, &faulty);
    EXPECT_FALSE(out.ok);
    EXPECT_TRUE(out.rolled_back);
    EXPECT_TRUE(out.rollback_errors.empty());
    ASSERT_TRUE(out.failure);
    EXPECT_EQ(out.failure->code, err);
    EXPECT_NE(render::format_apply(out, p).find("Rolled back"), std::string::npos);
    EXPECT_EQ(snapshot(e.t.dir), original);
    EXPECT_EQ(e.journal(out.txn)["state"], "rolled-back");
    // The failed run left nothing to undo.
    EXPECT_TRUE(e.undo().nothing);
  }
}

TEST(FixFaults, AReadOnlyTargetDirectoryFailsAndRollsBack) {
  Engine e;
  auto original = snapshot(e.t.dir);
  e.rediagnose({ollama_finding()});
  FixPlan p = e.plan();
  fs::path dir = e.t / "etc/systemd/system/ollama.service.d";
  bool mounted = std::system(("mount --bind " + dir.string() + " " + dir.string() + " 2>/dev/null && mount -o remount,bind,ro " +
                              dir.string() + " 2>/dev/null").c_str()) == 0;
  ApplyOutcome out;
  if (mounted) {
    out = e.apply(p);
    std::system(("umount " + dir.string()).c_str());
  } else {
    // No mount privileges: the same failure, injected.
    FaultyFs ops(FaultyFs::Op::open, 5, EROFS);  // the drop-in's temp file
    platform::SafeTree faulty(e.t.str(), ops);
    out = e.apply(p, &faulty);
  }
  EXPECT_FALSE(out.ok);
  ASSERT_TRUE(out.failure);
  EXPECT_NE(out.failure->message.find("90-amdml.conf"), std::string::npos) << out.failure->message;
  EXPECT_EQ(snapshot(e.t.dir), original);
}

// Issue 29 M8: undo is per change. A file edited after the apply is reported and left
// alone; the other file of the same transaction is still restored.
TEST(FixUndo, SkipsAFileChangedAfterTheApplyAndRestoresTheOthers) {
  Engine e;
  const std::string gshadow = read_file(e.t / "etc/gshadow");
  auto out = e.apply(e.plan());
  ASSERT_TRUE(out.ok);
  ASSERT_NE(read_file(e.t / "etc/gshadow"), gshadow);
  std::string edited = read_file(e.t / "etc/group") + "extra:x:2000:\n";
  write_file(e.t / "etc/group", edited);
  auto r = undo_transaction(std::nullopt, *e.d->host, e.tree, e.tree, e.options);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_EQ(r->skipped[0], "/etc/group: changed after amdml wrote it; left as it is");
  EXPECT_EQ(read_file(e.t / "etc/group"), edited);     // never clobbered
  EXPECT_EQ(read_file(e.t / "etc/gshadow"), gshadow);  // restored all the same
  auto journal = nlohmann::json::parse(read_file(e.t / ("var/lib/amdml/journal/" + out.txn + "/journal.json")));
  EXPECT_EQ(journal["state"], "partly-undone");
}

TEST(FixUndo, NamedTransactionsAndUnknownOnes) {
  Engine e;
  auto original = snapshot(e.t.dir);
  auto out = e.apply(e.plan("groups"));
  ASSERT_TRUE(out.ok);
  auto bad = undo_transaction(std::string("0099-nope"), *e.d->host, e.tree, e.tree, e.options);
  EXPECT_FALSE(bad);
  auto u = e.undo(out.txn);
  EXPECT_EQ(u.restored.size(), 4u);
  EXPECT_EQ(snapshot(e.t.dir), original);
  EXPECT_TRUE(e.undo(out.txn).nothing);
}

// rocm-install moves a release directory no package owns aside. Something that takes the
// new name between the plan and the apply is never renamed over: the step fails and the
// run is rolled back -- the apt files it had written removed, the directory it had
// already moved aside moved back, /opt as it was.
TEST(FixRocmSetAside, ANameTakenSinceThePlanFailsAndRollsBackTheRun) {
  TestTree t("bad-symlinks");
  t.write("opt/rocm-6.3.3/.info/version", "6.3.3-74\n");
  Diagnosed d(t.str());
  std::vector<Finding> findings;
  for (const auto& f : d.findings)
    if (f.fix && f.fix->recipe == "rocm-install") findings.push_back(f);
  ASSERT_FALSE(findings.empty());
  platform::SafeTree tree{t.str()};
  PlanRequest in{*d.host, tree, d.facts, findings, d.recipes, std::string("rocm-install")};
  FixPlan plan = plan_fixes(in);
  ASSERT_EQ(plan.recipes.size(), 1u);
  const auto& cmds = plan.recipes[0].commands;
  ASSERT_FALSE(cmds.empty());
  EXPECT_TRUE(cmds[0].rename);
  EXPECT_EQ(cmds[0].argv, (std::vector<std::string>{"mv", "-T", "--", "/opt/rocm-6.2.4", "/opt/amdml-set-aside-rocm-6.2.4"}));
  EXPECT_EQ(cmds[0].undo, (std::vector<std::string>{"mv", "-T", "--", "/opt/amdml-set-aside-rocm-6.2.4", "/opt/rocm-6.2.4"}));

  ASSERT_GE(cmds.size(), 2u);
  EXPECT_EQ(cmds[1].argv.back(), "/opt/amdml-set-aside-rocm-6.3.3");
  t.write("opt/amdml-set-aside-rocm-6.3.3/README", "someone's\n");
  const auto before = snapshot(t.dir);
  ApplyOptions o;
  o.run_commands = false;
  o.live = false;
  o.lock_timeout_ms = 1000;
  auto r = apply_plan(plan, *d.host, tree, tree, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->rolled_back);
  ASSERT_TRUE(r->failure);
  EXPECT_NE(r->failure->message.find("/opt/amdml-set-aside-rocm-6.3.3 exists"), std::string::npos) << r->failure->message;
  EXPECT_EQ(snapshot(t.dir), before);
  // The first rename had happened: the rollback renamed it back.
  auto journal = nlohmann::json::parse(read_file(t / ("var/lib/amdml/journal/" + r->txn + "/journal.json")));
  bool moved_back = false;
  for (const auto& c : journal["commands"])
    moved_back |= c.value("rollback", false) && c.value("rename", false) && c.value("exit_code", -1) == 0 &&
                  c["argv"].back() == "/opt/rocm-6.2.4";
  EXPECT_TRUE(moved_back) << journal["commands"].dump(1);
}
