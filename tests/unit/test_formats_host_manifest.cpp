// amdml-host.json has one codec (formats/host_manifest.hpp): what `amdml snapshot`
// writes is what the rooted host reads. Round trips of every part, unknown keys kept as
// recorded facts, absent keys unknown, and the fixture manifests read and rewrite to
// manifests that read the same.
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/errno_names.hpp"
#include "formats/host_manifest.hpp"

using namespace amdml;
using nlohmann::json;

namespace {

formats::HostManifest full_manifest() {
  formats::HostManifest m;
  m.uname = Uname{"6.8.0-60-generic", "x86_64"};
  Identity id;
  id.user = "alice";
  id.uid = 1000;
  id.gid = 1000;
  id.euid = 1000;
  id.groups = std::vector<std::uint32_t>{1000, 44, 992};
  id.sudo_user = "bob";
  m.identity = id;
  m.env = {{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}, {"PATH", "/usr/bin"}};
  DeviceNode kfd;
  kfd.path = "/dev/kfd";
  kfd.mode = 0666;
  kfd.gid = 992;
  kfd.open = OpenCheck::ok;
  DeviceNode rn;
  rn.path = "/dev/dri/renderD128";
  rn.mode = 0660;
  rn.uid = 0;
  rn.gid = 992;
  rn.open = OpenCheck::failed;
  rn.open_errno = EACCES;
  m.devices = std::vector<DeviceNode>{rn, kfd};  // path order, as the manifest keeps them
  m.container_recorded = true;
  m.container = ContainerKind::podman;
  formats::RecordedCommand ran;
  ran.result = CommandResult{};
  ran.result->exit_code = 1;
  ran.result->out = "out\n";
  ran.result->err = "err\n";
  ran.result->signal = 0;
  m.commands["dkms status"] = ran;
  formats::RecordedCommand missing;
  missing.error = make_error("ollama: No such file or directory", ENOENT);
  m.commands["ollama --version"] = missing;
  m.errors["read"]["/sys/module/amdgpu/version"] = formats::RecordedError{EACCES, "/sys/module/amdgpu/version: Permission denied"};
  m.facts["hsa"] = json{{"status", "ok"}};
  m.snapshot = formats::SnapshotMeta{"0.1.0", true, json{{"runtime", true}}};
  return m;
}

}  // namespace

TEST(HostManifest, EveryPartRoundTrips) {
  const formats::HostManifest m = full_manifest();
  const json written = formats::host_manifest_json(m);
  EXPECT_EQ(written["format"], 1);
  EXPECT_EQ(written["devices"]["/dev/dri/renderD128"]["mode"], "0660");
  EXPECT_EQ(written["devices"]["/dev/dri/renderD128"]["open"], "EACCES");
  EXPECT_EQ(written["commands"]["ollama --version"]["errno"], "ENOENT");
  auto back = formats::parse_host_manifest(written.dump());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->uname->release, "6.8.0-60-generic");
  EXPECT_EQ(back->identity->groups, (std::vector<std::uint32_t>{1000, 44, 992}));
  EXPECT_EQ(back->identity->sudo_user, "bob");
  EXPECT_EQ(back->env, m.env);
  ASSERT_EQ(back->devices->size(), 2u);
  EXPECT_EQ((*back->devices)[0].path, "/dev/dri/renderD128");
  EXPECT_EQ((*back->devices)[0].open_errno, EACCES);
  EXPECT_EQ((*back->devices)[1].mode, 0666u);
  EXPECT_EQ(back->container, ContainerKind::podman);
  EXPECT_EQ(back->commands.at("dkms status").result->err, "err\n");
  EXPECT_EQ(back->commands.at("ollama --version").error->code, ENOENT);
  EXPECT_EQ(back->errors.at("read").at("/sys/module/amdgpu/version").code, EACCES);
  EXPECT_EQ(back->facts.at("hsa"), m.facts.at("hsa"));
  EXPECT_EQ(back->snapshot->options, m.snapshot->options);
  EXPECT_EQ(host_manifest_json(*back), written);
}

// Absent keys are unknown; keys the format does not define are recorded facts; the
// short command form is the output of a program that exited 0; "container": null is a
// recorded "not in a container".
TEST(HostManifest, AbsentUnknownAndShortForms) {
  auto m = formats::parse_host_manifest(R"({"docker": {"socket": "/run/docker.sock"}, "commands": {"uname -r": "6.8.0\n"},
                                   "container": null})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_FALSE(m->uname);
  EXPECT_FALSE(m->identity);
  EXPECT_FALSE(m->devices);
  EXPECT_TRUE(m->container_recorded);
  EXPECT_FALSE(m->container);
  EXPECT_EQ(m->facts.at("docker")["socket"], "/run/docker.sock");
  EXPECT_EQ(m->facts.count("commands"), 0u);
  const auto& c = m->commands.at("uname -r");
  ASSERT_TRUE(c.result);
  EXPECT_EQ(c.result->exit_code, 0);
  EXPECT_EQ(c.result->out, "6.8.0\n");
  EXPECT_EQ(formats::host_manifest_json(*m)["container"], nullptr);
}

