// The secret corpus, end to end: every secret shape docs/snapshot.md promises to cut,
// planted in every place a snapshot's text comes from -- the environment, a systemd
// drop-in's Environment= and ExecStart=, an EnvironmentFile, command output and a
// manifest key -- of a copy of the ml-apu-ollama fixture. No planted secret may show up
// in `snapshot` (directory and tarball, redacted or not), in `report` (Markdown, JSON,
// with its --snapshot-file tarball, redacted or not), while the values doctor needs
// (GPU assignments, OLLAMA_HOST's host and port) survive and the findings stay.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/snapshot.hpp"

using namespace amdml;
using namespace amdml::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Shape {
  const char* text;            // "{S}" is the secret
  const char* name = nullptr;  // NAME=value shapes: NAME, also planted as a variable or key of its own
};

// The corpus. Secrets are letters and digits only, so no output format escapes them.
const Shape kShapes[] = {
    // URLs with user info, any scheme; the password may hold '@'.
    {"http://u:{S}@h.example:11434"},
    {"https://user:{S}@registry.example/v2/"},
    {"postgres://admin:{S}@db:5432/app"},
    {"redis://:{S}@cache:6379/0"},
    {"socks5h://proxy-user:{S}@proxy:1080"},
    {"ftp://anon:{S}@files.example/pub"},
    {"https://{S}@github.com/org/repo.git"},
    {"http://u:p{S}@ss@h.example"},
    {"see https://h.example/x?access_token={S}&v=1"},
    // Command-line flags.
    {"--api-key {S}"},
    {"--api-key={S}"},
    {"--token {S}"},
    {"--token={S}"},
    {"--password {S}"},
    {"--password={S}"},
    {"-token {S}"},
    {"--auth-token {S}"},
    {"--client-secret={S}"},
    {"--passwd '{S}'"},
    // Authorization-style values.
    {"Authorization: Bearer {S}"},
    {"Authorization: Basic {S}=="},
    {"Authorization: token {S}"},
    {"Proxy-Authorization: Basic {S}"},
    {"curl -H Authorization:Bearer {S}"},
    {"Bearer {S}"},
    {"Basic {S}="},
    {"token {S}"},
    {"X-Api-Key: {S}"},
    {"api_key: {S}"},
    // Credential names.
    {"DB_PASS={S}", "DB_PASS"},
    {"SMTP_PASSWORD={S}", "SMTP_PASSWORD"},
    {"MYSQL_PWD={S}", "MYSQL_PWD"},
    {"AWS_SECRET_ACCESS_KEY={S}", "AWS_SECRET_ACCESS_KEY"},
    {"HF_TOKEN={S}", "HF_TOKEN"},
    {"OPENAI_API_KEY={S}", "OPENAI_API_KEY"},
    {"REGISTRY_AUTH={S}", "REGISTRY_AUTH"},
    {"DOCKER_CREDENTIALS={S}", "DOCKER_CREDENTIALS"},
    {"APIKEY={S}", "APIKEY"},
    {"dbPassword={S}", "dbPassword"},
    {"session_cookie={S}", "session_cookie"},
    {"SSH_PASSPHRASE={S}", "SSH_PASSPHRASE"},
    // Token shapes, whatever surrounds them.
    {"hf_{S}"},
    {"ghp_{S}"},
    {"github_pat_{S}"},
    {"glpat-{S}"},
    {"sk-{S}"},
    {"xoxb-{S}"},
    {"AKIA{S}"},
    {"AIza{S}"},
    {"eyJ{S}.eyJhbGciOiJIUzI1NiJ9.c2lnbmF0dXJl"},
};
constexpr std::size_t kShapeCount = sizeof kShapes / sizeof kShapes[0];

enum Source { kEnv, kUnitEnvironment, kExecStart, kEnvironmentFile, kCommandOutput, kManifestKey, kSources };
const char* const kSourceNames[] = {"env", "unit Environment=", "ExecStart=", "EnvironmentFile", "command output",
                                    "manifest key"};

std::string secret(std::size_t shape, int source) {
  return "Zq" + std::string(1, static_cast<char>('a' + source)) + std::to_string(shape) + "xK4mW9pL2xV8rT5";
}

