// The rooted host: path resolution inside --root (re-rooted absolute links, ".." that
// stops at the root, loops that end in ELOOP, dangling links, FIFOs, unreadable files)
// and amdml-host.json parsing (every key, and each kind of wrong input).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/tree.hpp"
#include "platform/host.hpp"
#include "platform/hosts.hpp"

namespace amdml {
namespace {

using test::TestTree;
using platform::RootResolution;

// Every resolution test runs twice: with the kernel's openat2 RESOLVE_IN_ROOT and with
// the walk a kernel without it gets (paths::resolve_path); both must answer alike.
class RootedHost : public ::testing::TestWithParam<RootResolution> {
 protected:
  std::unique_ptr<platform::Host> host(const TestTree& t) const {
    auto h = platform::make_rooted_host_from_manifest(std::filesystem::canonical(t.root()).string(), std::nullopt,
                                                      GetParam());
    if (!h) return nullptr;
    return std::move(*h);
  }
};
INSTANTIATE_TEST_SUITE_P(Resolution, RootedHost, ::testing::Values(RootResolution::kernel, RootResolution::walk),
                         [](const auto& i) { return i.param == RootResolution::kernel ? "kernel" : "walk"; });

TEST_P(RootedHost, AbsoluteSymlinkTargetsAreReRooted) {
  TestTree t;
  t.write("opt/rocm-6.2.4/.info/version", "6.2.4-120\n");
  t.link("etc/alternatives/rocm", "/opt/rocm-6.2.4");
  t.link("opt/rocm", "/etc/alternatives/rocm");
  auto h = host(t);
  ASSERT_TRUE(h);
  auto text = h->read_file("/opt/rocm/.info/version");
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "6.2.4-120\n");
  auto canon = h->canonical("/opt/rocm");
  ASSERT_TRUE(canon);
  EXPECT_EQ(*canon, "/opt/rocm-6.2.4");
  auto link = h->read_link("/opt/rocm");
  ASSERT_TRUE(link);
  EXPECT_EQ(*link, "/etc/alternatives/rocm");
  auto lst = h->lstat("/opt/rocm");
  ASSERT_TRUE(lst);
  EXPECT_EQ(lst->type, FileType::symlink);
  auto st = h->stat("/opt/rocm");
  ASSERT_TRUE(st);
  EXPECT_EQ(st->type, FileType::directory);
}

TEST_P(RootedHost, RelativeSysfsLinksResolveLikeTheKernelLaysThemOut) {
  TestTree t;
  const std::string dev = "sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.link(dev + "/drm/card0/device", "../../../0000:03:00.0");
  t.link("sys/class/drm/card0", "../../devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card0");
  t.link("sys/bus/pci/devices/0000:03:00.0", "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->read_file("/sys/class/drm/card0/device/vendor").value_or(""), "0x1002\n");
  EXPECT_EQ(h->read_file("/sys/bus/pci/devices/0000:03:00.0/vendor").value_or(""), "0x1002\n");
  EXPECT_EQ(h->canonical("/sys/class/drm/card0/device").value_or(""), "/" + dev);
}

TEST_P(RootedHost, DotDotStopsAtTheRoot) {
  TestTree t;
  t.write("etc/os-release", "ID=inside\n");
  t.link("usr/lib/os-release", "../../../../../../../../etc/os-release");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->read_file("/../../../etc/os-release").value_or(""), "ID=inside\n");
  EXPECT_EQ(h->read_file("/usr/lib/os-release").value_or(""), "ID=inside\n");
  EXPECT_EQ(h->canonical("/usr/lib/os-release").value_or(""), "/etc/os-release");
}

TEST_P(RootedHost, AbsoluteEscapesStayInside) {
  TestTree t;
  // The host's /etc/passwd exists; the root's does not. A link aiming at it (plainly
  // or by climbing) must find the root's -- i.e. nothing.
  t.link("a/passwd", "/etc/passwd");
  t.link("b/passwd", "/../../../../../etc/passwd");
  t.link("c/passwd", "../../../../../../../../../etc/passwd");
  auto h = host(t);
  ASSERT_TRUE(h);
  for (const char* p : {"/a/passwd", "/b/passwd", "/c/passwd", "/../../etc/passwd"}) {
    auto r = h->read_file(p);
    ASSERT_FALSE(r) << p << " read the host's /etc/passwd";
    EXPECT_EQ(r.error().code, ENOENT) << p;
  }
  t.write("etc/passwd", "inside:x:1:1::/:/bin/sh\n");
  for (const char* p : {"/a/passwd", "/b/passwd", "/c/passwd"})
    EXPECT_EQ(h->read_file(p).value_or(""), "inside:x:1:1::/:/bin/sh\n") << p;
}

TEST_P(RootedHost, SymlinkLoopsEndInEloop) {
  TestTree t;
  t.link("opt/rocm", "/opt/rocm-current");
  t.link("opt/rocm-current", "/opt/rocm");
  t.link("self", "self");
  t.link("etc/passwd", "/etc/passwd");  // re-rooted onto itself
  auto h = host(t);
  ASSERT_TRUE(h);
  for (const char* p : {"/opt/rocm", "/opt/rocm/.info/version", "/self", "/etc/passwd"}) {
    auto r = h->read_file(p);
    ASSERT_FALSE(r) << p;
    EXPECT_EQ(r.error().code, ELOOP) << p;
    EXPECT_NE(r.error().message.find(p), std::string::npos) << r.error().message;
    EXPECT_EQ(h->stat(p).error().code, ELOOP) << p;
    EXPECT_FALSE(h->list_dir(p)) << p;
    EXPECT_FALSE(h->canonical(p)) << p;
  }
  // lstat and readlink look at the link itself and succeed.
  EXPECT_TRUE(h->lstat("/self"));
  EXPECT_EQ(h->read_link("/self").value_or(""), "self");
}

TEST_P(RootedHost, DirectoryLinkToParentIsDeepNotALoop) {
  TestTree t;
  t.write("d/file", "x\n");
  t.link("d/up", ".");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->read_file("/d/up/up/up/up/file").value_or(""), "x\n");
}