// Wrong kinds are one-line errors naming the key, the way --root reports them.
TEST(HostManifest, WrongKindsNameTheKey) {
  struct Case {
    const char* text;
    const char* error;
  } cases[] = {
      {"[]", "amdml-host.json: must be a JSON object"},
      {R"({"format": 2})", "amdml-host.json: unsupported format (amdml reads format 1)"},
      {R"({"env": {"A": 1}})", "amdml-host.json: env.A must be a string"},
      {R"({"process": {"uid": -1}})", "amdml-host.json: process.uid must be a non-negative integer"},
      {R"({"devices": {"/dev/kfd": {"mode": "0999"}}})", "amdml-host.json: devices./dev/kfd.mode must be octal like \"0660\""},
      {R"({"commands": {"a": {"exit_code": 300}}})", "amdml-host.json: commands.a.exit_code must be an integer from -255 to 255"},
      {R"({"errors": {"read": {"/x\ny": 1}}})",
       "amdml-host.json: errors.read./x y must be {\"errno\": NAME, \"message\": TEXT}"},
  };
  for (const auto& c : cases) {
    auto m = formats::parse_host_manifest(c.text);
    ASSERT_FALSE(m.ok()) << c.text;
    EXPECT_EQ(m.error().message, c.error);
  }
}

// Issue 16: "devices" is read straight from the parse (a 16-GPU snapshot holds 258 device
// nodes), by the plain-JSON fast path or, for any other text, through nlohmann's parser.
// Both read like the document did: keys repeat and the last one wins, "-0" is 0, fields
// amdml does not know are skipped whatever they hold, paths come in path order.
TEST(HostManifest, DevicesReadAlikeOnBothPaths) {
  struct Case {
    const char* devices;  // the "devices" member(s)
    const char* want;     // host_manifest_json(...)["devices"].dump(), or the error
  } cases[] = {
      {R"("devices": {"/dev/kfd": {"mode": "0600", "x": {"type": 5}}, "/dev/dri/card1": {"gid": 39}, "/dev/kfd": {"uid": -0, "open": "ok"}})",
       R"({"/dev/dri/card1":{"gid":39,"type":"char"},"/dev/kfd":{"open":"ok","type":"char","uid":0}})"},
      {R"("devices": {"/dev/kfd": {"mode": 4095, "type": "dir", "open": "EACCES", "type": "block", "gid": 1, "gid": null}})",
       R"({"/dev/kfd":{"mode":"7777","open":"EACCES","type":"block"}})"},
      {R"("devices": 5, "devices": {"/dev/kfd": {"mode": -0}})", R"({"/dev/kfd":{"mode":"0000","type":"char"}})"},
      {R"("devices": {"/dev/kfd": {}}, "devices": {})", "{}"},
      {R"("devices": {"/dev/kfd": {}}, "devices": 5)", "amdml-host.json: devices must be an object"},
      {R"("devices": {"/dev/kfd": {}}, "devices": null)", "no devices"},
      {R"("devices": {"/dev/kfd": [{"type": "char"}]})", "amdml-host.json: devices./dev/kfd must be an object"},
      {R"("devices": {"/dev/kfd": {"type": ["char"]}})", "amdml-host.json: devices./dev/kfd.type must be a string"},
      {R"("devices": {"/dev/kfd": {"mode": 4096}})", "amdml-host.json: devices./dev/kfd.mode must be octal like \"0660\""},
      {R"("devices": {"/dev/kfd": {"uid": 1.0}})", "amdml-host.json: devices./dev/kfd.uid must be a non-negative integer"},
      {R"("devices": {"/dev/b": {"gid": -1}, "/dev/a": {"open": 1}})", "amdml-host.json: devices./dev/a.open must be a string"},
  };
  auto read = [](const std::string& text) -> std::string {
    auto m = formats::parse_host_manifest(text);
    if (!m) return m.error().message;
    if (!m->devices) return "no devices";
    return formats::host_manifest_json(*m)["devices"].dump();
  };
  for (const auto& c : cases) {
    const std::string plain = std::string("{") + c.devices + "}";
    const std::string other = std::string(R"({"note": "caf\u00e9", )") + c.devices + "}";  // \u: not plain JSON
    EXPECT_EQ(read(plain), c.want) << plain;
    EXPECT_EQ(read(other), c.want) << other;
  }
}

// Every fixture manifest reads, and what the writer makes of it reads back the same.
TEST(HostManifest, FixtureManifestsRewriteToThemselves) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(AMDML_SOURCE_DIR "/tests/fixtures")) {
    auto path = e.path() / "amdml-host.json";
    if (!std::filesystem::exists(path) || e.path().filename() == "bad-manifest") continue;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto m = formats::parse_host_manifest(text.str());
    ASSERT_TRUE(m.ok()) << path << ": " << m.error().message;
    const json once = formats::host_manifest_json(*m);
    auto again = formats::parse_host_manifest(once.dump());
    ASSERT_TRUE(again.ok()) << path;
    EXPECT_EQ(formats::host_manifest_json(*again), once) << path;
    ++n;
  }
  EXPECT_GE(n, 10);
}

// "E<number>" names an errno amdml has no name for; "E0" is no errno, so a device whose
// open "failed" with it reads as refused (EACCES), never as a failure without an error.
TEST(HostManifest, ErrnoZeroIsNoError) {
  EXPECT_EQ(errno_from_name("E0"), std::nullopt);
  EXPECT_EQ(errno_from_name("E00"), std::nullopt);
  EXPECT_EQ(errno_from_name("E4095"), 4095);
  auto m = formats::parse_host_manifest(R"({"devices": {"/dev/kfd": {"open": "E0"}}})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m->devices)[0].open, OpenCheck::failed);
  EXPECT_EQ((*m->devices)[0].open_errno, EACCES);
}
