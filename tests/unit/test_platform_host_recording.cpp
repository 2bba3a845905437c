// The recording host: what it records while probes read through it, and that the tree
// it writes replays the same reads -- symlink chains, listings, failures and all.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "formats/snapshot.hpp"
#include "platform/host.hpp"
#include "support/forwarding_host.hpp"
#include "support/tree.hpp"
#include "platform/host_recording.hpp"
#include "platform/snapshot_writer.hpp"

using namespace amdml;

namespace {

void put(const std::string& path, const std::string& content) {
  std::string dir = path.substr(0, path.rfind('/'));
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  std::ofstream(path) << content;
}

void symlink_at(const std::string& target, const std::string& path) {
  std::string dir = path.substr(0, path.rfind('/'));
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  ASSERT_EQ(::symlink(target.c_str(), path.c_str()), 0) << path;
}

// A host that fails one path the way a container's device cgroup does.
class FailingHost final : public test::ForwardingHost {
 public:
  explicit FailingHost(const platform::Host& inner) : ForwardingHost(inner) {}
  bool live() const override { return false; }
  Result<std::string> read_file(const std::string& p, std::size_t limit) const override {
    if (p == "/sys/secret") return make_error(p + ": Operation not permitted", EPERM);
    return inner_.read_file(p, limit);
  }
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override {
    if (argv.at(0) == "ollama") return CommandResult{0, false, 0, "ollama version is 0.9.6\n", ""};
    return make_error(argv[0] + ": not found on PATH", ENOENT);
  }
};

}  // namespace

