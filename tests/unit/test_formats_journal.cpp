// journal.json's codec (src/formats/journal.*): a typed Transaction written and read back
// gives the same bytes; a journal as the previous amdml (format 2) wrote it reads with
// each command's state told from "ran" and its exit; damaged fields are one error that
// names the field; bytes that are not UTF-8 survive.
#include <gtest/gtest.h>

#include "base/base64.hpp"
#include "formats/journal.hpp"

using namespace amdml;
using namespace amdml::formats;

namespace {

Transaction sample() {
  Transaction t;
  t.id = "0003-20261126T010000Z";
  t.created = "2026-11-26T01:00:00Z";
  t.root = "/tmp/x\xff";
  t.state = TxnState::applying;
  t.recipes = {"rocm-install"};
  t.requests = std::vector<Request>{{"rocm-install", nlohmann::json{{"release", "7.2.1"}, {"set_aside", {"/opt/rocm-6.2.4"}}}}};
  Change c;
  c.path = "/etc/apt/sources.list.d/rocm.list";
  c.recipe = "rocm-install";
  c.after = "0.after";
  c.created_dirs = {"/etc/apt", "/etc/apt/sources.list.d"};
  t.changes.push_back(c);
  Change g;
  g.path = "/etc/group";
  g.recipe = "rocm-install";
  g.existed = true;
  g.before = "1.before";
  g.after = "1.after";
  g.mode = 0644;
  g.uid = 0;
  g.gid = 0;
  g.state = ChangeState::written;
  t.changes.push_back(g);
  CommandRecord mv;
  mv.argv = {"mv", "-T", "--", "/opt/rocm-6.2.4", "/opt/amdml-set-aside-rocm-6.2.4"};
  mv.recipe = "rocm-install";
  mv.rename = true;
  mv.undo = std::vector<std::string>{"mv", "-T", "--", "/opt/amdml-set-aside-rocm-6.2.4", "/opt/rocm-6.2.4"};
  mv.state = CommandState::running;
  t.commands.push_back(mv);
  CommandRecord install;
  install.argv = {"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q", "install", "rocm"};
  install.recipe = "rocm-install";
  install.undo = std::vector<std::string>{};
  install.packages_before = std::vector<std::string>{"bash", "libc6"};
  install.state = CommandState::failed;
  install.exit_code = 100;
  install.err = "E: \xe9";
  install.note = "exit 100";
  install.timeout_ms = 3600000;
  t.commands.push_back(install);
  return t;
}

}  // namespace

