// Every command amdml prints is one a shell runs exactly as meant (issue 29 S2, S3, L2,
// L3): a value from the machine holding ' " $( ` ; | & a newline and a byte that is
// not UTF-8 is fed through every rule on every fixture machine and through the fix
// plans, and each printed command that carries it is played in a shell where nothing
// real runs (support/shell_play.hpp): `sh -n` accepts it, nothing in the value runs,
// the value reaches its program byte for byte, and what a command writes is the plan's
// bytes. The doctor's text and JSON carry the same command unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "platform/safe_tree.hpp"
#include "render/render.hpp"
#include "render/fix_text.hpp"
#include "support/knowledge.hpp"
#include "support/shell_play.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::test;

namespace {

// Runs code if pasted unquoted: each `amdml_pwned` is a call of its own. The marker
// finds the commands that carry it.
const std::string kMarker = "amdmlH";
const std::string kHostile =
    kMarker + "'q\"$(amdml_pwned 1)`amdml_pwned 2`;amdml_pwned 3|amdml_pwned 4&amdml_pwned 5 %s\\n\n\xff\xfe end";

// The facts a machine could hold, each string a rule may print set to a hostile one
// (keeping the shape the rule looks for: a user, a group, a path, a UUID).
void poison(Facts& f) {
  const std::string h = kHostile;
  auto& id = f.identity;
  const std::string old_user = id.user;
  id.user = "u" + h;
  for (auto& g : id.groups)
    for (auto& m : g.members)
      if (m == old_user) m = id.user;
  for (auto& pw : id.passwd)
    if (pw.name == old_user) pw.name = id.user;
  std::map<std::string, std::string> renamed;
  for (auto& d : id.devices)
    if (d.group && *d.group != "root") renamed[*d.group] = "g" + *d.group + h;
  for (auto& d : id.devices)
    if (d.group && renamed.count(*d.group)) d.group = renamed[*d.group];
  for (auto& g : id.groups)
    if (renamed.count(g.name)) g.name = renamed[g.name];
  if (id.nss_groups)
    for (auto& g : *id.nss_groups)
      if (renamed.count(g.name)) g.name = renamed[g.name];
  for (auto& g : f.gpus) {
    if (g.unique_id) g.unique_id = "0x" + h;
    if (g.render_node) g.render_node = *g.render_node + h;
  }
  if (f.rocm.path && (f.rocm.source == RocmSource::opt_rocm || f.rocm.source == RocmSource::rocm_path)) {
    f.rocm.path = "/opt/rocm" + h;
    f.rocm.resolved_path = "/opt/rocm-6.2.4" + h;
    f.env["PATH"] = "/usr/bin:/bin";
    f.env["LD_LIBRARY_PATH"] = "/opt/rocm-5.7.1" + h + "/lib";
    f.rocm.installed.push_back("/opt/rocm-5.7.1" + h);
  }
  for (auto& [k, v] : f.env)
    if (k.starts_with("HSA_OVERRIDE_GFX_VERSION")) v += h;
  f.env["HSA_OVERRIDE_GFX_VERSION_" + h] = "11.0.0";
  if (f.ml.ollama.service) f.ml.ollama.service->user = "o" + h;
  for (auto& env : f.ml.python) {
    env.interpreter = "/home/p" + h + "/bin/python3";
    env.prefix = "/home/p" + h;
  }
  if (f.container.docker.socket_group) f.container.docker.socket_group = "d" + h;
  // In the docker group per /etc/group but not in this session: the line names the group.
  if (f.container.docker.socket_gid && id.process.groups) {
    auto& gs = *id.process.groups;
    gs.erase(std::remove(gs.begin(), gs.end(), *f.container.docker.socket_gid), gs.end());
  }
  for (auto& o : f.modprobe.options) o.file = "/etc/modprobe.d/m" + h + ".conf";
  f.driver.cmdline_options["amdgpu.gtt_size"] = "1" + h;
}

// A command that carries the value, played: what must hold of it.
void expect_safe(const std::string& where, const std::string& command) {
  SCOPED_TRACE(where + ": " + command);
  // A program named by an absolute path is not looked up, so not recorded: a recorded
  // name in front takes it as its first argument instead.
  const bool path_first = command[0] == '/' || command[0] == '\'' || command[0] == '"';
  const Played p = play_command(path_first ? "amdml_argv0 " + command : command);
  EXPECT_EQ(p.sh_syntax, 0);
  EXPECT_EQ(p.bash_syntax, 0);
  EXPECT_FALSE(p.called("amdml_pwned")) << "a value ran as code";
  // The whole value arrived somewhere as one piece -- except where the word is a
  // variable name: `unset` refuses one that is not a name, and that is all it does.
  if (!command.starts_with("unset ")) {
    EXPECT_TRUE(p.delivered(kHostile)) << "the value did not arrive byte for byte";
  }
  // What a person copies from the text or the JSON is this very command.
  EXPECT_EQ(render::terminal_text(command, false), command);
  EXPECT_EQ(nlohmann::json::parse(render::json_text(nlohmann::json(command))).get<std::string>(), command);
}

}  // namespace

