// amdml snapshot and amdml report end to end, through the built binary:
// - every fixture machine (tests/fixtures/* and tests/e2e-snapshot/fixtures/*) recorded
//   from --root A into B replays byte for byte (`doctor --format json`), and a redacted
//   snapshot keeps every finding;
// - the privacy fixture (seeded with users, a host name, serials, UUIDs and secrets)
//   leaks none of them into the snapshot directory, the tarball or the report;
// - this machine, live: the report's JSON and `doctor --root` on the snapshot written in
//   the same run are identical;
// - size: the largest fixture's snapshot stays under 1 MB.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/snapshot.hpp"

using namespace amdml;
using namespace amdml::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path privacy_fixture() { return source_path("tests/e2e-snapshot/fixtures/privacy-desktop"); }

std::uint64_t bytes_under(const fs::path& dir) {
  std::uint64_t n = 0;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it)
    if (!it->is_symlink() && it->is_regular_file()) n += it->file_size();
  return n;
}

const char* kSeeded[] = {"alice",  "Alice", "Liddell", "bob-home", "Bob Builder", "carol", "zephyr",
                         "5e2b8c1d4f3a6b7c", "6785671321074953084", "PX7900XTX-2319A04517",
                         "3f8e2c1a-9b4d-4e6f-8a7b-1c2d3e4f5a6b", "hf_QmVyT9xLk2PwZr8NsDf4GhJ7cVbAe1UoIiYt",
                         "sk-ollama-7Fq2Lz9XwR4tPmN8vB3cK6jH", "wJalrXUtnFEMI", "s3cr3tPassw0rd", "lab.example.org", "acme-merger"};

void expect_clean(const std::string& text, const std::string& where) {
  for (const char* s : kSeeded) EXPECT_EQ(text.find(s), std::string::npos) << "\"" << s << "\" leaked into " << where;
}

}  // namespace

TEST(SnapshotCli, EveryFixtureReplaysByteForByte) {
  auto all = fixture_machines();
  ASSERT_FALSE(all.empty());
  for (const auto& a : all) {
    SCOPED_TRACE(a.string());
    TestTree t;
    const fs::path b = t.dir / "snap";
    auto snap = amdml_run({"--root", a.string(), "snapshot", b.string(), "--no-redact"});
    ASSERT_EQ(snap.code, 0) << snap.err;
    auto want = doctor_json(a);
    auto got = doctor_json(b);
    EXPECT_EQ(got.code, want.code);
    EXPECT_EQ(got.out, want.out);
  }
}

TEST(SnapshotCli, EveryFixtureRedactedKeepsItsFindingsAndIsStable) {
  for (const auto& a : fixture_machines()) {
    SCOPED_TRACE(a.string());
    TestTree t;
    const fs::path b = t.dir / "b", c = t.dir / "c";
    auto snap = amdml_run({"--root", a.string(), "snapshot", b.string()});
    ASSERT_EQ(snap.code, 0) << snap.err;
    auto want = doctor_json(a);
    auto got = doctor_json(b);
    EXPECT_EQ(got.code, want.code);
    EXPECT_EQ(findings_view(got.out), findings_view(want.out));
    // Redacting a redacted snapshot changes nothing.
    ASSERT_EQ(amdml_run({"--root", b.string(), "snapshot", c.string()}).code, 0);
    EXPECT_EQ(doctor_json(c).out, got.out);
  }
}

