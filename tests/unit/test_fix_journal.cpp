// The journal and the writer under hostile conditions (issue 17): bytes that are not
// UTF-8, a damaged journal.json, a FIFO as a lock file, temp files a killed run left,
// extended attributes and ACLs, a later chmod, a person's `pages-limit` spelling, a
// real file system that fills up.
#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <algorithm>
#include <chrono>

#include "render/fix_text.hpp"
#include "fix/journal.hpp"
#include "formats/openpgp_armor.hpp"
#include "platform/host.hpp"
#include "support/cli.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"
#include "support/forwarding_host.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"
#include "support/test_key.hpp"

using namespace amdml;
using namespace amdml::fix;
using namespace amdml::test;
using nlohmann::json;
using formats::bytes_json;
using formats::json_bytes;

namespace {

constexpr std::uint64_t k24GiBPages = 6291456;

Finding ttm_finding() {
  return literal_finding("memory.gtt-limit", "ttm-pages-limit",
                         {{"module", "ttm"}, {"pages_limit", k24GiBPages}, {"page_pool_size", k24GiBPages}});
}

ApplyOptions rooted_options() {
  ApplyOptions o;
  o.run_commands = false;
  o.live = false;
  o.lock_timeout_ms = 1000;
  return o;
}

// A rooted host whose commands "run": each answers with the given output.
class RunningHost final : public test::ForwardingHost {
 public:
  RunningHost(const Host& inner, std::string out) : ForwardingHost(inner), out_(std::move(out)) {}
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override {
    CommandResult r;
    r.exit_code = 0;
    if (!argv.empty() && argv[0] == "lsinitramfs") {
      r.out = "usr/lib/modules/x/kernel/drivers/gpu/drm/ttm/ttm.ko.zst\n";
      return r;
    }
    runs.push_back(argv);
    r.out = out_;
    // apt-get -s remove: what apt would remove, dependents included.
    if (argv.size() > 1 && argv[0] == "apt-get" && argv[1] == "-s")
      r.out = "Remv libhsa-runtime64-1 [5.7.1-2build1]\nRemv libhsa-runtime-dev:amd64 [5.7.1-2build1]\n";
    return r;
  }
  mutable std::vector<std::vector<std::string>> runs;

 private:
  std::string out_;
};

json journal_of(const TestTree& t, const std::string& txn) {
  return json::parse(read_file(t / ("var/lib/amdml/journal/" + txn + "/journal.json")));
}

std::string only_journal_dir(const TestTree& t) {
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(t / "var/lib/amdml/journal")) ids.push_back(e.path().filename().string());
  EXPECT_EQ(ids.size(), 1u);
  return ids.empty() ? "" : ids[0];
}


// The tree's own groups finding, applied and undone in-process.
struct GroupsRun {
  Diagnosed d;
  platform::SafeTree tree;
  explicit GroupsRun(const TestTree& t) : d(t.str()), tree(t.str()) {}
  Result<ApplyOutcome> apply() {
    PlanRequest in{*d.host, tree, d.facts, d.findings, d.recipes, std::string("groups")};
    return apply_plan(plan_fixes(in), *d.host, tree, tree, rooted_options());
  }
  Result<UndoOutcome> undo() { return undo_transaction(std::nullopt, *d.host, tree, tree, rooted_options()); }
};

pid_t dead_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int st = 0;
  ::waitpid(pid, &st, 0);
  return pid;
}

