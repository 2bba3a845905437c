// The issue-2 rules (gpu.none, driver.not-loaded, kfd.missing, access.kfd,
// access.relogin, rocm.missing, container.devices, container.gid) with literal facts:
// each fires on the state it names and stays quiet on a well-configured box.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "formats/fix_params_json.hpp"
#include "rules/rules.hpp"
#include "support/findings.hpp"

namespace amdml {
namespace {

using test::find_finding;
constexpr std::uint32_t kRender = 992;

// A well-configured desktop: one RDNA3 dGPU on amdgpu, /dev/kfd and renderD128 owned
// by render 0660, user alice in render per /etc/group and in this session, ROCm 6.2.4.
Facts good_box() {
  Facts f;
  f.os.id = "ubuntu";
  f.os.version_id = "24.04";
  f.driver.amdgpu_loaded = true;
  f.driver.initstate = "live";
  f.kfd.present = true;
  PciGpu p;
  p.slot = "0000:23:00.0";
  p.vendor = 0x1002;
  p.device = 0x744c;
  p.class_code = 0x030000;
  p.driver = "amdgpu";
  f.pci.push_back(p);
  Gpu g;
  g.kfd_node = 1;
  g.gfx = GfxTarget::parse_name("gfx1100");
  g.vendor_id = 0x1002;
  g.device_id = 0x744c;
  g.pci_slot = "0000:23:00.0";
  g.driver = "amdgpu";
  g.render_node = "/dev/dri/renderD128";
  f.gpus.push_back(g);
  auto& id = f.identity;
  id.user = "alice";
  id.user_uid = 1000;
  id.user_gid = 1000;
  id.process.user = "alice";
  id.process.uid = 1000;
  id.process.gid = 1000;
  id.process.euid = 1000;
  id.process.groups = std::vector<std::uint32_t>{1000, 27, 44, kRender};
  id.groups = {{"video", 44, {"alice"}}, {"render", kRender, {"alice"}}, {"alice", 1000, {}}};
  id.user_groups_etc = {44, 1000, kRender};
  id.devices_known = true;
  for (const char* path : {"/dev/kfd", "/dev/dri/renderD128"}) {
    DeviceAccess a;
    a.path = path;
    a.exists = true;
    a.mode = 0660;
    a.gid = kRender;
    a.group = "render";
    a.in_etc_group = true;
    a.in_session = true;
    id.devices.push_back(a);
  }
  f.rocm.source = RocmSource::opt_rocm;
  f.rocm.path = "/opt/rocm";
  f.rocm.version = Version::parse("6.2.4");
  return f;
}

std::vector<Finding> run(const Facts& f) {
  static const Knowledge kb;
  return diagnose(f, kb);
}

std::string ids(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += std::string(to_string(f.id)) + " ";
  return s;
}

// The issue-2 ids only: later rules (knowledge, runtime, ML) may add their own notes.
std::vector<Finding> basic(const std::vector<Finding>& fs) {
  static const char* kIds[] = {"gpu.none", "driver.not-loaded", "kfd.missing", "access.kfd", "access.relogin",
                               "rocm.missing", "container.devices", "container.gid"};
  std::vector<Finding> out;
  for (const auto& f : fs)
    if (std::find(std::begin(kIds), std::end(kIds), to_string(f.id)) != std::end(kIds)) out.push_back(f);
  return out;
}

TEST(RulesBasic, WellConfiguredBoxHasNoFindings) {
  auto fs = basic(run(good_box()));
  EXPECT_TRUE(fs.empty()) << ids(fs);
}

TEST(RulesBasic, GpuNoneWhenNoLayerSeesAGpu) {
  Facts f = good_box();
  f.gpus.clear();
  f.pci.clear();
  f.kfd.present = false;
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "gpu.none");
  ASSERT_TRUE(fd) << ids(fs);
  EXPECT_EQ(fd->severity, Severity::error);
  EXPECT_FALSE(fd->commands.empty());
  // Nothing else piles on: no GPU means no driver, KFD, access or ROCm findings.
  EXPECT_EQ(basic(fs).size(), 1u) << ids(fs);
}

TEST(RulesBasic, GpuNoneOnWslSaysSo) {
  Facts f = good_box();
  f.gpus.clear();
  f.os.wsl = true;
  auto all = run(f);
  const Finding* fd = find_finding(all, "gpu.none");
  ASSERT_TRUE(fd);
  EXPECT_NE(fd->detail.find("WSL"), std::string::npos);
}

// A PCI value amdml could not read may be the GPU: the finding says what it could not
// read instead of claiming there is no device with vendor 0x1002.
TEST(RulesBasic, GpuNoneNamesUnreadablePciValues) {
  Facts f = good_box();
  f.gpus.clear();
  f.pci.clear();
  f.kfd.present = false;
  f.error("pci", "/sys/bus/pci/devices/0000:03:00.0/vendor", "NUL bytes inside the value");
  const Finding* fd = nullptr;
  auto fs = run(f);
  fd = find_finding(fs, "gpu.none");
  ASSERT_TRUE(fd) << ids(fs);
  EXPECT_NE(fd->title.find("could read"), std::string::npos) << fd->title;
  bool named = false, claims_none = false;
  for (const auto& e : fd->evidence) {
    named |= e.source == "/sys/bus/pci/devices/0000:03:00.0/vendor" && e.value.find("unreadable") != std::string::npos;
    claims_none |= e.value.find("no device with vendor 0x1002") != std::string::npos;
  }
  EXPECT_TRUE(named);
  EXPECT_FALSE(claims_none);
}

// A card on the old radeon driver gets no "modprobe amdgpu" advice: amdgpu would not
// bring ROCm to it (gfx.unsupported, from the knowledge rules, points it to Vulkan).
TEST(RulesBasic, RadeonBoundGpuIsNotDriverNotLoaded) {
  Facts f = good_box();
  f.driver = DriverFacts{};  // amdgpu absent
  f.kfd = KfdFacts{};
  Gpu g;
  g.vendor_id = 0x1002;
  g.device_id = 0x6818;
  g.pci_slot = "0000:01:00.0";
  g.driver = "radeon";
  f.gpus = {g};
  f.identity.devices[0].exists = false;
  f.rocm.source = RocmSource::none;
  auto fs = run(f);
  EXPECT_FALSE(find_finding(fs, "driver.not-loaded")) << ids(fs);
  EXPECT_FALSE(find_finding(fs, "kfd.missing")) << ids(fs);
  EXPECT_FALSE(find_finding(fs, "rocm.missing")) << ids(fs);
}

TEST(RulesBasic, GpuNoneAbsentWhenAGpuExists) { EXPECT_FALSE(find_finding(run(good_box()), "gpu.none")); }

TEST(RulesBasic, DriverNotLoadedWhenGpuIsOnPciOnly) {
  Facts f = good_box();
  f.driver = DriverFacts{};  // amdgpu absent
  f.kfd = KfdFacts{};
  f.pci[0].driver.reset();
  Gpu g;
  g.vendor_id = 0x1002;
  g.device_id = 0x744c;
  g.pci_slot = "0000:23:00.0";
  f.gpus = {g};
  f.identity.devices[0].exists = false;
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "driver.not-loaded");
  ASSERT_TRUE(fd) << ids(fs);
  EXPECT_EQ(fd->severity, Severity::error);
  EXPECT_EQ(fd->gpus, std::vector<int>{0});
  EXPECT_TRUE(std::any_of(fd->commands.begin(), fd->commands.end(),
                          [](const std::string& c) { return c.find("modprobe amdgpu") != std::string::npos; }));
  // kfd.missing would only repeat it: the driver is the cause.
  EXPECT_FALSE(find_finding(fs, "kfd.missing")) << ids(fs);
}