TEST_P(RootedHost, DanglingSymlinkIsAbsentButVisibleAsALink) {
  TestTree t;
  t.link("sys/class/drm/card1", "../../devices/pci0000:00/0000:00:09.0/drm/card1");
  auto h = host(t);
  ASSERT_TRUE(h);
  auto r = h->read_file("/sys/class/drm/card1/device/vendor");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ENOENT);
  EXPECT_FALSE(h->exists("/sys/class/drm/card1"));
  auto l = h->lstat("/sys/class/drm/card1");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->type, FileType::symlink);
  auto entries = h->list_dir("/sys/class/drm");
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 1u);
  EXPECT_EQ((*entries)[0].type, FileType::symlink);
}

TEST_P(RootedHost, FifoIsRefusedWithoutBlocking) {
  TestTree t;
  t.mkdir("sys/class/drm/card0/device");
  ASSERT_EQ(::mkfifo(t.real("sys/class/drm/card0/device/mem_info_vram_total").c_str(), 0644), 0);
  auto h = host(t);
  ASSERT_TRUE(h);
  auto r = h->read_file("/sys/class/drm/card0/device/mem_info_vram_total");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos);
}

TEST_P(RootedHost, UnreadableFileIsAnError) {
  TestTree t;
  t.write("sys/module/ttm/parameters/pages_limit", "3052026\n");
  ::chmod(t.real("sys/module/ttm/parameters/pages_limit").c_str(), 0);
  auto h = host(t);
  ASSERT_TRUE(h);
  auto r = h->read_file("/sys/module/ttm/parameters/pages_limit");
  if (test::running_as_root()) GTEST_SKIP() << "running as root: chmod 000 does not stop reads";
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EACCES);
}

TEST_P(RootedHost, ReadLimitIsEnforced) {
  TestTree t;
  t.write("big", std::string(5000, 'x'));
  auto h = host(t);
  ASSERT_TRUE(h);
  auto r = h->read_file("/big", 4096);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, EFBIG);
  EXPECT_TRUE(h->read_file("/big", 8192));
}

TEST_P(RootedHost, ReadingADirectoryOrThroughAFileFails) {
  TestTree t;
  t.write("etc/group", "root:x:0:\n");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->read_file("/etc").error().code, EISDIR);
  auto r = h->read_file("/etc/group/child");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ENOTDIR);
}

// A read's limit holds for each call: a smaller one fails, a larger one succeeds, and
// a file is read whole past any buffer size.
TEST_P(RootedHost, ReadsKeepTheirLimit) {
  TestTree t;
  t.write("big", std::string(5000, 'x'));
  t.write("bigger", std::string(70000, 'y'));
  t.write("empty", "");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->read_file("/big", 8192));
  EXPECT_EQ(h->read_file("/big", 4096).error().code, EFBIG);
  EXPECT_EQ(h->read_file("/big", 8192).value_or("").size(), 5000u);
  EXPECT_EQ(h->read_file("/bigger").value_or(""), std::string(70000, 'y'));
  EXPECT_EQ(h->read_file("/empty").value_or("?"), "");
}