TEST(SnapshotCli, PrivacyFixtureLeaksNothing) {
  TestTree t;
  const fs::path a = privacy_fixture();
  // The fixture does hold every seeded value (or this test would prove nothing).
  const std::string source = everything_under(a);
  for (const char* s : kSeeded)
    if (std::string(s) != "6785671321074953084") {
      EXPECT_NE(source.find(s), std::string::npos) << s;
    }

  auto snap = amdml_run({"--root", a.string(), "snapshot", (t.dir / "dir").string()});
  ASSERT_EQ(snap.code, 0) << snap.err;
  expect_clean(everything_under(t.dir / "dir"), "the snapshot directory");
  expect_clean(snap.out + snap.err, "the snapshot summary");
  EXPECT_NE(snap.out.find("user names: 3 replaced (user1, user2, user3)"), std::string::npos) << snap.out;
  EXPECT_NE(snap.out.find("host names: 1 replaced (host1)"), std::string::npos) << snap.out;
  EXPECT_NE(snap.out.find("HF_TOKEN"), std::string::npos) << snap.out;  // named as dropped, never its value

  const fs::path tarball = t.dir / "privacy.tar.gz";
  auto tar = amdml_run({"--root", a.string(), "snapshot", tarball.string()});
  ASSERT_EQ(tar.code, 0) << tar.err;
  const std::string raw = tarball_bytes(tarball);
  ASSERT_FALSE(raw.empty());
  expect_clean(raw, "the tarball");
  ASSERT_EQ(shell_run("tar -xzf " + sh_quote(tarball.string()) + " -C " + sh_quote(t.dir.string())).code, 0);
  EXPECT_EQ(doctor_json(t.dir / "privacy").out, doctor_json(t.dir / "dir").out);

  const fs::path attached = t.dir / "attached.tar.gz";
  auto md = amdml_run({"--root", a.string(), "report", "--snapshot-file", attached.string()});
  ASSERT_EQ(md.code, 0) << md.err;
  expect_clean(md.out, "the Markdown report");
  EXPECT_NE(md.out.find("### GPUs"), std::string::npos);
  EXPECT_NE(md.out.find("gfx1100"), std::string::npos);
  EXPECT_NE(md.out.find("`user1`"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find(attached.string()), std::string::npos);
  auto js = amdml_run({"--root", a.string(), "report", "--format", "json"});
  ASSERT_EQ(js.code, 0) << js.err;
  expect_clean(js.out, "the JSON report");
  EXPECT_EQ(findings_view(js.out), findings_view(doctor_json(a).out));

  // The size policy: dpkg status keeps the ROCm stanzas only, the version is the same.
  const std::string status = read_file(t.dir / "dir/var/lib/dpkg/status");
  EXPECT_EQ(status.find("Package: bash"), std::string::npos);
  EXPECT_NE(status.find("Package: libhsa-runtime64-1"), std::string::npos);
  EXPECT_EQ(json::parse(doctor_json(t.dir / "dir").out)["rocm"]["version"], "5.7.1");
}

TEST(SnapshotCli, LiveRunReplaysFromItsOwnSnapshot) {
  for (bool redact : {false, true}) {
    SCOPED_TRACE(redact ? "redacted" : "--no-redact");
    TestTree t;
    const fs::path tarball = t.dir / "live.tar.gz";
    std::vector<std::string> args = {"--root", "/", "report", "--format", "json", "--snapshot-file", tarball.string()};
    if (!redact) args.push_back("--no-redact");
    auto rep = amdml_run(args);
    ASSERT_EQ(rep.code, 0) << rep.err;
    json live = json::parse(rep.out);
    EXPECT_EQ(live["report"]["snapshot"], tarball.string());
    live.erase("report");
    ASSERT_EQ(shell_run("tar -xzf " + sh_quote(tarball.string()) + " -C " + sh_quote(t.dir.string())).code, 0);
    json replayed = json::parse(doctor_json(t.dir / "live").out);
    // The one legitimate difference (docs/snapshot.md): the runtime results say whether
    // they were replayed from a recording -- true on replay, false on the live run.
    for (json* doc : {&live, &replayed})
      for (const char* part : {"hsa", "libdrm"})
        if ((*doc)["facts"].contains("runtime") && (*doc)["facts"]["runtime"].contains(part))
          (*doc)["facts"]["runtime"][part].erase("recorded");
    EXPECT_EQ(replayed.dump(2), live.dump(2));
    EXPECT_LT(bytes_under(t.dir / "live"), 1000000u);
  }
}

TEST(SnapshotCli, LargestFixtureStaysUnderOneMegabyte) {
  fs::path largest;
  std::uint64_t most = 0;
  for (const auto& f : fixture_machines())
    if (auto n = bytes_under(f); n >= most) {
      most = n;
      largest = f;
    }
  ASSERT_FALSE(largest.empty());
  SCOPED_TRACE(largest.string());
  TestTree t;
  ASSERT_EQ(amdml_run({"--root", largest.string(), "snapshot", (t.dir / "s").string()}).code, 0);
  EXPECT_LT(bytes_under(t.dir / "s"), 1000000u);
}

TEST(SnapshotCli, RefusesToOverwriteAndReportsBadInput) {
  TestTree t;
  fs::create_directories(t.dir / "full");
  std::ofstream(t.dir / "full/notes.txt") << "mine\n";
  auto r = amdml_run({"--root", privacy_fixture().string(), "snapshot", (t.dir / "full").string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not empty"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(t.dir / "full/notes.txt"), "mine\n");
  auto bad = amdml_run({"--root", privacy_fixture().string(), "report", "--snapshot-file", (t.dir / "x.zip").string()});
  EXPECT_EQ(bad.code, 2);
  auto missing = amdml_run({"snapshot"});
  EXPECT_EQ(missing.code, 2);
}

// A manifest nested 20,000 or 300,000 arrays deep (40 KB / 600 KB) is refused with the
// manifest's one-line error by every command that reads it, instead of overflowing the
// stack in the parser's callers.
TEST(SnapshotCli, DeeplyNestedManifestIsAOneLineError) {
  for (int depth : {20000, 300000}) {
    SCOPED_TRACE(depth);
    TestTree t;
    const fs::path root = t.dir / "machine";
    fs::create_directories(root);
    std::ofstream(root / "amdml-host.json") << "{\"format\": 1, \"hsa\": " << std::string(depth, '[')
                                            << std::string(depth, ']') << "}";
    for (std::vector<std::string> cmd : {std::vector<std::string>{"doctor"}, {"snapshot", (t.dir / "s").string()},
                                         {"report"}, {"report", "--format", "json"}}) {
      SCOPED_TRACE(cmd[0]);
      cmd.insert(cmd.begin(), {"--root", root.string()});
      auto r = amdml_run(cmd);
      EXPECT_EQ(r.code, 2) << r.err;
      EXPECT_NE(r.err.find("amdml-host.json: nested deeper than 64 levels"), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_FALSE(fs::exists(t.dir / "s"));
    }
  }
}

// A 6.9 MB manifest (a huge HSA agent list) re-recorded with indentation came out at
// 12 MB, more than the 8 MiB the rooted host reads: `report` (which replays its own
// recording) failed and the snapshot did not load. What amdml writes it reads back.
TEST(SnapshotCli, ReRecordingAHugeManifestReadsBack) {
  TestTree t;
  const fs::path a = t.dir / "machine", b = t.dir / "snap";
  copy_fixture("container-ok", a);
  json m = json::parse(read_file(a / "amdml-host.json"));
  const json gpu = m["hsa"]["agents"][1];
  const std::size_t base = m.dump().size();
  for (int i = 0; i == 0 || base + i * (gpu.dump().size() + 1) < 6900000; ++i) {
    json g = gpu;
    g["node"] = i + 2;
    m["hsa"]["agents"].push_back(g);
  }
  ASSERT_GE(m.dump().size(), 6900000u);
  std::ofstream(a / "amdml-host.json", std::ios::trunc) << m.dump();
  ASSERT_LT(fs::file_size(a / "amdml-host.json"), 8u << 20);
  auto snap = amdml_run({"--root", a.string(), "snapshot", b.string()});
  ASSERT_EQ(snap.code, 0) << snap.err;
  EXPECT_LE(fs::file_size(b / "amdml-host.json"), 8u << 20);
  auto want = amdml_run({"--root", a.string(), "doctor", "--format", "json"});
  auto got = amdml_run({"--root", b.string(), "doctor", "--format", "json"});
  ASSERT_EQ(got.code, want.code) << got.err;
  EXPECT_EQ(findings_view(got.out), findings_view(want.out));
  for (const char* format : {"markdown", "json"}) {
    auto rep = amdml_run({"--root", a.string(), "report", "--format", format});
    EXPECT_EQ(rep.code, 0) << format << ": " << rep.err;
    EXPECT_EQ(rep.err, "") << format;
  }
}
