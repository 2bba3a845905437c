// Every output survives any byte (issue 17, items 4 and 10): a fixture machine whose
// files hold Latin-1 bytes and terminal escapes. JSON documents stay valid (invalid
// UTF-8 becomes U+FFFD, control characters are JSON escapes), and text on the terminal
// never carries a raw control character from the machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "render/render.hpp"
#include "support/cli.hpp"

using namespace amdml::test;
using nlohmann::json;

namespace {

const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

void replace_in(const TestTree& t, const std::string& inner, const std::string& from, const std::string& to) {
  std::string text = read_file(t.real(inner));
  auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << inner << " has no " << from;
  text.replace(at, from.size(), to);
  t.write(inner, text);
}

// `amdml --root TREE ARGS...`, without colour unless ARGS ask for it.
CliRun amdml_on(const TestTree& t, std::vector<std::string> args) {
  if (std::find(args.begin(), args.end(), "--color") == args.end()) args.insert(args.begin(), {"--color", "never"});
  args.insert(args.begin(), {"--root", t.root()});
  return shell_run(amdml_command(args));
}

}  // namespace

// rdna2-dgpu with a Latin-1 byte in /etc/os-release's PRETTY_NAME, in a KFD sysfs value
// and in the ROCm version file.
TEST(AnyByte, JsonDocumentsSurviveLatin1Bytes) {
  TestTree t("rdna2-dgpu");
  replace_in(t, "etc/os-release", "22.04.4 LTS\"", "22.04.4 LTS \xE9" "dition\"");
  replace_in(t, "sys/class/kfd/kfd/topology/nodes/1/name", "sienna_cichlid", "sienna_cichlid\xE9");
  replace_in(t, "opt/rocm-6.2.4/.info/version", "6.2.4-120", "6.2.4-120\xE9");
  for (const std::string cmd : {"doctor", "check", "report", "info"}) {
    CliRun r = amdml_on(t, {cmd, "--format", "json"});
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << cmd << ": not one JSON document: " << r.out.substr(0, 300);
    EXPECT_NE(r.out.find("6.2.4-120" + kReplacement), std::string::npos) << cmd;
    if (cmd == "info") continue;  // info has no host or facts section
    EXPECT_EQ(doc["host"]["os"]["pretty_name"], "Ubuntu 22.04.4 LTS " + kReplacement + "dition") << cmd;
    EXPECT_EQ(doc["facts"]["kfd"]["nodes"][1]["name"], "sienna_cichlid" + kReplacement) << cmd;
  }
  // The snapshot's manifest is written by the same writer.
  CliRun r = amdml_on(t, {"snapshot", t.real("snap")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(json::parse(read_file(t.real("snap/amdml-host.json")), nullptr, false).is_discarded());
}

namespace {

// OSC 52 (write the clipboard) and OSC 0 (set the window title), as a hostile or broken
// machine could plant them in any value amdml shows.
const std::string kClipboard = "\x1b]52;c;SGVsbG8=\x07";
const std::string kTitle = "\x1b]0;pwned\x07";
const std::string kClipboardShown = "\\x1b]52;c;SGVsbG8=\\x07";

// Text for a terminal: no control character but newline and tab, and an escape only as
// one of amdml's own colour codes (ESC [ digits ; m).
std::string raw_controls(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\t') continue;
    if (c == 0x1b) {
      std::size_t j = i + 1;
      if (j < text.size() && text[j] == '[') {
        ++j;
        while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == ';')) ++j;
        if (j < text.size() && text[j] == 'm') {
          i = j;
          continue;
        }
      }
      return "ESC at " + std::to_string(i) + ": " + text.substr(i, 20);
    }
    if (c < 0x20 || c == 0x7f) return "control " + std::to_string(c) + " at " + std::to_string(i);
  }
  return "";
}

}  // namespace

// Escapes in /etc/os-release and in an environment value: doctor and report text show
// them as visible \x1b text (coloured or not), JSON keeps the exact value.
TEST(AnyByte, TerminalEscapesFromTheMachineNeverReachTheTerminal) {
  TestTree t("rdna2-dgpu");
  replace_in(t, "etc/os-release", "22.04.4 LTS\"", "22.04.4 LTS" + kClipboard + kTitle + "\"");
  replace_in(t, "amdml-host.json", "/sbin:/bin\"", "/sbin:/bin:\\u001b]52;c;SGVsbG8=\\u0007\"");
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"doctor"}, {"--color", "always", "doctor"},
                                              {"doctor", "--format", "markdown"}, {"report"}, {"check"}}) {
    CliRun r = amdml_on(t, cmd);
    std::string what = cmd.back();
    EXPECT_EQ(raw_controls(r.out), "") << what;
    EXPECT_EQ(raw_controls(r.err), "") << what;
    EXPECT_NE(r.out.find("22.04.4 LTS" + kClipboardShown + "\\x1b]0;pwned\\x07"), std::string::npos) << what << r.out;
    EXPECT_NE(r.out.find("/sbin:/bin:" + kClipboardShown), std::string::npos) << what << r.out;
  }
  CliRun r = amdml_on(t, {"doctor", "--format", "json"});
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["host"]["os"]["pretty_name"], "Ubuntu 22.04.4 LTS" + kClipboard + kTitle);
  EXPECT_EQ(doc["facts"]["env"]["PATH"], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:" + kClipboard);
}