std::string get_xattr(const fs::path& p, const char* name) {
  char buf[1024];
  ssize_t n = ::getxattr(p.c_str(), name, buf, sizeof buf);
  return n < 0 ? std::string("<none>") : std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

// Item 4: a Latin-1 kernel release (the tree's osrelease file holds any byte; a
// manifest cannot, JSON being UTF-8) reaches update-initramfs's argv, and the
// command's output has Latin-1 too. The apply finishes, the journal keeps both byte
// for byte, and undo re-runs the same argv.
TEST(FixJournal, NonUtf8ArgvAndOutputAreJournaledAsBytes) {
  TestTree t("fix-apu");
  auto manifest = json::parse(read_file(t / "amdml-host.json"));
  manifest.erase("uname");
  manifest["process"]["euid"] = 0;
  write_file(t / "amdml-host.json", manifest.dump(2));
  const std::string release = "6.8.0-45-gen\xe9ric";
  write_file(t / "proc/sys/kernel/osrelease", release + "\n");
  write_file(t / ("boot/initrd.img-" + release), "image");
  const auto original = snapshot(t.dir);

  Diagnosed d(t.str());
  ASSERT_EQ(d.facts.os.kernel_release.value_or(""), release);
  const std::string output = "update-initramfs: Generating /boot/initrd.img-" + release + "\n\xff\xfe end\n";
  RunningHost host(*d.host, output);
  std::vector<Finding> findings = {ttm_finding()};
  platform::SafeTree tree(t.str());
  PlanRequest in{host, tree, d.facts, findings, d.recipes, std::string("ttm-pages-limit")};
  FixPlan p = plan_fixes(in);
  ASSERT_TRUE(p.pending()) << render::format_plan(p, true, "");
  ASSERT_EQ(p.recipes[0].commands.size(), 1u);
  EXPECT_EQ(p.recipes[0].commands[0].argv, (std::vector<std::string>{"update-initramfs", "-u", "-k", release}));

  ApplyOptions o = rooted_options();
  o.run_commands = true;
  auto r = apply_plan(p, host, tree, tree, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->ok) << (r->failure ? r->failure->message : "");
  auto j = journal_of(t, r->txn);
  EXPECT_EQ(j["state"], "applied");
  ASSERT_EQ(j["commands"].size(), 1u);
  EXPECT_EQ(json_bytes(j["commands"][0]["argv"][3]).value_or("?"), release);
  EXPECT_TRUE(j["commands"][0]["argv"][3].is_object()) << "not UTF-8: kept as base64";
  EXPECT_EQ(json_bytes(j["commands"][0]["stdout"]).value_or("?"), output);
  EXPECT_EQ(json_bytes(j["commands"][0]["argv"][0]).value_or("?"), "update-initramfs");  // UTF-8 stays text

  auto u = undo_transaction(std::nullopt, host, tree, tree, o);
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(snapshot(t.dir), original);
  ASSERT_EQ(host.runs.size(), 2u);
  EXPECT_EQ(host.runs[1], host.runs[0]);
}

TEST(FixJournal, BytesJsonRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (const std::string& s : {std::string(), std::string("plain"), std::string("caf\xc3\xa9"), std::string("\xe9"), all,
                               std::string("ab"), std::string("abc\xff"), std::string("\xed\xa0\x80")}) {
    auto j = bytes_json(s);
    auto back = json_bytes(json::parse(j.dump()));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, s);
  }
}

// A journal written before bytes were encoded (format 1: plain strings, no requests)
// is still undone.
TEST(FixJournal, AFormatOneJournalIsStillUndone) {
  TestTree t("fix-apu");
  const auto original = snapshot(t.dir);
  GroupsRun run(t);
  auto r = run.apply();
  ASSERT_TRUE(r && r->ok);
  auto j = journal_of(t, r->txn);
  j["format"] = 1;
  j.erase("requests");
  write_file(t / ("var/lib/amdml/journal/" + r->txn + "/journal.json"), j.dump(2));
  auto u = run.undo();
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(snapshot(t.dir), original);
}