// Issue 16: a sysfs file costs open+read+close (no fstat unless the read is not plainly
// the whole file): files around the one-page read are still read whole, limits hold.
TEST_P(RootedHost, FilesAroundAPageAreReadWhole) {
  TestTree t;
  for (std::size_t n : {1u, 4095u, 4096u, 4097u, 8192u, 12289u}) t.write("f" + std::to_string(n), std::string(n, 'z'));
  auto h = host(t);
  ASSERT_TRUE(h);
  for (std::size_t n : {1u, 4095u, 4096u, 4097u, 8192u, 12289u}) {
    const std::string p = "/f" + std::to_string(n);
    EXPECT_EQ(h->read_file(p, n).value_or("?"), std::string(n, 'z')) << p;
    auto small = h->read_file(p, n - 1);
    ASSERT_FALSE(small) << p;
    EXPECT_EQ(small.error().code, EFBIG) << p;
    EXPECT_EQ(small.error().message, p + ": larger than " + std::to_string(n - 1) + " bytes");
  }
}

// A relative link's leading "./" and "../" pop the link's own resolved directory, never
// past the root (issue 16 applies them to the resolved path instead of resolving
// "dir/../.." component by component).
TEST_P(RootedHost, RelativeLinkTargetsPopTheLinksDirectory) {
  TestTree t;
  t.write("devices/x/vendor", "0x1002\n");
  t.link("a/b/up", "../../../../devices/x");
  t.link("a/b/dot", "./.././../devices/x");
  t.link("a/b/c/mid", "../../../devices/../devices/x");
  auto h = host(t);
  ASSERT_TRUE(h);
  for (const char* p : {"/a/b/up", "/a/b/dot", "/a/b/c/mid"}) {
    EXPECT_EQ(h->canonical(p).value_or(""), "/devices/x") << p;
    EXPECT_EQ(h->read_file(std::string(p) + "/vendor").value_or(""), "0x1002\n") << p;
  }
}

// Nothing is remembered: a file changed, a directory created, an entry added between
// two calls is seen by the second (amdml fix probes again after it wrote), and an
// error names the path asked for, whichever link led to the file.
TEST_P(RootedHost, EachCallSeesTheTreeAsItIsThen) {
  TestTree t;
  const std::string dev = "sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.link("sys/bus/pci/devices/0000:03:00.0", "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0");
  t.link(dev + "/drm/card0/device", "../../../0000:03:00.0");
  t.link("sys/class/drm/card0", "../../devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card0");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->read_file("/sys/bus/pci/devices/0000:03:00.0/vendor").value_or(""), "0x1002\n");
  t.write(dev + "/vendor", "0x10de\n");
  EXPECT_EQ(h->read_file("/sys/class/drm/card0/device/vendor").value_or(""), "0x10de\n");
  EXPECT_EQ(h->list_dir("/sys/class/drm").value_or(std::vector<DirEntry>{}).size(), 1u);
  t.write("sys/class/drm/version", "drm 1.1.0\n");
  EXPECT_EQ(h->list_dir("/sys/class/drm").value_or(std::vector<DirEntry>{}).size(), 2u);
  std::filesystem::remove(t.real(dev + "/vendor"));
  EXPECT_EQ(h->read_file("/sys/bus/pci/devices/0000:03:00.0/vendor").error().message,
            "/sys/bus/pci/devices/0000:03:00.0/vendor: No such file or directory");
  EXPECT_EQ(h->read_file("/sys/class/drm/card0/device/vendor").error().message,
            "/sys/class/drm/card0/device/vendor: No such file or directory");
  EXPECT_EQ(h->read_file("/usr/lib/os-release").error().code, ENOENT);
  t.write("usr/lib/os-release", "ID=debian\n");
  EXPECT_EQ(h->read_file("/usr/lib/os-release").value_or(""), "ID=debian\n");
}

// Each operation through a missing directory, a regular file and a dangling link fails
// with the code the kernel gives a process chrooted into the tree.
TEST_P(RootedHost, ErrorsAreTheKernels) {
  TestTree t;
  t.write("etc/group", "root:x:0:\n");
  t.link("sys/class/drm/card1", "../../devices/pci0000:00/0000:00:09.0/drm/card1");
  auto h = host(t);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->read_file("/opt/rocm/lib/libhsa-runtime64.so.1").error().code, ENOENT);
  EXPECT_EQ(h->read_file("/etc/group/child/x").error().code, ENOTDIR);
  EXPECT_EQ(h->list_dir("/etc/group").error().code, ENOTDIR);
  EXPECT_EQ(h->stat("/sys/class/drm/card1/device").error().code, ENOENT);
  EXPECT_EQ(h->read_link("/etc/group").error().code, EINVAL);
  EXPECT_EQ(h->read_link("/etc").error().code, EINVAL);
  EXPECT_EQ(h->read_link("/sys/class/drm/card1").value_or(""), "../../devices/pci0000:00/0000:00:09.0/drm/card1");
  EXPECT_EQ(h->canonical("/sys/class/drm/card1").error().code, ENOENT);
}