TEST(RulesBasic, DriverNotLoadedNotesVfioPassthrough) {
  Facts f = good_box();
  Gpu g;
  g.device_id = 0x73bf;
  g.pci_slot = "0000:0a:00.0";
  g.driver = "vfio-pci";
  f.gpus.push_back(g);
  auto all = run(f);
  const Finding* fd = find_finding(all, "driver.not-loaded");
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->gpus, std::vector<int>{1});
  EXPECT_TRUE(std::any_of(fd->notes.begin(), fd->notes.end(),
                          [](const std::string& n) { return n.find("vfio-pci") != std::string::npos; }));
}

TEST(RulesBasic, DriverNotLoadedWhenInitstateIsNotLive) {
  Facts f = good_box();
  f.driver.initstate = "coming";
  auto all = run(f);
  const Finding* fd = find_finding(all, "driver.not-loaded");
  ASSERT_TRUE(fd);
  ASSERT_FALSE(fd->evidence.empty());
  EXPECT_EQ(fd->evidence[0].value, "coming");
}

TEST(RulesBasic, DriverLoadedAndLiveIsQuiet) { EXPECT_FALSE(find_finding(run(good_box()), "driver.not-loaded")); }

TEST(RulesBasic, KfdMissingWhenDriverUpButNoDevKfd) {
  Facts f = good_box();
  f.identity.devices[0].exists = false;
  f.kfd.present = false;
  f.gpus[0].kfd_node.reset();
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "kfd.missing");
  ASSERT_TRUE(fd) << ids(fs);
  EXPECT_EQ(fd->severity, Severity::error);
  EXPECT_FALSE(find_finding(fs, "driver.not-loaded")) << ids(fs);
}