// Every fixture machine, every rule, every finding: the commands that print a hostile
// value quote it. The finding ids that did are many (not one lucky rule).
TEST(CommandQuoting, EveryFindingOnEveryMachineQuotesWhatTheMachineSaid) {
  std::set<std::string> ids_with_value;
  int played = 0;
  for (const auto& machine : fixture_machines()) {
    Diagnosed d(machine.string());
    Facts facts = d.facts;
    poison(facts);
    auto findings = diagnose(facts, shipped_knowledge());
    platform::SafeTree tree(d.host->root());
    fix::AdviceInputs in{*d.host, tree, facts, d.recipes, std::nullopt};
    (void)fix::advise(in, findings);
    for (const auto& fd : findings)
      for (const auto& c : fd.commands) {
        if (c.find(kMarker) == std::string::npos) continue;
        ids_with_value.insert(std::string(to_string(fd.id)));
        expect_safe(machine.filename().string() + " " + std::string(to_string(fd.id)), c);
        ++played;
      }
  }
  std::string ids;
  for (const auto& i : ids_with_value) ids += i + " ";
  SCOPED_TRACE(ids);
  EXPECT_GE(ids_with_value.size(), 7u);
  for (const char* id : {"access.kfd", "env.rocm-path", "ollama.access", "container.host-docker", "torch.build"})
    EXPECT_TRUE(ids_with_value.count(id)) << id << " printed no command with the value";
  EXPECT_GT(played, 20);
}