// Low item: a damaged journal.json is one line naming the file, never an internal
// type_error, and nothing is restored (no partial undo).
TEST(FixJournal, ADamagedJournalIsOneLineNamingTheFileAndRestoresNothing) {
  TestTree t("fix-apu");
  set_euid(t, 0);
  const auto original = snapshot(t.dir);
  auto applied = run_amdml(root_args(t) + " fix --no-runtime --apply --yes --only groups");
  ASSERT_EQ(applied.code, 0) << applied.out << applied.err;
  const auto after = snapshot(t.dir);
  std::string txn = only_journal_dir(t);
  fs::path file = t / ("var/lib/amdml/journal/" + txn + "/journal.json");
  const std::string good = read_file(file);
  auto doc = json::parse(good);
  ASSERT_GE(doc["changes"].size(), 2u);
  std::vector<std::pair<std::string, std::string>> damaged = {{"truncated", good.substr(0, good.size() / 2)},
                                                              {"not an object", "[1, 2]"}};
  auto edit = [&](const std::string& name, auto f) {
    json d = doc;
    f(d);
    damaged.emplace_back(name, d.dump(2));
  };
  edit("change not an object", [](json& d) { d["changes"][1] = 5; });
  edit("path a number", [](json& d) { d["changes"][1]["path"] = 7; });
  edit("existed a string", [](json& d) { d["changes"][0]["existed"] = "yes"; });
  edit("mode a string", [](json& d) { d["changes"][0]["mode"] = "0644"; });
  edit("after a path", [](json& d) { d["changes"][1]["after"] = "../../../../../etc/passwd"; });
  edit("before missing", [](json& d) { d["changes"][0].erase("before"); });
  edit("commands an object", [](json& d) { d["commands"] = {{"a", 1}}; });
  edit("argv of numbers", [](json& d) { d["commands"] = json::array({{{"argv", {1, 2}}}}); });
  edit("state a number", [](json& d) { d["state"] = 3; });
  edit("created_dirs a string", [](json& d) { d["changes"][0]["created_dirs"] = "/etc"; });
  edit("rename a string", [](json& d) {
    d["commands"] = json::array({{{"argv", {"mv", "-T", "--", "/opt/rocm-6.2.4", "/opt/x"}}, {"rename", "yes"}}});
  });
  edit("undo of numbers", [](json& d) { d["commands"] = json::array({{{"argv", {"mv"}}, {"undo", {1, 2}}}}); });
  for (const auto& [name, text] : damaged) {
    SCOPED_TRACE(name);
    write_file(file, text);
    auto u = run_amdml(root_args(t) + " fix --undo");
    EXPECT_EQ(u.code, 1) << u.out << u.err;
    EXPECT_NE(u.err.find(file.string()), std::string::npos) << u.err;
    EXPECT_NE(u.err.find("damaged"), std::string::npos) << u.err;
    EXPECT_EQ(u.err.find("type_error"), std::string::npos) << u.err;
    EXPECT_EQ(u.err.find("internal"), std::string::npos) << u.err;
    EXPECT_EQ(std::count(u.err.begin(), u.err.end(), '\n'), 1) << u.err;
    EXPECT_EQ(snapshot(t.dir), after) << "something was restored";
  }
  write_file(file, good);
  auto u = run_amdml(root_args(t) + " fix --undo");
  EXPECT_EQ(u.code, 0) << u.out << u.err;
  EXPECT_EQ(snapshot(t.dir), original);
}