TEST(FormatsJournal, WriteThenReadThenWriteGivesTheSameBytes) {
  const std::string text = write_journal(sample());
  auto back = read_journal(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(write_journal(*back), text);
  EXPECT_EQ(back->root, "/tmp/x\xff");
  EXPECT_EQ(back->commands[0].state, CommandState::running);
  EXPECT_TRUE(back->commands[0].rename);
  EXPECT_EQ(back->commands[1].packages_before, (std::vector<std::string>{"bash", "libc6"}));
  EXPECT_EQ(back->commands[1].err, "E: \xe9");
  EXPECT_EQ(back->changes[0].created_dirs, (std::vector<std::string>{"/etc/apt", "/etc/apt/sources.list.d"}));
  EXPECT_EQ((*back->requests)[0].params["set_aside"][0], "/opt/rocm-6.2.4");
  // Non-UTF-8 bytes are base64 in the text.
  EXPECT_NE(text.find("\"base64\""), std::string::npos);
}

// journal.json exactly as the amdml before typed journals (format 2) wrote it: commands
// recorded after they ran, "ran" true or false, no command states.
TEST(FormatsJournal, AFormatTwoJournalFromTheLastReleaseReads) {
  const std::string old = R"J({
  "changes": [
    {"after": "0.after", "before": "0.before", "created_dirs": [], "existed": true, "gid": 0, "mode": 420,
     "path": "/etc/default/grub", "recipe": "kernel-cmdline", "state": "written", "uid": 0}
  ],
  "commands": [
    {"argv": ["update-grub"], "exit_code": 0, "note": "exit 0", "ran": true, "signal": 0, "stderr": "",
     "stdout": {"base64": "6Q=="}, "timed_out": false},
    {"argv": ["mv", "-T", "--", "/opt/rocm-6.2.4", "/opt/amdml-set-aside-rocm-6.2.4"], "exit_code": 1, "note": "busy",
     "ran": true, "rename": true, "signal": 0, "stderr": "busy", "stdout": "", "timed_out": false,
     "undo": ["mv", "-T", "--", "/opt/amdml-set-aside-rocm-6.2.4", "/opt/rocm-6.2.4"]},
    {"argv": ["systemctl", "daemon-reload"], "note": "recorded, not run (--root)", "ran": false}
  ],
  "created": "2026-11-21T06:15:00Z",
  "format": 2,
  "id": "0001-20261121T061500Z",
  "recipes": ["kernel-cmdline"],
  "requests": [{"params": {"remove": ["amdgpu.gttsize"], "set": {"ttm.pages_limit": "6815744"}}, "recipe": "kernel-cmdline"}],
  "root": "/",
  "state": "applied"
})J";
  auto t = read_journal(old);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->format, 2);
  EXPECT_EQ(t->state, TxnState::applied);
  ASSERT_EQ(t->commands.size(), 3u);
  EXPECT_EQ(t->commands[0].state, CommandState::ran);
  EXPECT_EQ(t->commands[0].out, "\xe9");
  EXPECT_EQ(t->commands[1].state, CommandState::failed);
  EXPECT_EQ(t->commands[2].state, CommandState::recorded);
  EXPECT_EQ(t->changes[0].state, ChangeState::written);
  EXPECT_EQ(t->changes[0].mode, 0644u);
  EXPECT_EQ((*t->requests)[0].params["set"]["ttm.pages_limit"], "6815744");
  // Written again, it is format 3 and reads back the same.
  auto again = read_journal(write_journal(*t));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->commands[1].state, CommandState::failed);
}

TEST(FormatsJournal, AFormatOneJournalHasNoRequests) {
  auto t = read_journal(R"({"state": "applied", "changes": [{"path": "/etc/group", "existed": false, "after": "0.after"}]})");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->format, 1);
  EXPECT_FALSE(t->requests);
  EXPECT_EQ(t->changes[0].state, ChangeState::written);
}

TEST(FormatsJournal, DamagedFieldsAreOneErrorNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1]", "not a JSON object"},
      {"{", "not JSON"},
      {R"({"state": "sleeping", "changes": []})", "not a transaction state"},
      {R"({"format": 9, "state": "applied", "changes": []})", "format 9"},
      {R"({"state": "applied", "changes": [{"path": 7, "existed": false, "after": "a"}]})", "changes[0].path"},
      {R"({"state": "applied", "changes": [{"path": "/x", "existed": true, "after": "a", "before": "../b"}]})",
       "changes[0].before"},
      {R"({"state": "applied", "changes": [], "commands": [{"argv": ["a"], "state": "maybe"}]})", "commands[0].state"},
      {R"({"state": "applied", "changes": [], "commands": [{"argv": ["a"], "packages_before": [1]}]})",
       "commands[0].packages_before"},
      {R"({"state": "applied", "changes": [{"path": "/x", "existed": false, "after": "a", "created_dirs": "/etc"}]})",
       "changes[0].created_dirs is not a list"},
  };
  for (const auto& [text, want] : cases) {
    auto t = read_journal(text);
    ASSERT_FALSE(t) << text;
    EXPECT_NE(t.error().message.find(want), std::string::npos) << text << ": " << t.error().message;
    EXPECT_EQ(t.error().message.find('\n'), std::string::npos);
  }
}

TEST(FormatsJournal, Base64RoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (const std::string& s : {std::string(), std::string("a"), std::string("ab"), std::string("abc"), all}) {
    auto back = base64::decode(base64::encode(s));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(base64::decode("abc"));
  EXPECT_FALSE(base64::decode("a=bc"));
}
