// Redaction, the size policy and the manifest: pure functions over literal recordings.
#include <gtest/gtest.h>

#include <cerrno>
#include <set>

#include "probes/collect.hpp"
#include "base/errno_names.hpp"
#include "formats/snapshot.hpp"
#include "formats/system_files.hpp"

using namespace amdml;

namespace {

formats::SnapshotNode file(std::string content) {
  formats::SnapshotNode n;
  n.kind = formats::SnapshotNode::Kind::file;
  n.content = std::move(content);
  return n;
}

formats::SnapshotNode link(std::string target) {
  formats::SnapshotNode n;
  n.kind = formats::SnapshotNode::Kind::symlink;
  n.target = std::move(target);
  return n;
}

formats::Recording sample() {
  formats::Recording r;
  r.tree["/etc/passwd"] = file(
      "root:x:0:0:root:/root:/bin/bash\nollama:x:998:998::/usr/share/ollama:/bin/false\n"
      "alice:x:1000:1000:Alice Liddell,,,:/home/alice:/bin/bash\nbob:x:1001:1001:Bob:/srv/bobdata:/bin/sh\n");
  r.tree["/etc/group"] = file("video:x:44:alice,ollama\nrender:x:992:alice,ollama\ndocker:x:999:bob,carol\nalice:x:1000:\n");
  r.tree["/etc/hostname"] = file("zephyr.lab.example.org\n");
  r.tree["/etc/os-release"] = file("ID=ubuntu\nVERSION_ID=\"24.04\"\n");
  r.tree["/proc/cmdline"] = file("root=UUID=3F8E2C1A-9b4d-4e6f-8a7b-1c2d3e4f5a6b ro quiet\n");
  r.tree["/sys/devices/pci0000:00/0000:03:00.0/unique_id"] = file("5e2b8c1d4f3a6b7c\n");
  r.tree["/sys/devices/pci0000:00/0000:03:00.0/serial_number"] = file("PX7900-2319A04517\n");
  r.tree["/sys/class/kfd/kfd/topology/nodes/1/properties"] =
      file("simd_count 192\nunique_id " + std::to_string(0x5e2b8c1d4f3a6b7cULL) + "\nnum_xcc 1\n");
  r.tree["/home/alice/.ollama/models/manifest"] = file("owner alice\n");
  r.tree["/srv/bobdata/notes"] = file("bob was here\n");
  r.tree["/etc/systemd/system/ollama.service.d/override.conf"] =
      file("[Service]\nEnvironment=\"HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz012345\"\nEnvironment=\"HSA_OVERRIDE_GFX_VERSION=11.0.0\"\n");
  r.tree["/opt/rocm"] = link("/opt/rocm-6.2.4");
  Identity id;
  id.user = "alice";
  id.uid = 1000;
  id.groups = std::vector<std::uint32_t>{1000, 44, 992};
  r.identity = id;
  r.env = {{"PATH", "/home/alice/.local/bin:/usr/bin"},
           {"HOME", "/home/alice"},
           {"USER", "alice"},
           {"OLLAMA_MODELS", "/home/alice/.ollama/models"},
           {"OLLAMA_API_KEY", "sk-live-1234567890abcdef1234"},
           {"GITHUB_PAT", "ghp_0123456789abcdefghijABCDEFGHIJ012345"},
           {"LANG", "en_US.UTF-8"},
           {"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}};
  r.facts["hsa"] = {{"status", "ok"}, {"agents", {{{"uuid", "GPU-5e2b8c1d4f3a6b7c"}, {"name", "gfx1100"}}}}};
  formats::RecordedCommand c;
  c.result = CommandResult{0, false, 0, "ollama version is 0.9.6 (built by alice@zephyr)\n", ""};
  r.commands["ollama --version"] = c;
  r.errors["read"]["/home/alice/.ollama/id_ed25519"] = formats::RecordedError{EACCES, "/home/alice/.ollama/id_ed25519: Permission denied"};
  return r;
}

std::string everything(const formats::Recording& r) {
  std::string all;
  for (const auto& [p, n] : r.tree) all += p + "\n" + n.content + "\n" + n.target + "\n";
  for (const auto& [op, m] : r.errors)
    for (const auto& [p, e] : m) all += p + " " + e.message + "\n";
  for (const auto& [k, v] : r.env) all += k + "=" + v + "\n";
  for (const auto& [k, v] : r.facts) all += k + v.dump() + "\n";
  for (const auto& [k, c] : r.commands) all += k + (c.result ? c.result->out : "") + "\n";
  if (r.identity && r.identity->user) all += *r.identity->user;
  return all;
}

formats::RedactOptions opts(bool identities = true) {
  formats::RedactOptions o;
  o.identities = identities;
  o.relevant_env = probes::is_relevant_env;
  return o;
}

}  // namespace

TEST(SnapshotRedact, NothingPersonalOrSecretSurvives) {
  formats::Recording r = sample();
  formats::Redactor red = formats::Redactor::learn(r, opts());
  red.apply(r);
  const std::string all = everything(r);
  for (const char* gone : {"alice", "Alice", "Liddell", "bob", "carol", "zephyr", "5e2b8c1d4f3a6b7c",
                           "6785671321074953084", "PX7900-2319A04517", "3F8E2C1A", "3f8e2c1a", "hf_abcdefghij",
                           "sk-live", "ghp_0123", "/srv/bobdata"})
    EXPECT_EQ(all.find(gone), std::string::npos) << gone << " survived in:\n" << all;
}

TEST(SnapshotRedact, ReplacementsAreConsistentAndKeepWhatRulesNeed) {
  formats::Recording r = sample();
  formats::Redactor red = formats::Redactor::learn(r, opts());
  red.apply(r);
  // The same user everywhere: process identity, passwd, group members, home, env.
  EXPECT_EQ(*r.identity->user, "user1");
  const std::string& passwd = r.tree.at("/etc/passwd").content;
  EXPECT_NE(passwd.find("user1:x:1000:1000::/home/user1:/bin/bash"), std::string::npos) << passwd;
  EXPECT_NE(passwd.find("user2:x:1001:1001::/home/user2:/bin/sh"), std::string::npos) << passwd;
  EXPECT_NE(passwd.find("ollama:x:998:998::/usr/share/ollama:/bin/false"), std::string::npos);  // system account kept
  const std::string& group = r.tree.at("/etc/group").content;
  EXPECT_NE(group.find("render:x:992:user1,ollama"), std::string::npos) << group;  // group names and gids kept
  EXPECT_NE(group.find("docker:x:999:user2,user3"), std::string::npos) << group;
  EXPECT_EQ(r.env.at("HOME"), "/home/user1");
  EXPECT_EQ(r.env.at("OLLAMA_MODELS"), "/home/user1/.ollama/models");
  EXPECT_TRUE(r.tree.count("/home/user1/.ollama/models/manifest"));
  EXPECT_TRUE(r.tree.count("/home/user2/notes"));
  EXPECT_EQ(r.tree.at("/etc/hostname").content, "host1\n");
  // KFD's decimal unique_id, DRM's hex one and HSA's GPU-<hex> stay the same number.
  EXPECT_EQ(r.tree.at("/sys/devices/pci0000:00/0000:03:00.0/unique_id").content, "0000000000000001\n");
  EXPECT_NE(r.tree.at("/sys/class/kfd/kfd/topology/nodes/1/properties").content.find("unique_id 1\n"), std::string::npos);
  EXPECT_EQ(r.facts.at("hsa")["agents"][0]["uuid"], "GPU-0000000000000001");
  EXPECT_EQ(r.tree.at("/proc/cmdline").content, "root=UUID=00000000-0000-0000-0000-000000000001 ro quiet\n");
  EXPECT_EQ(r.tree.at("/sys/devices/pci0000:00/0000:03:00.0/serial_number").content, "serial1\n");
  // Things rules read are untouched.
  EXPECT_EQ(r.env.at("HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
  EXPECT_EQ(r.tree.at("/etc/os-release").content, "ID=ubuntu\nVERSION_ID=\"24.04\"\n");
  EXPECT_EQ(r.tree.at("/opt/rocm").target, "/opt/rocm-6.2.4");
  EXPECT_EQ(r.identity->groups->size(), 3u);
  EXPECT_NE(r.tree.at("/etc/systemd/system/ollama.service.d/override.conf").content.find("HSA_OVERRIDE_GFX_VERSION=11.0.0"),
            std::string::npos);
  // The same text through text() gets the same replacements.
  EXPECT_EQ(red.text("alice on zephyr.lab.example.org"), "user1 on host1");
  const auto& s = red.summary();
  EXPECT_EQ(s.users, (std::vector<std::string>{"user1", "user2", "user3"}));
  EXPECT_EQ(s.hosts, (std::vector<std::string>{"host1"}));
  EXPECT_EQ(s.uuids, 1);
  EXPECT_GE(s.serials, 2);
}

TEST(SnapshotRedact, EnvironmentKeepsRelevantNamesAndNeverSecrets) {
  formats::Recording r = sample();
  r.env_asked.insert("ROCM_PATH");
  r.env["ROCM_PATH"] = "/opt/rocm";
  formats::Redactor red = formats::Redactor::learn(r, opts(false));
  red.apply(r);
  EXPECT_TRUE(r.env.count("PATH"));
  EXPECT_TRUE(r.env.count("ROCM_PATH"));
  EXPECT_FALSE(r.env.count("LANG"));  // not GPU-related
  EXPECT_FALSE(r.env.count("OLLAMA_API_KEY"));
  EXPECT_FALSE(r.env.count("GITHUB_PAT"));  // name is harmless, value is a token
  const auto& dropped = red.summary().env_dropped;
  EXPECT_NE(std::find(dropped.begin(), dropped.end(), "OLLAMA_API_KEY"), dropped.end());
  // --no-redact keeps identities...
  EXPECT_EQ(*r.identity->user, "alice");
  // ...but secrets are cut from files too.
  const std::string& conf = r.tree.at("/etc/systemd/system/ollama.service.d/override.conf").content;
  EXPECT_EQ(conf.find("hf_abcdefghij"), std::string::npos) << conf;
  EXPECT_NE(conf.find("HF_TOKEN=REDACTED"), std::string::npos) << conf;
}

// Login environment files keep only the GPU assignments doctor follows, on their own
// line numbers (findings cite them); proxies, keys and everything else become blank.
TEST(SnapshotRedact, LoginEnvironmentFilesKeepOnlyFollowedAssignments) {
  formats::Recording r;
  r.tree["/etc/environment"] = file("PATH=\"/usr/bin\"\nhttp_proxy=http://alice:hunter2@proxy:3128\nHSA_OVERRIDE_GFX_VERSION=\"11.0.0\"\n");
  r.tree["/etc/profile.d/work.sh"] = file("export ACME_TOKEN=abc123\nif true; then\n  export ROCR_VISIBLE_DEVICES=0\nfi\n");
  r.tree["/etc/profile.d/notes.txt"] = file("hunter2\n");  // not a profile.d script: ordinary redaction
  formats::Redactor red = formats::Redactor::learn(r, opts(false));
  red.apply(r);
  EXPECT_EQ(r.tree.at("/etc/environment").content, "\n\nHSA_OVERRIDE_GFX_VERSION=\"11.0.0\"\n");
  EXPECT_EQ(r.tree.at("/etc/profile.d/work.sh").content, "\n\n  export ROCR_VISIBLE_DEVICES=0\n\n");
  EXPECT_EQ(r.tree.at("/etc/profile.d/notes.txt").content, "hunter2\n");
}

// A user's environment.d is a login file like /etc's; a process's environment (the ollama
// service's /proc/PID/environ) keeps only the followed names, NUL-separated as it was.
TEST(SnapshotRedact, UserEnvironmentDAndProcessEnvironKeepOnlyFollowedNames) {
  formats::Recording r;
  r.tree["/home/u/.config/environment.d/50-gpu.conf"] =
      file("GITHUB_TOKEN=ghp_abc\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n");
  r.tree["/home/u/.config/environment.d/notes/x.conf"] = file("HSA_X=1\nplain\n");  // deeper: not environment.d's
  using namespace std::string_literals;
  r.tree["/proc/1234/environ"] =
      file("PATH=/usr/bin\0OLLAMA_HOST=127.0.0.1:11434\0HF_TOKEN=hf_secret\0OLLAMA_API_KEY=k\0"
           "HSA_OVERRIDE_GFX_VERSION=10.3.0\0"s);
  formats::Redactor red = formats::Redactor::learn(r, opts(false));
  red.apply(r);
  EXPECT_EQ(r.tree.at("/home/u/.config/environment.d/50-gpu.conf").content, "\nHSA_OVERRIDE_GFX_VERSION=11.0.0\n");
  EXPECT_EQ(r.tree.at("/home/u/.config/environment.d/notes/x.conf").content, "HSA_X=1\nplain\n");
  EXPECT_EQ(r.tree.at("/proc/1234/environ").content,
            "OLLAMA_HOST=127.0.0.1:11434\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0"s);
}

TEST(SnapshotRedact, GenericNamesAreNotRedacted) {
  formats::Recording r;
  r.tree["/etc/os-release"] = file("ID=ubuntu\n");
  r.tree["/etc/passwd"] = file("ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash\n");
  r.tree["/etc/hostname"] = file("localhost\n");
  Identity id;
  id.user = "ubuntu";
  r.identity = id;
  formats::Redactor red = formats::Redactor::learn(r, opts());
  red.apply(r);
  EXPECT_EQ(r.tree.at("/etc/os-release").content, "ID=ubuntu\n");
  EXPECT_EQ(r.tree.at("/etc/hostname").content, "localhost\n");
  EXPECT_TRUE(red.summary().users.empty());
}

// /etc/group with blanks around members, a tab, empty members and a trailing comma: the
// users the redaction replaces are exactly the members the identity probe reads (one
// codec, parse::group_file), no name is cut short or kept with its blanks.
TEST(SnapshotRedact, GroupMembersAreReadAsTheIdentityProbeReadsThem) {
  formats::Recording r;
  r.tree["/etc/passwd"] = file("root:x:0:0:root:/root:/bin/bash\nollama:x:998:998::/usr/share/ollama:/bin/false\n");
  const std::string group =
      "video:x:44: alice ,\tbob,,ollama\n"
      "  render:x:992:carol , ,dave\t\n"
      "docker:x:999:\n"
      "plugdev:x:46:erin,\n";
  r.tree["/etc/group"] = file(group);
  std::set<std::string> members;
  for (const auto& g : formats::parse::group_file(group))
    for (const auto& m : g.members) members.insert(m);
  EXPECT_EQ(members, (std::set<std::string>{"alice", "bob", "carol", "dave", "erin", "ollama"}));
  formats::Redactor red = formats::Redactor::learn(r, opts());
  red.apply(r);
  // ollama is a system account (uid 998): kept; everyone else is a user, in file order.
  EXPECT_EQ(red.summary().users, (std::vector<std::string>{"user1", "user2", "user3", "user4", "user5"}));
  EXPECT_EQ(r.tree.at("/etc/group").content,
            "video:x:44: user1 ,\tuser2,,ollama\n"
            "  render:x:992:user3 , ,user4\t\n"
            "docker:x:999:\n"
            "plugdev:x:46:user5,\n");
  std::set<std::string> redacted;
  for (const auto& g : formats::parse::group_file(r.tree.at("/etc/group").content))
    for (const auto& m : g.members) redacted.insert(m);
  EXPECT_EQ(redacted, (std::set<std::string>{"ollama", "user1", "user2", "user3", "user4", "user5"}));
}

TEST(SnapshotRedact, SecretDetection) {
  EXPECT_TRUE(formats::is_secret_name("HF_TOKEN"));
  EXPECT_TRUE(formats::is_secret_name("OLLAMA_API_KEY"));
  EXPECT_TRUE(formats::is_secret_name("aws_secret_access_key"));
  EXPECT_FALSE(formats::is_secret_name("HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_TRUE(formats::looks_like_secret("hf_QmVyT9xLk2PwZr8NsDf4GhJ7cVbAe1Uo"));
  EXPECT_TRUE(formats::looks_like_secret("postgres://alice:pw1234@db/x"));
  EXPECT_TRUE(formats::looks_like_secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
  EXPECT_FALSE(formats::looks_like_secret("/home/alice/.local/bin:/usr/local/bin:/usr/bin:/bin"));
  EXPECT_FALSE(formats::looks_like_secret("11.0.0"));
  EXPECT_FALSE(formats::looks_like_secret("http://127.0.0.1:11434"));
  EXPECT_FALSE(formats::looks_like_secret("3f8e2c1a-9b4d-4e6f-8a7b-1c2d3e4f5a6b"));
}

// The policy's edges, as pure functions: what doctor needs is never cut, a JSON
// document stays valid, and scrubbing twice changes nothing.
TEST(SnapshotRedact, SecretPolicyKeepsWhatDoctorNeeds) {
  for (const char* name : {"DB_PASS", "MYSQL_PWD", "apiKey", "accessToken", "X-Api-Key", "REGISTRY_AUTH",
                           "Authorization", "SSH_PASSPHRASE", "HF_TOKENS", "client_secret_id"})
    EXPECT_TRUE(formats::is_secret_name(name)) << name;
  for (const char* name : {"HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "OLLAMA_HOST", "OLLAMA_KEEP_ALIVE",
                           "KEYBOARD", "TOKENIZERS_PARALLELISM", "PWD", "OLDPWD", "GIT_AUTHOR_NAME", "XAUTHORITY",
                           "PassEnvironment", "NO_PROXY_BYPASS"})
    EXPECT_FALSE(formats::is_secret_name(name)) << name;
  for (const char* kept : {"HSA_OVERRIDE_GFX_VERSION=11.0.0", "Environment=\"ROCR_VISIBLE_DEVICES=0,1\"",
                           "OLLAMA_HOST=0.0.0.0:11434", "OLLAMA_HOST=http://127.0.0.1:11434", "KEYBOARD=us",
                           "TOKENIZERS_PARALLELISM=false", "rocBLAS: Basic Linear Algebra Subprograms",
                           "PassEnvironment=HF_HOME", "git@github.com:org/repo.git", "ollama version is 0.32.0",
                           "options ttm pages_limit=3145728", "a token limit of 4096", "{\"key\": \"index\", \"value\": \"-2\"}",
                           "ExecStart=/usr/local/bin/ollama serve -p 11434"})
    EXPECT_EQ(formats::scrub_secrets(kept), kept);
  EXPECT_EQ(formats::scrub_secrets("OLLAMA_HOST=http://u:pw@h:11434 and socks5h://x:y@p"), "OLLAMA_HOST=http://REDACTED@h:11434 and socks5h://REDACTED@p");
  EXPECT_EQ(formats::scrub_secrets("ExecStart=/usr/bin/ollama serve --api-key abc --password=def -token ghi --verbose"),
            "ExecStart=/usr/bin/ollama serve --api-key REDACTED --password=REDACTED -token REDACTED --verbose");
  EXPECT_EQ(formats::scrub_secrets("Environment=\"DB_PASS=two words\" \"X=1\""), "Environment=\"DB_PASS=REDACTED\" \"X=1\"");
  EXPECT_EQ(formats::scrub_secrets("-H 'Authorization: Bearer abc.def-123'"), "-H 'Authorization: Bearer REDACTED'");
  int n = 0;
  const std::string doc = nlohmann::json{{"token", "a\"b"}, {"unknown_keys", {"x"}}, {"token_count", 5},
                                         {"argv", {"--api-key", "k1"}}, {"env", {{"SMTP_PASSWORD", "p w"}}}}
                              .dump(2);
  const std::string cut = formats::scrub_secrets(doc, &n);
  const auto j = nlohmann::json::parse(cut);  // still JSON
  EXPECT_EQ(j["token"], "REDACTED");
  EXPECT_EQ(j["argv"][1], "REDACTED");
  EXPECT_EQ(j["env"]["SMTP_PASSWORD"], "REDACTED");
  EXPECT_EQ(j["token_count"], 5);
  EXPECT_EQ(j["unknown_keys"][0], "x");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(formats::scrub_secrets(cut, &n), cut);
  EXPECT_EQ(n, 3);  // nothing cut twice
}

TEST(SnapshotTrim, DpkgStatusKeepsGpuAndMlPackagesOnly) {
  formats::Recording r;
  r.tree["/var/lib/dpkg/status"] = file(
      "Package: bash\nStatus: install ok installed\nVersion: 5.2\n\n"
      "Package: libhsa-runtime64-1\nStatus: install ok installed\nVersion: 5.7.1-2build1\n\n"
      "Package: procps\nVersion: 4\n\n"
      "Package: rocblas\nVersion: 5.7.1\n");
  auto trimmed = formats::trim_recording(r);
  ASSERT_EQ(trimmed.size(), 1u);
  const std::string& s = r.tree.at("/var/lib/dpkg/status").content;
  EXPECT_EQ(s, "Package: libhsa-runtime64-1\nStatus: install ok installed\nVersion: 5.7.1-2build1\n\n"
               "Package: rocblas\nVersion: 5.7.1\n");
  EXPECT_TRUE(formats::is_snapshot_relevant_package("python3-torch"));
  EXPECT_FALSE(formats::is_snapshot_relevant_package("coreutils"));
}

TEST(SnapshotManifest, WritesFactsErrorsDevicesAndCommands) {
  formats::Recording r;
  r.tree["/sys/module/amdgpu/initstate"] = file("live\n");
  r.errors["read"]["/sys/module/amdgpu/version"] = formats::RecordedError{ENOENT, "gone"};          // absent: replays itself
  r.errors["read"]["/sys/module/amdgpu/initstate"] = formats::RecordedError{ENOENT, "vanished"};    // present in the tree: kept
  r.errors["read"]["/sys/class/kfd/kfd/topology/nodes/2/properties"] = formats::RecordedError{EPERM, "x: Operation not permitted"};
  r.devices_asked = true;
  DeviceNode kfd;
  kfd.path = "/dev/kfd";
  kfd.mode = 0660;
  kfd.uid = 0;
  kfd.gid = 992;
  kfd.open = OpenCheck::failed;
  kfd.open_errno = EACCES;
  r.devices = std::vector<DeviceNode>{kfd};
  r.container_asked = true;
  formats::RecordedCommand missing;
  missing.error = make_error("ollama: not found on PATH", ENOENT);
  r.commands["ollama --version"] = missing;
  r.facts["hsa"] = {{"status", "ok"}};
  r.facts["env"] = "must not clobber the env key";
  formats::SnapshotMeta meta;
  meta.amdml_version = "0.1.0";
  auto j = formats::snapshot_manifest(r, meta);
  EXPECT_EQ(j["format"], 1);
  EXPECT_EQ(j["devices"]["/dev/kfd"]["mode"], "0660");
  EXPECT_EQ(j["devices"]["/dev/kfd"]["open"], "EACCES");
  EXPECT_TRUE(j["container"].is_null());
  EXPECT_EQ(j["commands"]["ollama --version"]["errno"], "ENOENT");
  EXPECT_FALSE(j["errors"]["read"].contains("/sys/module/amdgpu/version"));
  EXPECT_EQ(j["errors"]["read"]["/sys/module/amdgpu/initstate"]["message"], "vanished");
  EXPECT_EQ(j["errors"]["read"]["/sys/class/kfd/kfd/topology/nodes/2/properties"]["errno"], "EPERM");
  EXPECT_EQ(j["hsa"]["status"], "ok");
  EXPECT_TRUE(j["env"].is_object());
  EXPECT_EQ(errno_from_name(errno_name(EPERM)), EPERM);
  EXPECT_EQ(errno_from_name(errno_name(4095)), 4095);
  EXPECT_FALSE(errno_from_name("EWHATEVER"));
}

TEST(SnapshotRedact, PersonalFileNamesFromHomeListingsAreLeftOut) {
  formats::Recording r = sample();
  auto listed = [] {
    formats::SnapshotNode n;
    n.kind = formats::SnapshotNode::Kind::placeholder;
    n.listed_only = true;
    return n;
  };
  r.tree["/home/alice/Documents/acme-merger-plan.txt"] = listed();
  r.tree["/home/alice/venv/pyvenv.cfg"] = listed();
  r.tree["/home/alice/venv/lib/python3.12/site-packages/torch/lib/rocblas/library/TensileLibrary_gfx1100.dat"] = listed();
  r.tree["/srv/bobdata/diary.md"] = listed();
  formats::Redactor red = formats::Redactor::learn(r, opts());
  red.apply(r);
  EXPECT_FALSE(r.tree.count("/home/user1/Documents/acme-merger-plan.txt"));
  EXPECT_FALSE(r.tree.count("/home/user2/diary.md"));
  EXPECT_TRUE(r.tree.count("/home/user1/venv/pyvenv.cfg"));
  EXPECT_TRUE(r.tree.count("/home/user1/venv/lib/python3.12/site-packages/torch/lib/rocblas/library/TensileLibrary_gfx1100.dat"));
  EXPECT_TRUE(r.tree.count("/home/user1/.ollama/models/manifest"));  // read by a probe: kept
  EXPECT_EQ(red.summary().home_files_pruned, 2);
}