// The fix plan shows file text (diff context) from the machine: the same.
TEST(AnyByte, FixPlanShowsEscapesInFilesVisibly) {
  TestTree t("user-not-in-render");
  replace_in(t, "etc/group", "users:x:100:alice", "users:x:100:alice" + kClipboard);
  CliRun r = amdml_on(t, {"fix"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(raw_controls(r.out), "");
  EXPECT_NE(r.out.find("users:x:100:alice" + kClipboardShown), std::string::npos) << r.out;
}

// A product name from the runtime (the fake answers one with OSC 52 and a title change).
TEST(AnyByte, InfoShowsEscapesInTheRuntimeAnswerVisibly) {
  std::string env = "AMDML_HSA_LIBRARY=" + sh_quote(AMDML_FAKE_HSA_LIBRARY) +
                    " AMDML_FAKE_HSA=" + sh_quote(std::string(AMDML_FAKE_HSA_VARIANTS) + "/escapes.json") + " ";
  CliRun r = shell_run(env + amdml_command({"info", "--runtime-timeout", "20"}));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(raw_controls(r.out), "");
  EXPECT_NE(r.out.find("Radeon \\x1b]52;c;SGk=\\x07RX 7900 XTX\\x1b]0;pwned\\x07"), std::string::npos) << r.out;
  r = shell_run(env + amdml_command({"info", "--runtime-timeout", "20", "--format", "json"}));
  json doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["agents"][1]["marketing_name"], "Radeon \x1b]52;c;SGk=\x07RX 7900 XTX\x1b]0;pwned\x07");
}

// The sanitiser itself: what each kind of byte becomes.
TEST(AnyByte, TerminalTextRules) {
  EXPECT_EQ(amdml::render::terminal_text("a\tb\nc", false), "a\tb\nc");
  EXPECT_EQ(amdml::render::terminal_text("\x1b[31mred\x1b[0m", false), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(amdml::render::terminal_text("\x1b[1;31mred\x1b[0m", true), "\x1b[1;31mred\x1b[0m");  // amdml's own
  EXPECT_EQ(amdml::render::terminal_text("\x1b[31mred", true), "\\x1b[31mred");                  // not amdml's
  EXPECT_EQ(amdml::render::terminal_text("cr\r\x7f", false), "cr\\x0d\\x7f");
  EXPECT_EQ(amdml::render::terminal_text("\xc2\x9b" "2J", false), "\\u009b2J");   // C1 CSI
  EXPECT_EQ(amdml::render::terminal_text("caf\xe9", false), "caf\xEF\xBF\xBD");  // Latin-1
  EXPECT_EQ(amdml::render::terminal_text("\xc3\xa9\xe2\x9c\x93", false), "\xc3\xa9\xe2\x9c\x93");  // é ✓
  std::string five_replacements;
  for (int i = 0; i < 5; ++i) five_replacements += kReplacement;
  EXPECT_EQ(amdml::render::terminal_text("\xc0\xaf\xed\xa0\x80", false), five_replacements);  // overlong, surrogate
}

// One writer for JSON: no `.dump(` outside render/json.cpp, where the invalid-UTF-8
// policy lives, so a new document cannot bring back json type_error 316. The fix
// journal's codec (src/formats/journal.cpp) and src/fix have their own (the journal keeps
// bytes, not text: issue 17 part B; every value is UTF-8 or base64 before it is dumped).
TEST(AnyByte, EveryJsonDocumentGoesThroughOneWriter) {
  std::vector<std::string> found;
  for (const char* dir : {"src", "probes", "include"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(AMDML_SOURCE_DIR) + "/" + dir)) {
      std::string rel = e.path().string().substr(std::string(AMDML_SOURCE_DIR).size() + 1);
      if (!e.is_regular_file() || rel == "src/render/json.cpp" || rel == "src/formats/journal.cpp" || rel.starts_with("src/fix/")) continue;
      std::istringstream lines(read_file(e.path().string()));
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n)
        if (line.find(".dump(") != std::string::npos) found.push_back(rel + ":" + std::to_string(n) + ": " + line);
    }
  }
  std::string all;
  for (const auto& f : found) all += f + "\n";
  EXPECT_TRUE(found.empty()) << "use json_text() instead:\n" << all;
}
