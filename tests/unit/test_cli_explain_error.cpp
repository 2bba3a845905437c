// `amdml explain "<error text>"` and `amdml explain -` through the built binary: causes
// confirmed and ruled out on --root machines, a pasted ollama log, JSON, unknown text
// (exit 2 with the nearest entries) and hostile or huge stdin.
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"

using namespace amdml::test;

namespace {

std::string root(const std::string& machine) { return fixture(machine); }

const nlohmann::json* cause(const nlohmann::json& match, int rank) {
  for (const auto& c : match["causes"])
    if (c["rank"] == rank) return &c;
  return nullptr;
}

bool has_evidence(const nlohmann::json& c, const std::string& source, bool supports) {
  for (const auto& e : c["evidence"])
    if (e["source"] == source && e["supports"] == supports) return true;
  return false;
}

}  // namespace

// The Secure Boot machine: the MOK cause is confirmed (finding and facts quoted), the
// "another module" cause ruled out because amdgpu is not loaded.
TEST(ExplainError, SecureBootCauseConfirmedAndAnotherRuledOut) {
  auto r = amdml_run({"--root", root("evid-secureboot-rejected"), "explain",
                      "Loading of module with unavailable key is rejected", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "amdml.explain/1");
  EXPECT_EQ(j["kind"], "message");
  ASSERT_FALSE(j["matches"].empty());
  const auto& m = j["matches"][0];
  EXPECT_EQ(m["id"], "kernel.module-key-rejected");
  const auto* mok = cause(m, 1);
  ASSERT_NE(mok, nullptr);
  EXPECT_EQ((*mok)["verdict"], "confirmed");
  EXPECT_NE((*mok)["text"].get<std::string>().find("MOK enrollment"), std::string::npos);
  EXPECT_TRUE(has_evidence(*mok, "kernel.module-rejected", true));
  EXPECT_TRUE(has_evidence(*mok, "secure-boot", true));
  EXPECT_NE((*mok)["commands"].dump().find("mokutil --import"), std::string::npos);
  const auto* other = cause(m, 2);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ((*other)["verdict"], "ruled-out");
  EXPECT_TRUE(has_evidence(*other, "driver-loaded", false));
  // Confirmed causes are listed before ruled-out ones.
  EXPECT_EQ(m["causes"][0]["verdict"], "confirmed");
  EXPECT_EQ(m["causes"].back()["verdict"], "ruled-out");
}

// The same text on a machine where amdgpu is loaded and Secure Boot unknown: the order flips.
TEST(ExplainError, TheSameTextOnAnotherMachineRulesDifferently) {
  auto r = amdml_run({"--root", root("rdna3-dgpu"), "explain", "Loading of module with unavailable key is rejected",
                      "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& m = j["matches"][0];
  const auto* other = cause(m, 2);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ((*other)["verdict"], "confirmed");
  EXPECT_EQ(m["causes"][0]["rank"], 2);
}

TEST(ExplainError, TextIsAlignedWrappedAndEndsWithTheNextCommand) {
  auto r = amdml_run({"--root", root("evid-secureboot-rejected"), "--color", "never", "explain",
                      "Loading of module with unavailable key is rejected"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Loading of module with unavailable key is rejected  [kernel.module-key-rejected]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    1 confirmed  Secure Boot refuses"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    2 ruled out  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("                 - driver-loaded: amdgpu is not loaded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fix: sudo mokutil --import /var/lib/dkms/mok.pub"), std::string::npos) << r.out;
  // Prose is wrapped at 100 columns (commands and quoted lines are printed whole).
  std::size_t start = 0;
  for (std::size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string line = r.out.substr(start, nl - start);
    if (line.find("fix: ") != std::string::npos || line.starts_with("Next:") ||
        line.find(root("evid-secureboot-rejected")) != std::string::npos)
      continue;
    EXPECT_LE(line.size(), 100u) << line;
  }
  // The last line names the next command, shell-quoted (the root path is one word).
  auto last = r.out.substr(r.out.rfind("Next: "));
  EXPECT_NE(last.find("amdml --root " + root("evid-secureboot-rejected") + " explain "), std::string::npos) << last;
}

// A whole ollama journal pasted on stdin: the last start's reasons are answered and tied
// to the finding that explains them on the machine.
TEST(ExplainError, APastedOllamaLogOnStdin) {
  auto r = shell_run(amdml_command({"--root", root("evid-ollama-gfx-unsupported"), "explain", "-", "--format", "json"},
                                   "< " + sh_quote(source_path("tests/unit/data/explain/ollama-server.log"))));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["subject"], "-");
  EXPECT_TRUE(j["input"]["ollama_log"]);
  EXPECT_EQ(j["input"]["lines"], 16);
  ASSERT_GE(j["matches"].size(), 2u);
  EXPECT_EQ(j["matches"][0]["id"], "ollama.gfx-unsupported");
  EXPECT_EQ(j["matches"][0]["lines"][0]["line"], 12);
  EXPECT_EQ(j["matches"][0]["captures"][0]["value"], "gfx1031");
  const auto* first = cause(j["matches"][0], 1);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ((*first)["verdict"], "confirmed");
  EXPECT_TRUE(has_evidence(*first, "ollama.discovery", true));
  for (const auto& m : j["matches"]) EXPECT_NE(m["id"], "ollama.igpu-skipped") << "an older start's line";
}

TEST(ExplainError, UnquotedWordsAreOneText) {
  auto r = amdml_run({"--root", root("rx580-rocm6"), "explain", "Memory", "access", "fault", "by", "GPU", "node-1",
                      "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["subject"], "Memory access fault by GPU node-1");
  EXPECT_EQ(j["matches"][0]["id"], "hsa.memory-access-fault");
}

TEST(ExplainError, UnknownTextExitsTwoWithTheNearestEntries) {
  auto r = amdml_run({"--root", root("rx580-rocm6"), "explain", "my GPU memory fault makes a strange noise today"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("amdml: error: explain: no known error message in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nearest: hsa.memory-access-fault"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  r = amdml_run({"explain", "my GPU memory fault makes a strange noise today", "--format", "json"});
  EXPECT_EQ(r.code, 2);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "error");
  EXPECT_EQ(j["suggestions"][0], "hsa.memory-access-fault");
  // A short unknown subject keeps the subject error and its suggestions.
  r = run_amdml("explain acess.kfd");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown subject 'acess.kfd'"), std::string::npos) << r.err;
  // Empty stdin.
  r = shell_run(amdml_command({"explain", "-"}, "< /dev/null"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no known error message in the text on stdin"), std::string::npos) << r.err;
}

// Hostile bytes on stdin, more than the bound: one JSON document, the tail read, the one
// real line at the end found; and hostile bytes with nothing known exit 2 with one document.
TEST(ExplainError, HostileAndHugeStdinGiveOneDocument) {
  TestTree t;
  const std::string path = (t.path() / "paste.bin").string();
  std::mt19937 rng(27);
  std::string junk(3 << 20, '\0');
  for (auto& c : junk) c = static_cast<char>(rng());
  const std::string paste = junk + "\n\x1b[31mMemory access fault by GPU node-1.\xff\xfe\n";
  {
    std::ofstream f(path, std::ios::binary);
    f << paste;
  }
  auto r = shell_run(amdml_command({"--root", root("rdna3-dgpu"), "explain", "-", "--format", "json"}, "< " + sh_quote(path)));
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);  // throws when it is not one valid document
  EXPECT_TRUE(j["input"]["truncated"]);
  EXPECT_EQ(j["input"]["bytes"], paste.size());
  EXPECT_EQ(j["matches"].back()["id"], "hsa.memory-access-fault");
  // Text output of the same: no raw escape byte reaches the terminal.
  r = shell_run(amdml_command({"--root", root("rdna3-dgpu"), "--color", "never", "explain", "-"}, "< " + sh_quote(path)));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_NE(r.out.find("Read the last 1024 KiB of"), std::string::npos);
  {
    std::ofstream f(path, std::ios::binary);
    f << junk.substr(0, 100000);
  }
  r = shell_run(amdml_command({"explain", "-", "--format", "json"}, "< " + sh_quote(path)));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(nlohmann::json::parse(r.out)["kind"], "error");
}

// --recipes DIR without errors/: subjects work as before; an error text says the
// catalogue is missing, in one line.
TEST(ExplainError, RecipesWithoutACatalogue) {
  TestTree t;
  t.mkdir("/knowledge");
  for (const auto& e : fs::directory_iterator(source_path("recipes/knowledge")))
    fs::copy_file(e.path(), t.path() / "knowledge" / e.path().filename());
  auto r = amdml_run({"--recipes", t.str(), "explain", "acess.kfd"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown subject 'acess.kfd'"), std::string::npos) << r.err;
  r = amdml_run({"--root", root("rdna3-dgpu"), "--recipes", t.str(), "explain", "Memory access fault by GPU node-1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("amdml: error: the recipes hold no errors/*.toml"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}