TEST(SnapshotRecord, RecordedTreeReplaysTheSameReads) {
  test::TestTree src, out;
  const std::string a = src.str();
  put(a + "/amdml-host.json", R"({"format": 1, "uname": {"release": "6.8.0"}, "env": {"ROCM_PATH": "/opt/rocm"}})");
  put(a + "/opt/rocm-6.2.4/.info/version", "6.2.4-120\n");
  symlink_at("/opt/rocm-6.2.4", a + "/opt/rocm");  // absolute: re-rooted by the rooted host
  put(a + "/sys/devices/pci0000:00/0000:03:00.0/vendor", "0x1002\n");
  ::mkdir((a + "/sys/devices/pci0000:00/0000:03:00.0/drm").c_str(), 0755);
  symlink_at("../../devices/pci0000:00/0000:03:00.0", a + "/sys/class/drm/card1");
  symlink_at("../../devices/pci0000:00/0000:03:00.0/drm/card1-DP-1", a + "/sys/class/drm/card1-DP-1");
  put(a + "/sys/class/drm/version", "drm 1.1.0\n");
  put(a + "/sys/secret", "42\n");
  put(a + "/sys/module/amdgpu/initstate", "live\n");
  put(a + "/var/big", std::string(5000, 'x'));

  auto rooted = platform::make_host(a);
  ASSERT_TRUE(rooted.ok()) << rooted.error().message;
  FailingHost failing(**rooted);
  platform::RecordingHost rec(failing);

  struct Reads {
    std::string version, vendor, canon_rocm, canon_card, listing, secret_err, big_err, ollama, missing_cmd;
    bool amdgpu = false, missing = true;
    std::optional<std::string> rocm_path;
  };
  auto read_all = [](const platform::Host& h) {
    Reads r;
    r.version = h.read_file("/opt/rocm/.info/version").value_or("?");
    r.vendor = h.read_file("/sys/class/drm/card1/vendor").value_or("?");
    r.canon_rocm = h.canonical("/opt/rocm").value_or("?");
    r.canon_card = h.canonical("/sys/class/drm/card1").value_or("?");
    if (auto l = h.list_dir("/sys/class/drm"))
      for (const auto& e : *l) r.listing += e.name + ":" + to_string(e.type) + " ";
    auto s = h.read_file("/sys/secret");
    r.secret_err = s ? "read" : s.error().message + " " + std::to_string(s.error().code);
    auto b = h.read_file("/var/big", 1000);
    r.big_err = b ? "read" : b.error().message;
    r.amdgpu = h.exists("/sys/module/amdgpu");
    r.missing = h.exists("/sys/module/amdttm");
    r.rocm_path = h.env("ROCM_PATH");
    auto o = h.run({"ollama", "--version"}, std::chrono::milliseconds(1000));
    r.ollama = o ? o->out : o.error().message;
    auto m = h.run({"python3", "-V"}, std::chrono::milliseconds(1000));
    r.missing_cmd = m ? m->out : m.error().message;
    return r;
  };
  Reads first = read_all(rec);
  EXPECT_EQ(first.version, "6.2.4-120\n");
  EXPECT_EQ(first.canon_rocm, "/opt/rocm-6.2.4");
  EXPECT_EQ(first.secret_err, "/sys/secret: Operation not permitted " + std::to_string(EPERM));
  EXPECT_TRUE(first.amdgpu);
  EXPECT_FALSE(first.missing);

  formats::Recording r = rec.recording();
  EXPECT_EQ(r.tree.at("/opt/rocm").kind, formats::SnapshotNode::Kind::symlink);
  EXPECT_EQ(r.tree.at("/opt/rocm").target, "/opt/rocm-6.2.4");
  EXPECT_EQ(r.tree.at("/sys/class/drm/card1-DP-1").kind, formats::SnapshotNode::Kind::symlink);  // listed only
  EXPECT_EQ(r.tree.at("/sys/class/drm/version").kind, formats::SnapshotNode::Kind::placeholder);  // listed only
  EXPECT_FALSE(r.tree.count("/sys/secret") && r.tree.at("/sys/secret").kind == formats::SnapshotNode::Kind::file);
  EXPECT_FALSE(r.tree.count("/var/big") && r.tree.at("/var/big").kind == formats::SnapshotNode::Kind::file);

  formats::SnapshotMeta meta;
  auto manifest = formats::snapshot_manifest(r, meta).dump(2);
  const std::string b = out.str() + "/snap";
  ASSERT_EQ(::mkdir(b.c_str(), 0755), 0);
  auto stats = platform::write_snapshot_tree(r, manifest, b);
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  // The absolute link is written as a link; the file it leads to sits inside the
  // snapshot at its resolved path (nothing is ever written through a link).
  struct stat st {};
  ASSERT_EQ(::lstat((b + "/opt/rocm").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::lstat((b + "/opt/rocm-6.2.4/.info/version").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));

  auto replay_host = platform::make_host(b);
  ASSERT_TRUE(replay_host.ok()) << replay_host.error().message;
  Reads second = read_all(**replay_host);
  EXPECT_EQ(second.version, first.version);
  EXPECT_EQ(second.vendor, first.vendor);
  EXPECT_EQ(second.canon_rocm, first.canon_rocm);
  EXPECT_EQ(second.canon_card, first.canon_card);
  EXPECT_EQ(second.listing, first.listing);
  EXPECT_EQ(second.secret_err, first.secret_err);
  EXPECT_EQ(second.big_err, first.big_err);
  EXPECT_EQ(second.amdgpu, first.amdgpu);
  EXPECT_EQ(second.missing, first.missing);
  EXPECT_EQ(second.rocm_path, first.rocm_path);
  EXPECT_EQ(second.ollama, first.ollama);
  EXPECT_EQ(second.missing_cmd, first.missing_cmd);
}

TEST(SnapshotRecord, PublishRefusesNonEmptyDirectoriesAndLeavesNothingBehind) {
  test::TestTree t;
  formats::Recording r;
  formats::SnapshotNode n;
  n.kind = formats::SnapshotNode::Kind::file;
  n.content = "live\n";
  r.tree["/sys/module/amdgpu/initstate"] = n;
  const std::string manifest = "{\"format\": 1}\n";
  const std::string out = t.str() + "/out";
  ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
  put(out + "/precious", "keep me\n");
  auto refused = platform::publish_snapshot(r, manifest, out, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("not empty"), std::string::npos);
  auto forced = platform::publish_snapshot(r, manifest, out, true);  // not a snapshot: still refused
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.error().message.find("not an amdml snapshot"), std::string::npos);
  struct stat st {};
  EXPECT_EQ(::stat((out + "/precious").c_str(), &st), 0);

  const std::string snap = t.str() + "/snap";
  ASSERT_TRUE(platform::publish_snapshot(r, manifest, snap, false).ok());
  EXPECT_FALSE(platform::publish_snapshot(r, manifest, snap, false).ok());
  ASSERT_TRUE(platform::publish_snapshot(r, manifest, snap, true).ok());  // an earlier snapshot: replaced
  EXPECT_EQ(::stat((snap + "/sys/module/amdgpu/initstate").c_str(), &st), 0);

  // A tree that cannot be written (a file where a directory must go) fails cleanly.
  formats::Recording bad = r;
  bad.tree["/sys/module/amdgpu/initstate/oops"] = n;
  EXPECT_FALSE(platform::publish_snapshot(bad, manifest, t.str() + "/bad", false).ok());
  auto entries = platform::remove_tree(t.str() + "/bad");
  EXPECT_FALSE(entries.ok());  // never created
  std::string leftovers;
  if (auto l = platform::make_host("/"); l.ok())
    if (auto d = (*l)->list_dir(t.str()))
      for (const auto& e : *d) leftovers += e.name + " ";
  EXPECT_EQ(leftovers, "out snap ");
}