std::string fragment(std::size_t shape, int source) {
  std::string t = kShapes[shape].text;
  return t.replace(t.find("{S}"), 3, secret(shape, source));
}

// The values doctor needs, planted next to the secrets.
const char* kOllamaHostSecret = "Zqhost1xK4mW9pL2xV8rT5";
const char* kUnitHostSecret = "Zqhost2xK4mW9pL2xV8rT5";

void append(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::app) << text;
}

// A copy of ml-apu-ollama with every shape planted in every source.
void plant(const fs::path& root) {
  copy_fixture("ml-apu-ollama", root);
  json m = json::parse(read_file(root / "amdml-host.json"));
  std::string unit = "[Service]\n", exec = "[Service]\nExecStart=\n", envfile, output = "ollama version is 0.32.0\n";
  json hsa = {{"status", "init-failed"}, {"error", ""}, {"log", json::array()}, {"settings", json::object()}};
  for (std::size_t i = 0; i < kShapeCount; ++i) {
    const std::string var = "OLLAMA_C" + std::to_string(i);
    m["env"][var] = fragment(i, kEnv);
    unit += "Environment=\"" + var + "=" + fragment(i, kUnitEnvironment) + "\"\n";
    exec += "ExecStart=/usr/local/bin/ollama serve " + fragment(i, kExecStart) + "\n";
    envfile += var + "=" + fragment(i, kEnvironmentFile) + "\n";
    output += fragment(i, kCommandOutput) + "\n";
    hsa["log"].push_back(fragment(i, kManifestKey));
    hsa["error"] = hsa["error"].get<std::string>() + fragment(i, kManifestKey) + "; ";
    if (const char* name = kShapes[i].name) {
      m["env"][std::string("OLLAMA_") + name] = secret(i, kEnv);
      unit += "Environment=\"" + std::string(name) + "=" + secret(i, kUnitEnvironment) + "\"\n";
      envfile += std::string(name) + "=" + secret(i, kEnvironmentFile) + "\n";
      hsa["settings"][name] = secret(i, kManifestKey);
    }
  }
  m["env"]["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  m["env"]["ROCR_VISIBLE_DEVICES"] = "0";
  m["env"]["OLLAMA_HOST"] = std::string("http://u:") + kOllamaHostSecret + "@127.0.0.1:11434";
  unit += "Environment=\"ROCR_VISIBLE_DEVICES=1\"\n";
  unit += std::string("Environment=\"OLLAMA_HOST=http://u:") + kUnitHostSecret + "@0.0.0.0:11434\"\n";
  m["commands"]["/usr/local/bin/ollama --version"]["stdout"] = output;
  m["hsa"] = hsa;
  std::ofstream(root / "amdml-host.json", std::ios::binary | std::ios::trunc) << m.dump(1);
  std::ofstream(root / "etc/systemd/system/ollama.service.d/zz-corpus.conf", std::ios::binary) << unit;
  std::ofstream(root / "etc/systemd/system/ollama.service.d/exec.conf", std::ios::binary) << exec;
  append(root / "etc/default/ollama", envfile);
}

// "shape N (text) from SOURCE" for every planted secret found in text.
std::vector<std::string> leaks(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < kShapeCount; ++i)
    for (int s = 0; s < kSources; ++s)
      if (text.find(secret(i, s)) != std::string::npos)
        out.push_back(std::string(kShapes[i].text) + " from " + kSourceNames[s]);
  for (const char* s : {kOllamaHostSecret, kUnitHostSecret})
    if (text.find(s) != std::string::npos) out.push_back(std::string("OLLAMA_HOST password ") + s);
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

}  // namespace