// Item 8: a FIFO at /etc/.pwd.lock (or at amdml's own lock) is refused at once with
// one line; nothing waits for a reader.
TEST(FixLocks, AFifoAsTheLockFileFailsAtOnceWithOneLine) {
  TestTree t("fix-apu");
  set_euid(t, 0);
  ASSERT_EQ(::mkfifo((t / "etc/.pwd.lock").c_str(), 0600), 0);
  // (No snapshot: reading the FIFO would hang the test.)
  const std::string group = read_file(t / "etc/group"), gshadow = read_file(t / "etc/gshadow");
  auto start = std::chrono::steady_clock::now();
  auto r = run_amdml(root_args(t) + " fix --no-runtime --apply --yes --only groups", "timeout 20");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.code, 1) << "exit " << r.code << " (124: it hung)" << r.out << r.err;
  EXPECT_LT(took, std::chrono::seconds(10));
  EXPECT_NE(r.err.find("/etc/.pwd.lock: not a regular file (a FIFO)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(read_file(t / "etc/group"), group);
  EXPECT_EQ(read_file(t / "etc/gshadow"), gshadow);
  EXPECT_FALSE(fs::exists(t / "var/lib/amdml/journal")) << "nothing, not even a journal, before the lock";

  TestTree t2("fix-apu");
  platform::SafeTree tree(t2.str());
  fs::create_directories(t2 / "var/lib/amdml");
  ASSERT_EQ(::mkfifo((t2 / "var/lib/amdml/lock").c_str(), 0600), 0);
  auto l = platform::TreeLock::acquire(tree, platform::kLockPath, 1000);
  ASSERT_FALSE(l);
  EXPECT_NE(l.error().message.find("not a regular file (a FIFO)"), std::string::npos) << l.error().message;
}

// Low item: temp files a killed writer left (".NAME.amdml-PID-N", PID gone) are removed
// by the next apply and undo; a live PID's file and other names are left alone.
TEST(FixTemps, ADeadRunsTempFilesAreRemovedByTheNextApplyAndUndo) {
  TestTree t("fix-apu");
  GroupsRun run(t);
  const std::string dead = std::to_string(dead_pid());
  const std::string live = std::to_string(::getpid());
  for (const std::string& n : std::vector<std::string>{".group.amdml-" + dead + "-0", ".group.amdml-" + live + "-7", ".group.amdml-x-1",
                               "group.amdml-" + dead + "-0", ".gshadow.amdml-" + dead + "-12"})
    write_file(t / ("etc/" + n), "half");
  auto r = run.apply();
  ASSERT_TRUE(r && r->ok);
  EXPECT_FALSE(fs::exists(t / ("etc/.group.amdml-" + dead + "-0")));
  EXPECT_FALSE(fs::exists(t / ("etc/.gshadow.amdml-" + dead + "-12")));
  EXPECT_TRUE(fs::exists(t / ("etc/.group.amdml-" + live + "-7")));
  EXPECT_TRUE(fs::exists(t / "etc/.group.amdml-x-1"));
  EXPECT_TRUE(fs::exists(t / ("etc/group.amdml-" + dead + "-0")));
  // In the journal too, and on undo.
  EXPECT_FALSE(fs::exists(t / ("var/lib/amdml/journal/" + r->txn + "/reserve"))) << "the reserve outlived the run";
  write_file(t / ("var/lib/amdml/journal/" + r->txn + "/.journal.json.amdml-" + dead + "-3"), "{");
  write_file(t / ("etc/.group.amdml-" + dead + "-4"), "half");
  auto u = run.undo();
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_FALSE(fs::exists(t / ("etc/.group.amdml-" + dead + "-4")));
  EXPECT_FALSE(fs::exists(t / ("var/lib/amdml/journal/" + r->txn + "/.journal.json.amdml-" + dead + "-3")));
}

// Low item: a target's ACL and user.* attributes survive apply, and undo.
TEST(FixXattrs, AclAndUserAttributesAreKeptByApplyAndUndo) {
  TestTree t("fix-apu");
  fs::path group = t / "etc/group";
  if (::setxattr(group.c_str(), "user.amdml-test", "kept", 4, 0) != 0) GTEST_SKIP() << "no user xattrs here";
  // user::rw- user:1000:r-- group::r-- mask::r-- other::r-- (the kernel's ACL layout).
  struct Entry {
    std::uint16_t tag, perm;
    std::uint32_t id;
  };
  std::vector<Entry> acl = {{0x01, 6, 0xffffffffu}, {0x02, 4, 1000}, {0x04, 4, 0xffffffffu}, {0x10, 4, 0xffffffffu}, {0x20, 4, 0xffffffffu}};
  std::string blob(4, '\0');
  blob[0] = 2;
  for (const auto& e : acl) blob.append(reinterpret_cast<const char*>(&e), sizeof e);
  bool have_acl = ::setxattr(group.c_str(), "system.posix_acl_access", blob.data(), blob.size(), 0) == 0;
  const std::string acl_before = get_xattr(group, "system.posix_acl_access");
  const std::string old_bytes = read_file(group);
  const auto original = snapshot(t.dir);

  GroupsRun run(t);
  auto r = run.apply();
  ASSERT_TRUE(r && r->ok);
  ASSERT_NE(read_file(group), old_bytes);
  EXPECT_EQ(get_xattr(group, "user.amdml-test"), "kept");
  if (have_acl) {
    EXPECT_EQ(get_xattr(group, "system.posix_acl_access"), acl_before);
  }
  auto u = run.undo();
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(snapshot(t.dir), original);
  EXPECT_EQ(get_xattr(group, "user.amdml-test"), "kept");
  if (have_acl) {
    EXPECT_EQ(get_xattr(group, "system.posix_acl_access"), acl_before);
  }
}

// Low item: undo restores the bytes but keeps a chmod/chown made after the apply, and
// says so.
TEST(FixUndo, KeepsALaterChmodAndSaysSo) {
  TestTree t("fix-apu");
  GroupsRun run(t);
  const std::string old_group = read_file(t / "etc/group");
  auto r = run.apply();
  ASSERT_TRUE(r && r->ok);
  ASSERT_EQ(::chmod((t / "etc/group").c_str(), 0600), 0);
  auto u = run.undo();
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(read_file(t / "etc/group"), old_group);
  struct stat st {};
  ASSERT_EQ(::stat((t / "etc/group").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::string text = render::format_undo(*u);
  EXPECT_NE(text.find("/etc/group (previous bytes restored; mode 0600 and owner"), std::string::npos) << text;
  EXPECT_NE(text.find("(set after amdml wrote it) kept"), std::string::npos) << text;
}

// Item 7: the person's option spelled `pages-limit` is edited in place, and modprobe
// (which reads '-' and '_' alike) ends up with amdml's value.
TEST(FixTtm, APersonsDashSpellingIsEditedAndAmdmlsValueWins) {
  TestTree t("fix-apu");
  write_file(t / "etc/modprobe.d/ttm.conf", "# mine\noptions ttm pages-limit=3145728\n");
  Diagnosed d(t.str());
  platform::SafeTree tree(t.str());
  std::vector<Finding> findings = {ttm_finding()};
  PlanRequest in{*d.host, tree, d.facts, findings, d.recipes, std::string("ttm-pages-limit")};
  auto r = apply_plan(plan_fixes(in), *d.host, tree, tree, rooted_options());
  ASSERT_TRUE(r && r->ok);
  EXPECT_EQ(read_file(t / "etc/modprobe.d/ttm.conf"), "# mine\noptions ttm pages-limit=6291456 page_pool_size=6291456\n");
  if (!have_tool("modprobe")) GTEST_SKIP() << "no modprobe";
  // Every options line modprobe would hand the module, in order; the last value wins.
  std::string cmd = "modprobe -C " + (t / "etc/modprobe.d").string() + " --showconfig 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_TRUE(pipe);
  char buf[4096];
  std::string effective;
  while (std::fgets(buf, sizeof buf, pipe)) {
    std::istringstream line(buf);
    std::string w, module;
    line >> w >> module;
    if (w != "options" || module != "ttm") continue;
    while (line >> w) {
      std::replace(w.begin(), w.end(), '-', '_');
      if (w.starts_with("pages_limit=")) effective = w.substr(12);
    }
  }
  ::pclose(pipe);
  EXPECT_EQ(effective, std::to_string(k24GiBPages));
}

// Item 3 on a real file system: a tmpfs that holds the whole tree, filled so that only
// a little space is left. At every budget the apply either succeeds, or fails with
// every file old, the journal saying so, and a rollback that never failed (the
// journal's reserved space is given back before it runs).
TEST(FixFullDisk, ATmpfsThatFillsUpNeverStrandsAChange) {
  std::string tmpl = (fs::temp_directory_path() / "amdml-full-XXXXXX").string();
  ASSERT_TRUE(::mkdtemp(tmpl.data()));
  fs::path mnt = tmpl;
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=8m,mode=0755") != 0) {
    fs::remove(mnt);
    GTEST_SKIP() << "mount not permitted here";
  }
  int ok = 0, failed = 0;
  for (int free_kib = 0; free_kib <= 1200; free_kib += free_kib < 160 ? 16 : 104) {
    SCOPED_TRACE("free KiB " + std::to_string(free_kib));
    fs::path root = mnt / "tree";
    std::system(("rm -rf '" + root.string() + "' '" + (mnt / "filler").string() + "'").c_str());
    fs::create_directories(root);
    copy_fixture("fix-apu", root);
    ::chmod((root / "etc/gshadow").c_str(), 0640);
    const auto original = snapshot(root);
    Diagnosed d(root.string());
    std::vector<Finding> findings;
    // The journal under a full disk, with the file-writing recipes (rocm-install's apt
    // commands add command records of their own to the reserve: tests/apt covers it).
    for (const auto& f : d.findings)
      if (!f.fix || f.fix->recipe != "rocm-install") findings.push_back(f);
    findings.push_back(ttm_finding());
    findings.push_back(literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}}));
    platform::SafeTree tree(root.string());
    PlanRequest in{*d.host, tree, d.facts, findings, d.recipes, std::nullopt};
    FixPlan p = plan_fixes(in);
    ASSERT_TRUE(p.pending());
    // Fill the file system, leaving free_kib.
    std::system(("dd if=/dev/zero of='" + (mnt / "filler").string() + "' bs=4k 2>/dev/null; truncate -s -" +
                 std::to_string(free_kib) + "K '" + (mnt / "filler").string() + "'").c_str());
    auto r = apply_plan(p, *d.host, tree, tree, rooted_options());
    fs::remove(mnt / "filler");
    if (!r) {
      EXPECT_EQ(snapshot(root), original);
      continue;
    }
    if (r->ok) {
      ++ok;
      continue;
    }
    ++failed;
    EXPECT_TRUE(r->rollback_errors.empty()) << r->rollback_errors.front();
    EXPECT_EQ(snapshot(root), original);
    auto j = json::parse(read_file(root / ("var/lib/amdml/journal/" + r->txn + "/journal.json")), nullptr, false);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_EQ(j["state"], "rolled-back");
    auto u = undo_transaction(std::nullopt, *d.host, tree, tree, rooted_options());
    ASSERT_TRUE(u) << u.error().message;
    EXPECT_EQ(snapshot(root), original);
  }
  ::umount(mnt.c_str());
  fs::remove_all(mnt);
  EXPECT_GT(failed, 0) << "the disk never filled up";
  EXPECT_GT(ok, 0) << "no budget was enough";
  std::printf("[ full disk ] %d budgets applied, %d failed cleanly\n", ok, failed);
}