namespace amdml {
namespace {

// The kernel ring is recorded as DIR/dev/kmsg with the GPU lines only, MACs masked, and
// replays as the same records; ollama's journal as DIR/var/log/amdml-journal/ollama.log.
TEST(SnapshotRecord, KernelLogKeepsGpuLinesAndReplays) {
  test::TestTree src;
  const std::string a = src.str();
  put(a + "/amdml-host.json", R"({"format": 1})");
  put(a + "/dev/kmsg",
      "6,1,100,-;r8169 0000:04:00.0 eno1: RTL8168h, 0c:9d:92:1a:2b:3c, XID 541\n"
      "3,2,200,-;amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n"
      "4,3,300,-;amdgpu 0000:c5:00.0: amdgpu: bound to 0c:9d:92:1a:2b:3c\n");
  put(a + "/var/log/amdml-journal/ollama.log", "Nov 20 box ollama[1]: msg=\"no compatible GPUs were discovered\"\n");
  auto rooted = platform::make_host(a);
  ASSERT_TRUE(rooted.ok()) << rooted.error().message;
  platform::RecordingHost rec(**rooted);
  auto k = rec.kernel_log(1 << 20, std::chrono::milliseconds(100));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->source, "/dev/kmsg");
  auto j = rec.service_journal("ollama", 1 << 20, std::chrono::milliseconds(100));
  ASSERT_TRUE(j.ok());
  const formats::Recording r = rec.recording();
  ASSERT_TRUE(r.tree.count("/dev/kmsg"));
  EXPECT_EQ(r.tree.at("/dev/kmsg").content,
            "3,2,200,-;amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE\n"
            "4,3,300,-;amdgpu 0000:c5:00.0: amdgpu: bound to xx:xx:xx:xx:xx:xx\n");
  ASSERT_TRUE(r.tree.count("/var/log/amdml-journal/ollama.log"));
  EXPECT_EQ(r.tree.at("/var/log/amdml-journal").kind, formats::SnapshotNode::Kind::directory);
}

TEST(SnapshotRecord, KernelLogRefusalIsRecordedAsAnError) {
  test::TestTree src;
  const std::string a = src.str();
  put(a + "/amdml-host.json",
      R"({"format": 1, "errors": {"read": {"/dev/kmsg": {"errno": "EPERM", "message": "needs root"}}}})");
  auto rooted = platform::make_host(a);
  ASSERT_TRUE(rooted.ok()) << rooted.error().message;
  platform::RecordingHost rec(**rooted);
  auto k = rec.kernel_log(1 << 20, std::chrono::milliseconds(100));
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().code, EPERM);
  EXPECT_EQ(rec.recording().errors.at("read").at("/dev/kmsg").code, EPERM);
}

}  // namespace
}  // namespace amdml