// The plan of every fixture machine: each `run:` line runs exactly its argv, and each
// hand command derived from a plan writes exactly the plan's bytes.
TEST(CommandQuoting, EveryPlanCommandAndHandCommandDoesExactlyWhatThePlanSays) {
  int checked = 0;
  for (const auto& machine : fixture_machines()) {
    Diagnosed d(machine.string());
    platform::SafeTree tree{machine.string()};
    fix::PlanRequest in{*d.host, tree, d.facts, d.findings, d.recipes, std::nullopt};
    in.list_initramfs = false;
    const FixPlan plan = fix::plan_fixes(in);
    for (const auto& rp : plan.recipes) {
      if (rp.refused || !rp.pending()) continue;
      SCOPED_TRACE(machine.filename().string() + " " + rp.ref.recipe);
      for (const auto& c : rp.commands) {
        // A program named by its path (a venv's python3) is not on this machine, and the
        // shell looks no further: behind a stand-in name its words show what it is passed.
        const bool by_path = !c.argv.empty() && c.argv[0].find('/') != std::string::npos;
        const Played p = play_command(by_path ? "amdml-argv " + c.text() : c.text());
        std::vector<std::string> want = c.argv;
        if (by_path) want.insert(want.begin(), "amdml-argv");
        ASSERT_FALSE(p.calls.empty()) << c.text();
        EXPECT_EQ(p.calls[0].argv, want) << c.text();
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10);
}

// The three ways a hand command writes a file (append, sed on the lines that change,
// the whole file) and a new file, with hostile bytes in the lines: the bytes written
// are the plan's.
TEST(CommandQuoting, HandCommandsWriteThePlansBytesWhateverTheFileHolds) {
  const std::string h = kHostile;
  const std::string hl = "# " + text::replace_all(h, "\n", " ");  // one line of it
  struct Case {
    const char* what;
    std::optional<std::string> before;
    std::string after;
  };
  const std::vector<Case> cases = {
      {"append", hl + "\nx=1\n", hl + "\nx=1\noptions ttm pages_limit=1 # " + hl + "\n"},
      {"change a line", "a=1\n" + hl + "\nb=2\n", "a=1\n" + hl + "\nb=3 " + hl + "\n"},
      {"whole file, no final newline", "a\n", "k=" + h},
      {"whole file", "old\n" + hl + "\n", hl + "\n\xff\n\n  lead\n\\back\n"},
      {"new file", std::nullopt, hl + "\nline\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    RecipePlan rp;
    rp.files.push_back(FileChange{"/etc/modprobe.d/" + std::string("x ") + h + ".conf", c.before, c.after, 0644, "why"});
    rp.commands.push_back(Command{{"update-initramfs", "-u", "-k", "all " + h}, "why"});
    const auto cmds = fix::hand_commands(rp);
    ASSERT_GE(cmds.size(), 2u);
    const Played p = play_command(cmds[0].first);
    EXPECT_EQ(p.sh_syntax, 0) << cmds[0].first;
    EXPECT_FALSE(p.called("amdml_pwned"));
    ASSERT_FALSE(p.calls.empty()) << cmds[0].first;
    const auto& call = p.calls.back();
    ASSERT_FALSE(call.argv.empty());
    EXPECT_EQ(call.argv.back(), rp.files[0].path);
    std::string wrote;
    if (call.argv[0] == "tee" && call.argv[1] == "-a") wrote = *c.before + call.stdin_bytes;
    else if (call.argv[0] == "tee" || call.argv[0] == "install") wrote = call.stdin_bytes;
    else if (call.argv[0] == "sed") wrote = run_sed_on(call.argv, *c.before);
    else ADD_FAILURE() << "unexpected " << call.argv[0];
    EXPECT_EQ(wrote, c.after) << cmds[0].first;
    const Played cmd = play_command(cmds[1].first);
    ASSERT_EQ(cmd.calls.size(), 1u);
    EXPECT_EQ(cmd.calls[0].argv, rp.commands[0].argv);
  }
}

// rocm-install's set-aside of release directories with any name (L3: a copy with a
// blank refuses nothing; S3: a name full of shell syntax is one quoted word in `run:`).
TEST(CommandQuoting, SetAsideNamesAreRenamedWhateverTheyHoldAndPrintedQuoted) {
  TestTree t("bad-symlinks");
  const std::vector<std::string> names = {"/opt/rocm-6.2.4 (copy)", "/opt/rocm-6.1.0" + kHostile};
  for (const auto& n : names) t.write(n + "/.info/version", "6.1.0\n");
  Diagnosed d(t.str());
  std::vector<Finding> findings;
  for (auto f : d.findings)
    if (f.fix && f.fix->recipe == "rocm-install") {
      auto& p = std::get<RocmInstallParams>(f.fix->params);
      p.set_aside = names;
      findings.push_back(f);
    }
  ASSERT_FALSE(findings.empty());
  platform::SafeTree tree{t.str()};
  fix::PlanRequest in{*d.host, tree, d.facts, findings, d.recipes, std::string("rocm-install")};
  const FixPlan plan = fix::plan_fixes(in);
  ASSERT_EQ(plan.recipes.size(), 1u);
  const auto& rp = plan.recipes[0];
  ASSERT_FALSE(rp.refused) << rp.refused->message;
  int renames = 0;
  for (const auto& c : rp.commands) {
    if (!c.rename) continue;
    ++renames;
    const Played p = play_command(c.text());
    EXPECT_EQ(p.sh_syntax, 0) << c.text();
    EXPECT_FALSE(p.called("amdml_pwned")) << c.text();
    ASSERT_EQ(p.calls.size(), 1u) << c.text();
    EXPECT_EQ(p.calls[0].argv, c.argv);
  }
  EXPECT_EQ(renames, 2);
  const std::string text = render::terminal_text(render::format_plan(plan, true, "sudo amdml fix --apply"), false);
  for (const auto& c : rp.commands) EXPECT_NE(text.find("  run: " + c.text() + "   # "), std::string::npos) << text;
}