TEST_P(RootedHost, ListDirIsSortedAndTyped) {
  TestTree t;
  t.write("d/b", "");
  t.mkdir("d/a");
  t.link("d/c", "b");
  auto h = host(t);
  ASSERT_TRUE(h);
  auto e = h->list_dir("/d");
  ASSERT_TRUE(e);
  ASSERT_EQ(e->size(), 3u);
  EXPECT_EQ((*e)[0].name, "a");
  EXPECT_EQ((*e)[0].type, FileType::directory);
  EXPECT_EQ((*e)[1].type, FileType::regular);
  EXPECT_EQ((*e)[2].type, FileType::symlink);
}

TEST(MakeHost, RootThatDoesNotExistOrIsAFileIsAOneLineError) {
  TestTree t;
  auto missing = platform::make_host(t.root() + "/nothing");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nothing"), std::string::npos);
  EXPECT_EQ(missing.error().message.find('\n'), std::string::npos);
  t.write("file", "");
  auto file = platform::make_host(t.root() + "/file");
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("not a directory"), std::string::npos);
}

TEST(MakeHost, SlashIsTheLiveHost) {
  auto h = platform::make_host("/");
  ASSERT_TRUE(h);
  EXPECT_TRUE((*h)->live());
  EXPECT_EQ((*h)->root(), "/");
}