void expect_note(const RecipePlan& rp, const std::string& note) {
  EXPECT_NE(std::find(rp.notes.begin(), rp.notes.end(), note), rp.notes.end()) << note;
}

// rocm-install with commands that run: the key is fetched when applied (fix::fetch_keys)
// and checked against the pinned fingerprint, dearmored; apt's commands run after the
// files; --undo restores the files and runs each command's inverse, newest first (remove
// what was installed, then reinstall what was removed).
TEST(FixJournal, RocmInstallUndoRunsTheInversesNewestFirst) {
  TestTree t("rocm-install-780m-ubuntu-rocm57");
  const std::string key = kTestKey;  // the throwaway key of tests/support/test_key.hpp
  const auto original = snapshot(t.dir);
  const fs::path key_file = fs::path(t.str()).parent_path() / (fs::path(t.str()).filename().string() + ".key.asc");
  write_file(key_file, key);
  Diagnosed d(t.str());
  for (auto& f : d.findings)
    if (auto* p = f.fix ? std::get_if<RocmInstallParams>(&f.fix->params) : nullptr) {
      p->key_url = "file://" + key_file.string();
      p->fingerprint = kTestKeyFingerprint;
    }
  RunningHost host(*d.host, "");
  platform::SafeTree tree(t.str());
  PlanRequest in{host, tree, d.facts, d.findings, d.recipes, std::string("rocm-install")};
  FixPlan p = plan_fixes(in);
  ASSERT_TRUE(p.pending()) << render::format_plan(p, true, "");
  ASSERT_EQ(host.runs.size(), 1u);  // nothing fetched while planning
  EXPECT_EQ(host.runs[0][1], "-s");  // the removal simulated: it names the dependents too
  expect_note(p.recipes[0], "apt also removes libhsa-runtime-dev, which depend on them");
  ASSERT_TRUE(fetch_keys(p, host));
  const FileChange* keyring = nullptr;
  for (const auto& fc : p.recipes[0].files)
    if (fc.path == "/etc/apt/keyrings/amdrocm.gpg") keyring = &fc;
  ASSERT_TRUE(keyring);
  EXPECT_EQ(keyring->after, formats::dearmor_public_key(key).value());
  host.runs.clear();

  ApplyOptions o = rooted_options();
  o.run_commands = true;
  auto r = apply_plan(p, host, tree, tree, o);
  fs::remove(key_file);
  ASSERT_TRUE(r && r->ok);
  ASSERT_EQ(host.runs.size(), 3u);  // remove Ubuntu's, update the one list, install
  auto has = [](const std::vector<std::string>& argv, const std::string& w) {
    return std::find(argv.begin(), argv.end(), w) != argv.end();
  };
  EXPECT_TRUE(has(host.runs[0], "remove") && has(host.runs[0], "libhsa-runtime64-1"));
  auto amd = [](const std::vector<std::string>& argv) {
    return std::any_of(argv.begin(), argv.end(), [](const std::string& a) { return a.starts_with("amdrocm") && a.find("gfx1103") != a.npos; });
  };
  EXPECT_TRUE(has(host.runs[2], "install") && amd(host.runs[2]));
  auto j = journal_of(t, r->txn);
  EXPECT_EQ(json_bytes(j["commands"][2]["undo"][5]).value_or("?"), "remove");

  auto u = undo_transaction(std::nullopt, host, tree, tree, o);
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(snapshot(t.dir), original);
  ASSERT_EQ(host.runs.size(), 5u);  // the update has no inverse
  EXPECT_TRUE(has(host.runs[3], "remove") && has(host.runs[3], "--autoremove") && amd(host.runs[3]));
  EXPECT_TRUE(has(host.runs[4], "install") && has(host.runs[4], "libhsa-runtime64-1") && has(host.runs[4], "libhsa-runtime-dev"));
}