TEST(RulesBasic, KfdMissingIsContainerDevicesInsideAContainer) {
  Facts f = good_box();
  f.container.kind = ContainerKind::docker;
  f.identity.devices[0].exists = false;
  auto fs = run(f);
  EXPECT_FALSE(find_finding(fs, "kfd.missing")) << ids(fs);
  EXPECT_TRUE(find_finding(fs, "container.devices")) << ids(fs);
}

TEST(RulesBasic, AccessKfdWhenUserIsNotInTheGroup) {
  Facts f = good_box();
  f.identity.user_groups_etc = {44, 1000};
  f.identity.process.groups = std::vector<std::uint32_t>{1000, 44};
  for (auto& d : f.identity.devices) d.in_etc_group = d.in_session = false;
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "access.kfd");
  ASSERT_TRUE(fd) << ids(fs);
  EXPECT_EQ(fd->severity, Severity::error);
  ASSERT_TRUE(fd->fix);
  EXPECT_EQ(fd->fix->recipe, "groups");
  EXPECT_EQ(amdml::formats::fix_params_json(fd->fix->params)["user"], "alice");
  EXPECT_EQ(amdml::formats::fix_params_json(fd->fix->params)["groups"], nlohmann::json::array({"render"}));
  EXPECT_FALSE(find_finding(fs, "access.relogin")) << ids(fs);
}

TEST(RulesBasic, AccessKfdNamesEveryOwningGroup) {
  Facts f = good_box();
  // Proxmox LXC-style: render nodes owned by video, /dev/kfd by render.
  f.identity.devices[1].gid = 44;
  f.identity.devices[1].group = "video";
  for (auto& d : f.identity.devices) d.in_etc_group = d.in_session = false;
  auto all = run(f);
  const Finding* fd = find_finding(all, "access.kfd");
  ASSERT_TRUE(fd);
  EXPECT_EQ(amdml::formats::fix_params_json(fd->fix->params)["groups"], nlohmann::json::array({"render", "video"}));
}

TEST(RulesBasic, AccessQuietWhenNodesAreWorldReadable) {
  Facts f = good_box();
  for (auto& d : f.identity.devices) {
    d.mode = 0666;
    d.world_accessible = true;
    d.in_etc_group = d.in_session = false;
  }
  auto fs = run(f);
  EXPECT_FALSE(find_finding(fs, "access.kfd")) << ids(fs);
  EXPECT_FALSE(find_finding(fs, "access.relogin")) << ids(fs);
}

TEST(RulesBasic, AccessQuietForRoot) {
  Facts f = good_box();
  f.identity.root = true;
  f.identity.user = "root";
  for (auto& d : f.identity.devices) d.in_etc_group = d.in_session = false;
  EXPECT_FALSE(find_finding(run(f), "access.kfd"));
}

TEST(RulesBasic, AccessQuietWhenTheNodeOpens) {
  Facts f = good_box();
  for (auto& d : f.identity.devices) {
    d.in_etc_group = d.in_session = false;
    d.open = OpenCheck::ok;  // e.g. a uaccess ACL for the seat user
  }
  EXPECT_FALSE(find_finding(run(f), "access.kfd"));
}

TEST(RulesBasic, AccessQuietWithoutAnAmdGpu) {
  Facts f = good_box();
  f.gpus.clear();
  // Another vendor's render node the user cannot open is not amdml's business.
  for (auto& d : f.identity.devices) d.in_etc_group = d.in_session = false;
  auto fs = run(f);
  EXPECT_FALSE(find_finding(fs, "access.kfd")) << ids(fs);
}

TEST(RulesBasic, AccessReloginWhenOnlyEtcGroupHasIt) {
  Facts f = good_box();
  f.identity.process.groups = std::vector<std::uint32_t>{1000, 44};
  for (auto& d : f.identity.devices) d.in_session = false;
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "access.relogin");
  ASSERT_TRUE(fd) << ids(fs);
  // A pending state (configured; takes effect after a new login): info, and no recipe.
  EXPECT_EQ(fd->severity, Severity::info);
  EXPECT_FALSE(fd->fix);
  EXPECT_FALSE(find_finding(fs, "access.kfd")) << ids(fs);
  EXPECT_TRUE(std::any_of(fd->commands.begin(), fd->commands.end(),
                          [](const std::string& c) { return c.find("newgrp render") != std::string::npos; }));
}