TEST(Manifest, EveryKeyIsRead) {
  TestTree t;
  t.manifest(R"({
    "format": 1,
    "uname": {"release": "6.8.0-45-generic", "machine": "x86_64"},
    "process": {"user": "alice", "uid": 1000, "gid": 1001, "euid": 0, "groups": [1000, 27, 44, 992]},
    "sudo_user": "alice",
    "env": {"PATH": "/usr/bin:/bin", "HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
    "devices": {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 992, "open": "EACCES"},
                "/dev/dri/renderD128": {"type": "char", "mode": 432, "gid": 992, "open": "ok"}},
    "container": "podman",
    "hsa": {"status": "ok", "agents": []},
    "commands": {"ollama --version": {"exit_code": 0, "stdout": "ollama version is 0.12.3\n", "stderr": ""},
                 "uname -r": "6.8.0-45-generic\n"},
    "some_future_key": {"ignored": true}
  })");
  auto h = t.host();
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->live());
  EXPECT_EQ(h->uname().release, "6.8.0-45-generic");
  EXPECT_EQ(h->uname().machine, "x86_64");
  auto id = h->identity();
  EXPECT_EQ(id.user, "alice");
  EXPECT_EQ(id.uid, 1000u);
  EXPECT_EQ(id.gid, 1001u);
  EXPECT_EQ(id.euid, 0u);
  ASSERT_TRUE(id.groups);
  EXPECT_EQ(*id.groups, (std::vector<std::uint32_t>{1000, 27, 44, 992}));
  EXPECT_EQ(id.sudo_user, "alice");
  EXPECT_EQ(h->env("HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
  EXPECT_EQ(h->env("NOT_SET"), std::nullopt);
  EXPECT_EQ(h->environment().size(), 2u);
  auto devs = h->devices();
  ASSERT_TRUE(devs);
  ASSERT_EQ(devs->size(), 2u);
  const auto& kfd = (*devs)[0].path == "/dev/kfd" ? (*devs)[0] : (*devs)[1];
  const auto& render = (*devs)[0].path == "/dev/kfd" ? (*devs)[1] : (*devs)[0];
  EXPECT_EQ(kfd.type, FileType::char_device);
  EXPECT_EQ(kfd.mode, 0660u);
  EXPECT_EQ(kfd.uid, 0u);
  EXPECT_EQ(kfd.gid, 992u);
  EXPECT_EQ(kfd.open, OpenCheck::failed);
  EXPECT_EQ(kfd.open_errno, EACCES);
  EXPECT_EQ(render.mode, 0660u);  // 432 decimal
  EXPECT_EQ(render.open, OpenCheck::ok);
  EXPECT_EQ(h->container(), ContainerKind::podman);
  auto hsa = h->recorded("hsa");
  ASSERT_TRUE(hsa);
  EXPECT_EQ((*hsa)["status"], "ok");
  EXPECT_FALSE(h->recorded("ollama"));
  auto run = h->run({"ollama", "--version"}, std::chrono::milliseconds(100));
  ASSERT_TRUE(run);
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_EQ(run->out, "ollama version is 0.12.3\n");
  auto uname = h->run({"uname", "-r"}, std::chrono::milliseconds(100));
  ASSERT_TRUE(uname);
  EXPECT_EQ(uname->out, "6.8.0-45-generic\n");
  auto missing = h->run({"rocminfo"}, std::chrono::milliseconds(100));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
}

TEST(Manifest, AbsentManifestOrKeysMeanUnknown) {
  TestTree t;
  auto h = t.host();
  ASSERT_TRUE(h);
  EXPECT_FALSE(h->identity().user);
  EXPECT_FALSE(h->identity().groups);
  EXPECT_FALSE(h->uname().release);
  EXPECT_FALSE(h->devices());
  EXPECT_FALSE(h->container());
  t.manifest(R"({"format": 1, "devices": {}, "container": null, "sudo_user": null})");
  auto h2 = t.host();
  ASSERT_TRUE(h2);
  ASSERT_TRUE(h2->devices());  // present and empty: no device nodes at all
  EXPECT_TRUE(h2->devices()->empty());
  EXPECT_FALSE(h2->container());
  EXPECT_FALSE(h2->identity().sudo_user);
}

// Every committed malformed manifest is refused with one line naming the file.
TEST(Manifest, MalformedManifestsAreOneLineErrors) {
  const std::filesystem::path base = std::filesystem::path(test::fixture("bad-manifest"));
  int seen = 0;
  for (const auto& d : std::filesystem::directory_iterator(base)) {
    ++seen;
    auto h = platform::make_host(d.path().string());
    ASSERT_FALSE(h) << d.path() << " was accepted";
    const auto& msg = h.error().message;
    EXPECT_NE(msg.find("amdml-host.json"), std::string::npos) << d.path() << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << d.path() << ": " << msg;
  }
  EXPECT_GE(seen, 15);
}

struct WrongType {
  const char* json;
  const char* mentions;
};

// The test's name in CTest (gtest_discover_tests prints the parameter): the manifest
// without quotes or spaces, stable and unique, instead of the struct's bytes.
void PrintTo(const WrongType& w, std::ostream* os) {
  for (const char* c = w.json; *c; ++c)
    if (*c != '"' && *c != ' ') *os << *c;
}

class ManifestWrongType : public ::testing::TestWithParam<WrongType> {};

TEST_P(ManifestWrongType, NamesTheKey) {
  TestTree t;
  t.manifest(GetParam().json);
  auto h = platform::make_host(t.root());
  ASSERT_FALSE(h) << GetParam().json;
  EXPECT_NE(h.error().message.find(GetParam().mentions), std::string::npos) << h.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Keys, ManifestWrongType,
    ::testing::Values(WrongType{R"({"format": 2})", "format"}, WrongType{R"({"uname": {"release": 6}})", "uname.release"},
                      WrongType{R"({"uname": {"machine": ["x86_64"]}})", "uname.machine"},
                      WrongType{R"({"process": {"user": 1000}})", "process.user"},
                      WrongType{R"({"process": {"gid": "1000"}})", "process.gid"},
                      WrongType{R"({"process": {"euid": -5}})", "process.euid"},
                      WrongType{R"({"process": {"groups": [44, "render"]}})", "process.groups"},
                      WrongType{R"({"process": []})", "process"}, WrongType{R"({"sudo_user": 0})", "sudo_user"},
                      WrongType{R"({"env": ["PATH=/bin"]})", "env"}, WrongType{R"({"env": {"PATH": null}})", "env.PATH"},
                      WrongType{R"({"devices": {"/dev/kfd": "0660"}})", "devices./dev/kfd"},
                      WrongType{R"({"devices": {"/dev/kfd": {"mode": "0668"}}})", "mode"},
                      WrongType{R"({"devices": {"/dev/kfd": {"mode": true}}})", "mode"},
                      WrongType{R"({"devices": {"/dev/kfd": {"gid": "render"}}})", "gid"},
                      WrongType{R"({"devices": {"/dev/kfd": {"uid": -1}}})", "uid"},
                      WrongType{R"({"devices": {"/dev/kfd": {"open": 13}}})", "open"},
                      WrongType{R"({"container": "vmware"})", "container"},
                      WrongType{R"({"commands": "ollama"})", "commands"}));

}  // namespace
}  // namespace amdml