namespace {

// apt-get in a temp root: `install ... rocm` adds rocm, rocm-core and a half-configured
// amdgpu-dkms to the tree's dpkg status and fails (exit 100, as apt does when a
// maintainer script fails); `purge` takes the named packages out of the status again.
// Every other command succeeds. It notes whether the sources were still there at purge.
class FakeApt final : public test::ForwardingHost {
 public:
  FakeApt(const Host& inner, fs::path root) : ForwardingHost(inner), root_(std::move(root)) {}
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override {
    runs.push_back(argv);
    CommandResult r;
    r.exit_code = 0;
    auto has = [&](const char* w) { return std::find(argv.begin(), argv.end(), w) != argv.end(); };
    const fs::path status = root_ / "var/lib/dpkg/status";
    if (!argv.empty() && argv[0] == "curl") {  // the signing key, armored
      r.out = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQENYWJj\n=AbCd\n-----END PGP PUBLIC KEY BLOCK-----\n";
      return r;
    }
    // The release's install (AMD's names: rocm, or amdrocm10.1-gfx1103 since TheRock), not
    // the inverse of the removal that reinstalls the distribution's packages.
    const bool release = has("rocm") || std::any_of(argv.begin(), argv.end(), [](const std::string& w) {
                           return w.starts_with("amdrocm");
                         });
    if (has("install") && release) {
      write_file(status, test::read_file(status) +
                             "\nPackage: rocm-core\nStatus: install ok installed\nVersion: 7.2.1\n"
                             "\nPackage: amdgpu-dkms\nStatus: install ok half-configured\nVersion: 6.16.6\n"
                             "\nPackage: rocm\nStatus: install ok unpacked\nVersion: 7.2.1\n");
      r.exit_code = 100;
      r.err = "E: Sub-process /usr/bin/dpkg returned an error code (1)\n";
      return r;
    }
    if (has("purge")) {
      sources_at_purge = fs::exists(root_ / "etc/apt/sources.list.d/rocm.list");
      std::string text = test::read_file(status), kept;
      for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find("\n\n", pos);
        std::string stanza = text.substr(pos, end == std::string::npos ? std::string::npos : end + 2 - pos);
        pos = end == std::string::npos ? text.size() : end + 2;
        std::string name = stanza.substr(9, stanza.find('\n') - 9);
        if (std::find(argv.begin(), argv.end(), name) == argv.end()) kept += stanza;
      }
      while (kept.size() > 1 && kept.compare(kept.size() - 2, 2, "\n\n") == 0) kept.pop_back();
      write_file(status, kept);
    }
    r.exit_code = 0;
    return r;
  }
  mutable std::vector<std::vector<std::string>> runs;
  mutable bool sources_at_purge = false;