TEST(SnapshotSecrets, NoPlantedSecretLeavesTheMachine) {
  ASSERT_GE(kShapeCount, 30u);
  TestTree t;
  const fs::path a = t.dir / "machine";
  plant(a);
  // Every secret is really there (or this test would prove nothing).
  EXPECT_EQ(leaks(everything_under(a)).size(), kShapeCount * kSources + 2);
  const CliRun original = doctor_json(a);
  ASSERT_NE(original.code, 2) << original.err;

  std::vector<std::pair<std::string, std::string>> outputs;  // where -> everything it holds
  for (bool redact : {true, false}) {
    const std::string tag = redact ? "" : " --no-redact";
    std::vector<std::string> extra;
    if (!redact) extra.push_back("--no-redact");
    auto args = [&](std::vector<std::string> v) {
      v.insert(v.begin(), {"--root", a.string()});
      v.insert(v.end(), extra.begin(), extra.end());
      return v;
    };
    const fs::path dir = t.dir / ("dir" + std::to_string(redact));
    auto snap = amdml_run(args({"snapshot", dir.string()}));
    ASSERT_EQ(snap.code, 0) << snap.err;
    outputs.push_back({"snapshot DIR" + tag, everything_under(dir)});
    outputs.push_back({"snapshot's summary" + tag, snap.out + snap.err});
    const fs::path tar = t.dir / ("snap" + std::to_string(redact) + ".tar.gz");
    auto snap_tar = amdml_run(args({"snapshot", tar.string()}));
    ASSERT_EQ(snap_tar.code, 0) << snap_tar.err;
    outputs.push_back({"snapshot X.tar.gz" + tag, tarball_bytes(tar)});

    auto md = amdml_run(args({"report", "--format", "markdown"}));
    ASSERT_EQ(md.code, 0) << md.err;
    outputs.push_back({"report --format markdown" + tag, md.out + md.err});
    auto js = amdml_run(args({"report", "--format", "json"}));
    ASSERT_EQ(js.code, 0) << js.err;
    outputs.push_back({"report --format json" + tag, js.out + js.err});
    const fs::path attached = t.dir / ("attached" + std::to_string(redact) + ".tar.gz");
    auto with = amdml_run(args({"report", "--snapshot-file", attached.string()}));
    ASSERT_EQ(with.code, 0) << with.err;
    outputs.push_back({"report --snapshot" + tag, with.out + with.err});
    outputs.push_back({"report --snapshot's tarball" + tag, tarball_bytes(attached)});

    // What doctor needs survives: the findings, the GPU variables, OLLAMA_HOST's address.
    EXPECT_EQ(findings_view(doctor_json(dir).out), findings_view(original.out)) << tag;
    const json manifest = json::parse(read_file(dir / "amdml-host.json"));
    EXPECT_EQ(manifest["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0") << tag;
    EXPECT_EQ(manifest["env"]["ROCR_VISIBLE_DEVICES"], "0") << tag;
    EXPECT_EQ(manifest["env"]["OLLAMA_HOST"], "http://REDACTED@127.0.0.1:11434") << tag;
    EXPECT_FALSE(manifest["env"].contains("OLLAMA_DB_PASS")) << tag;
    const std::string unit = read_file(dir / "etc/systemd/system/ollama.service.d/zz-corpus.conf");
    EXPECT_NE(unit.find("Environment=\"ROCR_VISIBLE_DEVICES=1\"\n"), std::string::npos) << unit;
    EXPECT_NE(unit.find("Environment=\"OLLAMA_HOST=http://REDACTED@0.0.0.0:11434\"\n"), std::string::npos) << unit;
    EXPECT_NE(read_file(dir / "etc/systemd/system/ollama.service.d/10-gfx.conf").find("HSA_OVERRIDE_GFX_VERSION"),
              std::string::npos);
    const json report = json::parse(js.out);
    EXPECT_EQ(report["facts"]["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0") << tag;
    EXPECT_EQ(report["facts"]["env"]["OLLAMA_HOST"], "http://REDACTED@127.0.0.1:11434") << tag;
    EXPECT_NE(js.out.find("\"http://REDACTED@0.0.0.0:11434\""), std::string::npos) << tag;  // the unit's, last drop-in wins
    EXPECT_NE(md.out.find("127.0.0.1:11434"), std::string::npos) << tag;
    EXPECT_NE(md.out.find("0.32.0"), std::string::npos) << tag;  // ollama's version, from the scrubbed output
  }
  for (const auto& [where, text] : outputs) {
    ASSERT_FALSE(text.empty()) << where;
    auto found = leaks(text);
    EXPECT_TRUE(found.empty()) << found.size() << " secrets leaked into " << where << ":" << joined(found);
  }
}