TEST(RulesBasic, AccessReloginQuietWhenSessionUnknown) {
  Facts f = good_box();
  for (auto& d : f.identity.devices) d.in_session.reset();  // e.g. behind sudo
  auto fs = run(f);
  EXPECT_FALSE(find_finding(fs, "access.relogin")) << ids(fs);
  EXPECT_FALSE(find_finding(fs, "access.kfd")) << ids(fs);
}

TEST(RulesBasic, RocmMissingIsAWarning) {
  Facts f = good_box();
  f.rocm = RocmFacts{};
  auto all = run(f);
  const Finding* fd = find_finding(all, "rocm.missing");
  ASSERT_TRUE(fd);
  EXPECT_EQ(fd->severity, Severity::warning);
  EXPECT_FALSE(fd->commands.empty());
}

TEST(RulesBasic, RocmMissingQuietWithDistroRocmOrNoGpu) {
  Facts f = good_box();
  f.rocm = RocmFacts{};
  f.rocm.source = RocmSource::distro;
  EXPECT_FALSE(find_finding(run(f), "rocm.missing"));
  Facts g = good_box();
  g.rocm = RocmFacts{};
  g.gpus.clear();
  EXPECT_FALSE(find_finding(run(g), "rocm.missing"));
}

TEST(RulesBasic, ContainerDevicesWhenKfdOrRenderNodesAreMissing) {
  Facts f = good_box();
  f.container.kind = ContainerKind::docker;
  f.identity.devices.clear();
  DeviceAccess kfd;
  kfd.path = "/dev/kfd";
  f.identity.devices.push_back(kfd);
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "container.devices");
  ASSERT_TRUE(fd) << ids(fs);
  EXPECT_EQ(fd->severity, Severity::error);
  ASSERT_FALSE(fd->commands.empty());
  EXPECT_NE(fd->commands[0].find("--device=/dev/kfd"), std::string::npos);
  EXPECT_FALSE(find_finding(fs, "access.kfd")) << ids(fs);
}

TEST(RulesBasic, ContainerDevicesQuietWhenPassedInOrUnknown) {
  Facts f = good_box();
  f.container.kind = ContainerKind::docker;
  EXPECT_FALSE(find_finding(run(f), "container.devices"));
  Facts g = good_box();
  g.container.kind = ContainerKind::docker;
  g.identity.devices_known = false;
  g.identity.devices.clear();
  EXPECT_FALSE(find_finding(run(g), "container.devices"));
}

TEST(RulesBasic, ContainerGidWhenProcessLacksTheNumericGid) {
  Facts f = good_box();
  f.container.kind = ContainerKind::docker;
  f.identity.process.groups = std::vector<std::uint32_t>{1000, 44};
  auto fs = run(f);
  const Finding* fd = find_finding(fs, "container.gid");
  ASSERT_TRUE(fd) << ids(fs);
  ASSERT_FALSE(fd->commands.empty());
  EXPECT_NE(fd->commands[0].find("--group-add 992"), std::string::npos);
}

TEST(RulesBasic, ContainerGidQuietForRootOrMatchingGid) {
  Facts f = good_box();
  f.container.kind = ContainerKind::docker;
  EXPECT_FALSE(find_finding(run(f), "container.gid"));  // session has 992
  Facts r = good_box();
  r.container.kind = ContainerKind::docker;
  r.identity.process.euid = 0;
  r.identity.process.groups = std::vector<std::uint32_t>{0};
  EXPECT_FALSE(find_finding(run(r), "container.gid"));
}

TEST(RulesBasic, FindingsComeErrorsFirst) {
  Facts f = good_box();
  f.rocm = RocmFacts{};
  for (auto& d : f.identity.devices) d.in_etc_group = d.in_session = false;
  auto fs = basic(run(f));
  ASSERT_EQ(fs.size(), 2u) << ids(fs);
  EXPECT_EQ(fs[0].id, FindingId::access_kfd);
  EXPECT_EQ(fs[1].id, FindingId::rocm_missing);
}

TEST(RulesBasic, EveryIssue2IdIsCataloguedAndDocumented) {
  for (const char* id : {"gpu.none", "driver.not-loaded", "kfd.missing", "access.kfd", "access.relogin",
                         "rocm.missing", "container.devices", "container.gid"}) {
    const FindingSpec* spec = find_finding_spec(id);
    ASSERT_TRUE(spec) << id;
    const std::string name = id;
    EXPECT_EQ(spec->severity, name == "rocm.missing"      ? Severity::warning
                              : name == "access.relogin" ? Severity::info  // a pending state
                                                         : Severity::error)
        << id;
    auto page = std::filesystem::path(AMDML_SOURCE_DIR) / "docs" / "findings" / (std::string(id) + ".md");
    EXPECT_TRUE(std::filesystem::exists(page)) << page;
  }
}

}  // namespace
}  // namespace amdml