 private:
  fs::path root_;
};

}  // namespace

// Issue 29 M11: a failed apt-get install is undone to the state before it. The journal
// keeps the packages dpkg had before the attempt; the rollback purges exactly the ones
// the attempt added (the half-configured amdgpu-dkms too), before the sources go.
TEST(FixJournal, AFailedAptInstallIsPurgedBackToWhatDpkgHadBefore) {
  TestTree t("rocm-install-780m-ubuntu-rocm57");
  const auto original = snapshot(t.dir);
  // The repository's key, fetched at apply time and checked against the pinned
  // fingerprint: a throwaway one beside the tree (as in RocmInstallUndoRunsTheInversesNewestFirst).
  const fs::path key_file = fs::path(t.str()).parent_path() / (fs::path(t.str()).filename().string() + ".key.asc");
  write_file(key_file, kTestKey);
  Diagnosed d(t.str());
  for (auto& f : d.findings)
    if (auto* rp = f.fix ? std::get_if<RocmInstallParams>(&f.fix->params) : nullptr) {
      rp->key_url = "file://" + key_file.string();
      rp->fingerprint = kTestKeyFingerprint;
    }
  FakeApt host(*d.host, t.dir);
  platform::SafeTree tree(t.str());
  PlanRequest in{host, tree, d.facts, d.findings, d.recipes, std::string("rocm-install")};
  FixPlan p = plan_fixes(in);
  ASSERT_TRUE(p.pending()) << render::format_plan(p, true, "");
  ASSERT_TRUE(fetch_keys(p, host));
  fs::remove(key_file);
  host.runs.clear();
  ApplyOptions o = rooted_options();
  o.run_commands = true;
  auto r = apply_plan(p, host, tree, tree, o);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->rolled_back);
  EXPECT_TRUE(r->rollback_errors.empty());
  ASSERT_TRUE(r->failure);
  EXPECT_NE(r->failure->message.find("returned an error code"), std::string::npos) << r->failure->message;
  const std::vector<std::string> purge = {"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q",
                                          "purge", "amdgpu-dkms", "rocm", "rocm-core"};
  EXPECT_NE(std::find(host.runs.begin(), host.runs.end(), purge), host.runs.end());
  EXPECT_TRUE(host.sources_at_purge) << "the packages must go before the sources they came from";
  // dpkg's status, the sources, the pin: as before the apply.
  EXPECT_EQ(snapshot(t.dir), original);
  auto j = journal_of(t, r->txn);
  EXPECT_EQ(j["state"], "rolled-back");
  bool recorded = false;
  for (const auto& c : j["commands"])
    if (c.contains("packages_before")) {
      recorded = true;
      EXPECT_EQ(c["state"], "failed");
      EXPECT_NE(std::find(c["packages_before"].begin(), c["packages_before"].end(), "libhsa-runtime64-1"), c["packages_before"].end());
      EXPECT_EQ(std::find(c["packages_before"].begin(), c["packages_before"].end(), "rocm"), c["packages_before"].end());
    }
  EXPECT_TRUE(recorded) << j["commands"].dump(1);
}
