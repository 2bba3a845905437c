// The sysfs and file probes against the committed fixture machines (real values, real
// sysfs layout) and against small trees made for one case each.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "probes/collect.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "support/tree.hpp"
#include "support/forwarding_host.hpp"
#include "support/knowledge.hpp"

using amdml::test::shipped_knowledge;

namespace amdml {
namespace {

using test::TestTree;

Facts probe_root(const std::string& root) {
  auto h = platform::make_host(root);
  EXPECT_TRUE(h) << root << ": " << (h ? "" : h.error().message);
  if (!h) return {};
  probes::ProbeOptions o;
  o.runtime = false;
  return probes::collect_facts(**h, shipped_knowledge(), o);
}

Facts fixture(const std::string& machine) { return probe_root(test::fixture(machine)); }

std::string errors_text(const Facts& f) {
  std::string s;
  for (const auto& e : f.errors) s += e.probe + " " + e.path + ": " + e.message + "\n";
  return s;
}

bool has_error(const Facts& f, const std::string& path_part, const std::string& message_part) {
  return std::any_of(f.errors.begin(), f.errors.end(), [&](const ProbeError& e) {
    return e.path.find(path_part) != std::string::npos && e.message.find(message_part) != std::string::npos;
  });
}

TEST(ProbesOnFixtures, Rdna2DesktopEveryLayer) {
  Facts f = fixture("rdna2-dgpu");
  EXPECT_TRUE(f.errors.empty()) << errors_text(f);
  EXPECT_EQ(f.os.id, "ubuntu");
  EXPECT_EQ(f.os.version_id, "22.04");
  EXPECT_EQ(f.os.pretty_name, "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(f.os.kernel_release, "6.5.0-35-generic");
  ASSERT_TRUE(f.os.kernel);
  EXPECT_EQ(f.os.kernel->str(), "6.5.0");
  EXPECT_FALSE(f.os.wsl);
  EXPECT_EQ(f.memory.total, Bytes{32780964ULL * 1024});
  ASSERT_EQ(f.pci.size(), 1u);
  EXPECT_EQ(f.pci[0].slot, "0000:03:00.0");
  EXPECT_EQ(f.pci[0].device, 0x73bf);
  EXPECT_EQ(f.pci[0].revision, 0xc1);
  EXPECT_EQ(f.pci[0].driver, "amdgpu");
  EXPECT_TRUE(f.driver.amdgpu_loaded);
  EXPECT_EQ(f.driver.initstate, "live");
  EXPECT_FALSE(f.driver.dkms_version);
  EXPECT_EQ(f.driver.ttm_in_use, TtmModule::ttm);
  EXPECT_TRUE(f.driver.ttm.holds_amdgpu);
  EXPECT_EQ(f.driver.ttm.pages_limit, Pages{32780964ULL / 8});
  EXPECT_FALSE(f.driver.amdttm.loaded);
  EXPECT_EQ(f.driver.gttsize_param_mib, -1);
  ASSERT_TRUE(f.kfd.present);
  ASSERT_EQ(f.kfd.nodes.size(), 2u);
  EXPECT_TRUE(f.kfd.nodes[0].cpu);
  const KfdNode& n = f.kfd.nodes[1];
  EXPECT_FALSE(n.cpu);
  ASSERT_TRUE(n.gfx);
  EXPECT_EQ(n.gfx->name(), "gfx1030");
  EXPECT_EQ(n.compute_units, 72u);
  EXPECT_EQ(n.drm_render_minor, 128u);
  EXPECT_EQ(n.pci_slot(), "0000:03:00.0");
  EXPECT_EQ(n.name, "sienna_cichlid");
  EXPECT_EQ(n.memory, Bytes{17163091968ULL});
  ASSERT_EQ(f.drm.cards.size(), 1u);
  EXPECT_EQ(f.drm.cards[0].card, "card0");
  EXPECT_EQ(f.drm.cards[0].pci_slot, "0000:03:00.0");
  EXPECT_EQ(f.drm.cards[0].render_node, "/dev/dri/renderD128");
  EXPECT_EQ(f.drm.cards[0].vis_vram_total, Bytes{268435456});
  ASSERT_EQ(f.gpus.size(), 1u);
  const Gpu& g = f.gpus[0];
  EXPECT_EQ(g.kfd_node, 1);
  EXPECT_EQ(g.pci_id(), "1002:73bf");
  EXPECT_EQ(g.card, "card0");
  EXPECT_EQ(g.vram, Bytes{17163091968ULL});
  EXPECT_EQ(g.unique_id, "7b2f40e1c4a83f1d");
  EXPECT_EQ(f.identity.user, "maria");
  ASSERT_EQ(f.identity.devices.size(), 2u);
  for (const auto& d : f.identity.devices) {
    EXPECT_TRUE(d.exists) << d.path;
    EXPECT_EQ(d.group, "render") << d.path;
    EXPECT_EQ(d.in_etc_group, true) << d.path;
    EXPECT_EQ(d.in_session, true) << d.path;
    EXPECT_FALSE(d.world_accessible) << d.path;
  }
  EXPECT_EQ(f.rocm.source, RocmSource::opt_rocm);
  EXPECT_EQ(f.rocm.path, "/opt/rocm");
  EXPECT_EQ(f.rocm.resolved_path, "/opt/rocm-6.2.4");
  EXPECT_EQ(f.rocm.version_text, "6.2.4-120");
  ASSERT_TRUE(f.rocm.version);
  EXPECT_EQ(f.rocm.version->str(), "6.2.4");
  EXPECT_EQ(f.rocm.hsa_library, "/opt/rocm/lib/libhsa-runtime64.so.1");
  EXPECT_EQ(f.rocm.installed, std::vector<std::string>{"/opt/rocm-6.2.4"});
}

TEST(ProbesOnFixtures, InstinctTwoCpuNodesFourGpusDkmsAmdttm) {
  Facts f = fixture("instinct-4gpu");
  EXPECT_TRUE(f.errors.empty()) << errors_text(f);
  EXPECT_EQ(f.kfd.cpu_nodes(), 2);
  ASSERT_EQ(f.kfd.nodes.size(), 6u);
  // MI300X is a processing accelerator (class 0x12): still on the PCI list; the
  // ASPEED BMC VGA (card0) is not AMD and stays out.
  ASSERT_EQ(f.pci.size(), 4u);
  EXPECT_EQ(f.pci[0].class_code, 0x120000u);
  ASSERT_EQ(f.drm.cards.size(), 4u);
  EXPECT_EQ(f.drm.cards[0].card, "card1");
  EXPECT_EQ(f.driver.dkms_version, "6.10.5");
  EXPECT_EQ(f.driver.ttm_in_use, TtmModule::amdttm);
  EXPECT_FALSE(f.driver.ttm.loaded);
  EXPECT_TRUE(f.driver.amdttm.holds_amdgpu);
  EXPECT_EQ(f.rocm.source, RocmSource::rocm_path);
  EXPECT_EQ(f.rocm.path, "/opt/rocm-6.3.1");
  ASSERT_EQ(f.gpus.size(), 4u);
  const char* slots[] = {"0000:05:00.0", "0000:26:00.0", "0000:85:00.0", "0000:a5:00.0"};
  for (int i = 0; i < 4; ++i) {
    const Gpu& g = f.gpus[static_cast<std::size_t>(i)];
    EXPECT_EQ(g.kfd_node, i + 2);
    EXPECT_EQ(g.gfx->name(), "gfx942");
    EXPECT_EQ(g.compute_units, 304u);
    EXPECT_EQ(g.pci_slot, slots[i]);
    EXPECT_EQ(g.card, "card" + std::to_string(i + 1));
    EXPECT_EQ(g.render_node, "/dev/dri/renderD" + std::to_string(128 + i));
    EXPECT_EQ(g.marketing_name, "AMD Instinct MI300X OAM");
    EXPECT_EQ(g.kfd_memory, Bytes{205822885888ULL});
    EXPECT_EQ(g.wave_size, 64u);
  }
  EXPECT_EQ(f.identity.devices.size(), 5u);  // /dev/kfd + 4 render nodes
}

TEST(ProbesOnFixtures, MixedLaptopJoinsByRenderMinorNotByOrder) {
  Facts f = fixture("mixed-dgpu-igpu");
  EXPECT_TRUE(f.errors.empty()) << errors_text(f);
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].kfd_node, 1);
  EXPECT_EQ(f.gpus[0].gfx->name(), "gfx1102");
  EXPECT_EQ(f.gpus[0].card, "card1");
  EXPECT_EQ(f.gpus[0].render_node, "/dev/dri/renderD129");
  EXPECT_EQ(f.gpus[0].vram, Bytes{8573157376ULL});
  EXPECT_EQ(f.gpus[1].kfd_node, 2);
  EXPECT_EQ(f.gpus[1].gfx->name(), "gfx1103");
  EXPECT_EQ(f.gpus[1].card, "card0");
  EXPECT_EQ(f.gpus[1].render_node, "/dev/dri/renderD128");
  EXPECT_EQ(f.gpus[1].vram, Bytes{536870912});
  EXPECT_EQ(f.rocm.source, RocmSource::distro);
  EXPECT_EQ(f.rocm.hsa_library, "/usr/lib64/libhsa-runtime64.so.1");
  EXPECT_FALSE(f.rocm.version);  // an RPM install: amdml does not invent a version
  EXPECT_EQ(f.env.at("HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
}

TEST(ProbesOnFixtures, StrixHaloDisplayClassAndCommandLineOptions) {
  Facts f = fixture("strix-halo");
  EXPECT_TRUE(f.errors.empty()) << errors_text(f);
  ASSERT_EQ(f.pci.size(), 1u);
  EXPECT_EQ(f.pci[0].class_code, 0x038000u);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].gfx->name(), "gfx1151");
  EXPECT_EQ(f.gpus[0].gtt, Bytes{134217728000ULL});
  EXPECT_EQ(f.gpus[0].vram, Bytes{536870912});
  EXPECT_EQ(f.driver.gttsize_cmdline_mib, 128000);
  EXPECT_EQ(f.driver.gttsize_param_mib, 128000);
  EXPECT_EQ(f.driver.cmdline_options.at("amdttm.pages_limit"), "32768000");
  EXPECT_EQ(f.driver.ttm_in_use, TtmModule::ttm);
  EXPECT_FALSE(f.driver.amdttm.loaded);
  EXPECT_EQ(f.os.id, "debian");
  EXPECT_EQ(f.rocm.version->str(), "7.0.2");
}

TEST(ProbesOnFixtures, NoAmdGpuIgnoresOtherVendors) {
  Facts f = fixture("no-amd-gpu");
  EXPECT_TRUE(f.errors.empty()) << errors_text(f);
  EXPECT_TRUE(f.pci.empty());
  EXPECT_TRUE(f.drm.cards.empty());
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_FALSE(f.kfd.present);
  EXPECT_FALSE(f.driver.amdgpu_loaded);
  EXPECT_EQ(f.driver.ttm_in_use, TtmModule::none);
  EXPECT_EQ(f.rocm.source, RocmSource::none);
}

TEST(ProbesOnFixtures, ContainerWithoutDevices) {
  Facts f = fixture("container-no-devices");
  EXPECT_EQ(f.container.kind, ContainerKind::docker);
  EXPECT_TRUE(f.container.sys_kfd_visible);
  EXPECT_TRUE(f.identity.devices_known);
  EXPECT_TRUE(f.identity.root);
  ASSERT_FALSE(f.identity.devices.empty());
  EXPECT_EQ(f.identity.devices[0].path, "/dev/kfd");
  EXPECT_FALSE(f.identity.devices[0].exists);
  EXPECT_EQ(f.gpus.size(), 1u);  // the host's sysfs is visible inside
}

TEST(ProbesOnFixtures, GroupMembershipBySessionAndEtcGroup) {
  Facts relogin = fixture("user-must-relogin");
  ASSERT_FALSE(relogin.identity.devices.empty());
  EXPECT_EQ(relogin.identity.devices[0].in_etc_group, true);
  EXPECT_EQ(relogin.identity.devices[0].in_session, false);
  Facts missing = fixture("user-not-in-render");
  ASSERT_FALSE(missing.identity.devices.empty());
  EXPECT_EQ(missing.identity.devices[0].in_etc_group, false);
  EXPECT_EQ(missing.identity.devices[0].in_session, false);
  EXPECT_EQ(missing.identity.devices[0].group, "render");
  Facts world = fixture("rdna3-dgpu");
  ASSERT_FALSE(world.identity.devices.empty());
  EXPECT_TRUE(world.identity.devices[0].world_accessible);
}

// New login sessions get the login files' GPU settings: /etc's and the report's user's
// own environment.d (environment.d(5), read by the systemd user manager after /etc's).
TEST(ProbesOnFixtures, LoginEnvironmentIncludesTheUsersEnvironmentD) {
  TestTree t("mixed-rdna3-rdna2-global-override");
  const Facts before = probe_root(t.str());
  const std::string user = before.identity.user;
  std::string home;
  for (const auto& p : before.identity.passwd)
    if (p.name == user) home = p.home;
  ASSERT_FALSE(home.empty()) << user;
  t.write(home.substr(1) + "/.config/environment.d/50-gpu.conf", "# mine\nHSA_OVERRIDE_GFX_VERSION=10.3.0\n");
  const Facts f = probe_root(t.str());
  ASSERT_FALSE(f.login_env.empty());
  const LoginEnv& e = f.login_env.back();
  EXPECT_EQ(e.name, "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_EQ(e.value, "10.3.0");
  EXPECT_EQ(e.where, home + "/.config/environment.d/50-gpu.conf:2");
}

TEST(ProbesOnFixtures, DamagedSysfsValuesBecomeErrorsNotValues) {
  Facts f = fixture("bad-sysfs-values");
  EXPECT_TRUE(has_error(f, "nodes/1/properties", "truncated")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "nodes/1/gpu_id", "not a decimal number")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "mem_banks/0/properties", "size_in_bytes")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "mem_info_vram_total", "16368M")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "mem_info_gtt_total", "not a decimal number")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "device/revision", "not a hex number")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "ttm/parameters/pages_limit", "4097620x")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "amdgpu/parameters/gttsize", "auto")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "/proc/meminfo", "truncated")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "/etc/os-release", "No such file")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "/.info/version", "no X.Y.Z")) << errors_text(f);
  // Unknown stays unknown; the GPU is still one GPU, joined by PCI slot.
  EXPECT_FALSE(f.memory.total);
  EXPECT_FALSE(f.os.id);
  EXPECT_FALSE(f.driver.ttm.pages_limit);
  EXPECT_FALSE(f.rocm.version);
  ASSERT_EQ(f.gpus.size(), 1u);
  const Gpu& g = f.gpus[0];
  EXPECT_EQ(g.kfd_node, 1);
  EXPECT_EQ(g.gfx->name(), "gfx1030");
  EXPECT_EQ(g.card, "card0");
  EXPECT_EQ(g.render_node, "/dev/dri/renderD128");  // from DRM: KFD's minor was cut short
  EXPECT_FALSE(g.vram);
  EXPECT_FALSE(g.gtt);
  EXPECT_FALSE(g.kfd_memory);
  EXPECT_EQ(f.kfd.nodes[1].drm_render_minor, 0u);
  // The malformed /etc/group lines are skipped; the good ones still count.
  EXPECT_EQ(f.identity.devices[0].group, "render");
}

TEST(ProbesOnFixtures, DamagedSymlinksStayInsideTheRoot) {
  Facts f = fixture("bad-symlinks");
  EXPECT_TRUE(has_error(f, "/opt/rocm", "symbolic links")) << errors_text(f);
  EXPECT_TRUE(has_error(f, "0000:00:09.0", "symbolic links")) << errors_text(f);
  EXPECT_EQ(f.rocm.path, "/opt/rocm-6.2.4");        // the loop is skipped for the real install
  EXPECT_EQ(f.driver.dkms_version, "6.7.0");        // read inside the root, not the host's /etc
  EXPECT_EQ(f.os.id, "ubuntu");                     // os-release reached by climbing above /
  ASSERT_EQ(f.gpus.size(), 1u);                     // the dangling card1 is no GPU
  EXPECT_EQ(f.gpus[0].render_node, "/dev/dri/renderD128");  // from KFD; the DRM link dangles
  EXPECT_EQ(f.gpus[0].card, "card0");
}

// Small trees: one case each.

TEST(ProbesSmall, GpuOnPciWithoutDriverIsStillAGpu) {
  TestTree t;
  const std::string dev = "sys/devices/pci0000:00/0000:00:01.1/0000:0d:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.write(dev + "/device", "0x66af\n");
  t.write(dev + "/class", "0x030000\n");
  t.write(dev + "/revision", "0xc1\n");
  t.link("sys/bus/pci/devices/0000:0d:00.0", "../../../devices/pci0000:00/0000:00:01.1/0000:0d:00.0");
  t.manifest(R"({"format": 1})");
  Facts f = probe_root(t.root());
  ASSERT_EQ(f.pci.size(), 1u);
  EXPECT_FALSE(f.pci[0].driver);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_FALSE(f.gpus[0].kfd_node);
  EXPECT_EQ(f.gpus[0].pci_slot, "0000:0d:00.0");
  EXPECT_EQ(f.gpus[0].pci_id(), "1002:66af");
}

// One AMD GPU on PCI (no driver) with the given device, revision and vendor text.
static void pci_gpu(TestTree& t, const std::string& device, const std::string& revision,
                    const std::string& vendor = "0x1002\n") {
  const std::string dev = "sys/bus/pci/devices/0000:03:00.0";
  t.write(dev + "/vendor", vendor);
  t.write(dev + "/device", device);
  t.write(dev + "/class", "0x030000\n");
  if (!revision.empty()) t.write(dev + "/revision", revision);
  t.manifest(R"({"format": 1})");
}

TEST(ProbesSmall, NamesComeFromTheSystemsAmdgpuIdsByRevision) {
  const std::string ids = "1.0.0\n150E,\tC1,\tAMD Radeon 890M Graphics\n150E,\tC4,\tAMD Radeon 880M Graphics\n"
                          "6818,\t00,\tAMD Radeon HD 7800 Series\n";
  auto named = [&](const std::string& device, const std::string& rev, bool with_ids) {
    TestTree t;
    pci_gpu(t, device, rev);
    if (with_ids) t.write("usr/share/libdrm/amdgpu.ids", ids);
    Facts f = probe_root(t.root());
    EXPECT_EQ(f.gpus.size(), 1u);
    return f.gpus.empty() ? std::string("?") : f.gpus[0].marketing_name.value_or("(none)");
  };
  EXPECT_EQ(named("0x150e\n", "0xc4\n", true), "AMD Radeon 880M Graphics");   // the file, exact revision
  EXPECT_EQ(named("0x150e\n", "0xc4\n", false), "AMD Radeon 880M");           // built-in, exact revision
  EXPECT_EQ(named("0x150e\n", "0xd7\n", true), "AMD Radeon 880M/890M (Strix Point)");  // neither knows it: family
  EXPECT_EQ(named("0x150e\n", "", false), "AMD Radeon 880M/890M (Strix Point)");
  EXPECT_EQ(named("0x6818\n", "0x55\n", true), "AMD Radeon HD 7800 Series");  // the file's one name for the device
  EXPECT_EQ(named("0x7480\n", "", false), "AMD Radeon RX 7600 series (Navi 33)");
  EXPECT_EQ(named("0x7480\n", "0xc3\n", false), "AMD Radeon RX 7600S");
}

TEST(ProbesSmall, NulPaddedSysfsValuesAreReadUpToTheNul) {
  TestTree padded;
  pci_gpu(padded, "0x6818\n", "0x00\n", std::string("0x1002\n\0\0\0\0", 11));
  Facts f = probe_root(padded.root());
  ASSERT_EQ(f.gpus.size(), 1u) << errors_text(f);
  EXPECT_EQ(f.gpus[0].pci_id(), "1002:6818");
  EXPECT_EQ(f.gpus[0].gfx, GfxTarget::parse_name("gfx601"));
  // NUL bytes in the middle are not a value: an error naming the file, and no guess.
  TestTree inner;
  pci_gpu(inner, "0x6818\n", "0x00\n", std::string("0x10\0\x02", 6));
  f = probe_root(inner.root());
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_TRUE(has_error(f, "0000:03:00.0/vendor", "NUL")) << errors_text(f);
}

TEST(ProbesSmall, NonGpuAmdDevicesAreNotGpus) {
  TestTree t;
  // The HD audio function of a Radeon card: vendor 0x1002, class 0x0403.
  t.write("sys/bus/pci/devices/0000:03:00.1/vendor", "0x1002\n");
  t.write("sys/bus/pci/devices/0000:03:00.1/class", "0x040300\n");
  t.write("sys/bus/pci/devices/0000:03:00.1/device", "0xab28\n");
  Facts f = probe_root(t.root());
  EXPECT_TRUE(f.pci.empty());
  EXPECT_TRUE(f.gpus.empty());
}

TEST(ProbesSmall, KfdNodeOrderIsNumericAndCpuNodesAreSkipped) {
  TestTree t;
  const std::string topo = "sys/class/kfd/kfd/topology/nodes/";
  t.write(topo + "0/properties", "cpu_cores_count 8\nsimd_count 0\n");
  t.write(topo + "10/properties", "simd_count 8\nsimd_per_cu 2\ngfx_target_version 90010\nlocation_id 512\n");
  t.write(topo + "2/properties", "simd_count 8\nsimd_per_cu 2\ngfx_target_version 110003\nlocation_id 768\n");
  Facts f = probe_root(t.root());
  ASSERT_EQ(f.kfd.nodes.size(), 3u);
  EXPECT_EQ(f.kfd.nodes[1].index, 2);
  EXPECT_EQ(f.kfd.nodes[2].index, 10);
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].gfx->name(), "gfx1103");
  EXPECT_EQ(f.gpus[1].gfx->name(), "gfx90a");
  EXPECT_EQ(f.gpus[1].pci_slot, "0000:02:00.0");
  EXPECT_EQ(f.gpus[0].compute_units, 4u);
}

TEST(ProbesSmall, OldKernelWithoutLocationDoesNotInventHostBridgeSlot) {
  TestTree t;
  t.write("sys/class/kfd/kfd/topology/nodes/1/properties", "simd_count 40\nsimd_per_cu 2\n");
  Facts f = probe_root(t.root());
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_FALSE(f.gpus[0].pci_slot);
}

TEST(ProbesSmall, NodeWithoutJoinKeysJoinsTheOnlyCardInsteadOfDoublingTheGpu) {
  TestTree t;
  t.write("sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 8\nsimd_count 0\n");
  t.write("sys/class/kfd/kfd/topology/nodes/1/properties", "simd_count 80\nsimd_per_cu 2\ngfx_target_version 100300\n");
  const std::string dev = "sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0";
  t.write(dev + "/vendor", "0x1002\n");
  t.write(dev + "/device", "0x73bf\n");
  t.write(dev + "/mem_info_vram_total", "17163091968\n");
  t.link(dev + "/drm/card0/device", "../../../0000:03:00.0");
  t.link("sys/class/drm/card0", "../../devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card0");
  Facts f = probe_root(t.root());
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].kfd_node, 1);
  EXPECT_EQ(f.gpus[0].card, "card0");
  EXPECT_EQ(f.gpus[0].pci_slot, "0000:03:00.0");
  EXPECT_EQ(f.gpus[0].vram, Bytes{17163091968ULL});
}

TEST(ProbesSmall, EnvKeepsRelevantNamesAndDropsSecrets) {
  TestTree t;
  t.manifest(R"({"format": 1, "env": {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "ROCR_VISIBLE_DEVICES": "0",
                 "OLLAMA_API_KEY": "secret", "EDITOR": "vim", "PATH": "/usr/bin"}})");
  Facts f = probe_root(t.root());
  EXPECT_EQ(f.env.count("HSA_OVERRIDE_GFX_VERSION"), 1u);
  EXPECT_EQ(f.env.count("ROCR_VISIBLE_DEVICES"), 1u);
  EXPECT_EQ(f.env.count("PATH"), 1u);
  EXPECT_EQ(f.env.count("OLLAMA_API_KEY"), 0u);
  EXPECT_EQ(f.env.count("EDITOR"), 0u);
}

TEST(ProbesSmall, SudoReportsAboutTheInvokingUser) {
  TestTree t;
  t.write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n");
  t.write("etc/group", "render:x:992:alice\nalice:x:1000:\n");
  t.manifest(R"({"format": 1, "process": {"user": "root", "uid": 0, "gid": 0, "euid": 0, "groups": [0]},
                 "sudo_user": "alice",
                 "devices": {"/dev/kfd": {"mode": "0660", "uid": 0, "gid": 992}}})");
  Facts f = probe_root(t.root());
  EXPECT_EQ(f.identity.user, "alice");
  EXPECT_FALSE(f.identity.root);
  ASSERT_FALSE(f.identity.devices.empty());
  EXPECT_EQ(f.identity.devices[0].in_etc_group, true);
  EXPECT_FALSE(f.identity.devices[0].in_session);  // root's session says nothing about alice's
}

TEST(ProbesSmall, NewestInstalledRocmIsChosenByVersionNotName) {
  TestTree t;
  t.write("opt/rocm-6.9.0/.info/version", "6.9.0\n");
  t.write("opt/rocm-6.10.0/.info/version", "6.10.0-12\n");
  t.write("opt/rocm-tools/README", "not a ROCm install\n");
  Facts f = probe_root(t.root());
  EXPECT_EQ(f.rocm.path, "/opt/rocm-6.10.0");
  ASSERT_TRUE(f.rocm.version);
  EXPECT_EQ(f.rocm.version->str(), "6.10.0");
  EXPECT_EQ(f.rocm.installed.size(), 2u);
}

// rocm-install moves a release no package owns to /opt/amdml-set-aside-rocm-X.Y.Z: not a
// release any more. Whether dpkg's status was read is a fact of its own (an empty list
// of ROCm packages then means none, not "unknown").
TEST(ProbesSmall, ASetAsideReleaseIsNoReleaseAndDpkgStatusIsKnown) {
  TestTree t;
  t.write("opt/amdml-set-aside-rocm-6.2.4/.info/version", "6.2.4-120\n");
  t.write("opt/amdml-set-aside-rocm-6.2.4/lib/libhsa-runtime64.so.1", "");
  Facts f = probe_root(t.root());
  EXPECT_TRUE(f.rocm.installed.empty());
  EXPECT_EQ(f.rocm.source, RocmSource::none);
  EXPECT_FALSE(f.rocm.dpkg_status);
  t.write("opt/rocm-7.2.1/.info/version", "7.2.1-0\n");
  t.write("var/lib/dpkg/status", "Package: bash\nStatus: install ok installed\nVersion: 5.2.21-2ubuntu4\n");
  f = probe_root(t.root());
  EXPECT_EQ(f.rocm.installed, std::vector<std::string>{"/opt/rocm-7.2.1"});
  EXPECT_TRUE(f.rocm.dpkg_status);
  EXPECT_TRUE(f.rocm.packages.empty());
}

// A ROCm package is installed by its state word, whatever is wanted of it: one held at its
// version (`apt-mark hold`, common for a pinned ROCm) counts; one dpkg left half-configured
// or only its configuration of does not.
TEST(ProbesSmall, AHeldRocmPackageIsInstalled) {
  TestTree t;
  t.write("var/lib/dpkg/status",
          "Package: rocm-core\nStatus: hold ok installed\nVersion: 6.2.4.60204-139~24.04\n\n"
          "Package: rocminfo\nStatus: install ok half-configured\nVersion: 1.0.0.60204-139~24.04\n\n"
          "Package: hip-runtime-amd\nStatus: deinstall ok config-files\nVersion: 6.2.41134.60204-139~24.04\n");
  Facts f = probe_root(t.root());
  EXPECT_TRUE(f.rocm.dpkg_status);
  EXPECT_EQ(f.rocm.packages, (std::map<std::string, std::string>{{"rocm-core", "6.2.4.60204-139~24.04"}}));
}

TEST(ProbesSmall, ModprobeFileMaskedByDevNullSetsNothing) {
  TestTree t;
  t.link("etc/modprobe.d/amdgpu.conf", "/dev/null");
  t.write("usr/lib/modprobe.d/amdgpu.conf", "options amdgpu gttsize=8192\n");
  t.write("etc/modprobe.d/ttm.conf", "options ttm pages_limit=12582912 page_pool_size=12582912\n");
  t.write("lib/modprobe.d/zz.conf", "options amdttm pages_limit=1\n");
  Facts f = probe_root(t.root());
  EXPECT_FALSE(std::any_of(f.errors.begin(), f.errors.end(), [](const ProbeError& e) { return e.probe == "modprobe"; }))
      << errors_text(f);
  ASSERT_EQ(f.modprobe.options.size(), 3u);
  EXPECT_EQ(f.modprobe.options[0].file, "/etc/modprobe.d/ttm.conf");
  EXPECT_EQ(f.modprobe.options[1].key, "page_pool_size");
  EXPECT_EQ(f.modprobe.options[2].module, "amdttm");
}

// The rooted host remembers what it read; `amdml fix` checks its work with a second run
// on the same host, which must see the files as they are now (issue 16).
TEST(ProbesSmall, ASecondRunReadsTheTreeAnew) {
  TestTree t;
  auto h = platform::make_host(t.root());
  ASSERT_TRUE(h) << h.error().message;
  probes::ProbeOptions o;
  o.runtime = false;
  Facts before = probes::collect_facts(**h, shipped_knowledge(), o);
  EXPECT_FALSE(before.os.id);
  t.write("etc/os-release", "ID=debian\n");
  t.write("proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1)\n");
  Facts after = collect_facts(**h, shipped_knowledge(), o);
  EXPECT_EQ(after.os.id, "debian");
  EXPECT_TRUE(after.os.wsl);
}

TEST(ProbesSmall, WslIsDetected) {
  TestTree t;
  t.write("proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1)\n");
  Facts f = probe_root(t.root());
  EXPECT_TRUE(f.os.wsl);
}

}  // namespace
}  // namespace amdml

namespace amdml {
namespace {

// Records what a probe asks of the host at or below the given paths.
class CountingHost final : public test::ForwardingHost {
 public:
  CountingHost(const platform::Host& inner, std::vector<std::string> under) : ForwardingHost(inner), under_(std::move(under)) {}
  bool live() const override { return false; }
  Result<std::string> read_file(const std::string& p, std::size_t l) const override { return count(p), inner_.read_file(p, l); }
  Result<std::vector<DirEntry>> list_dir(const std::string& p) const override { return count(p), inner_.list_dir(p); }
  Result<std::string> read_link(const std::string& p) const override { return count(p), inner_.read_link(p); }
  Result<FileStat> stat(const std::string& p) const override { return count(p), inner_.stat(p); }
  Result<FileStat> lstat(const std::string& p) const override { return count(p), inner_.lstat(p); }
  Result<std::string> canonical(const std::string& p) const override { return count(p), inner_.canonical(p); }
  Result<CommandResult> run(const std::vector<std::string>& argv, std::chrono::milliseconds) const override {
    return make_error(argv.at(0) + ": not run in this test", ENOENT);
  }
  mutable std::vector<std::string> touched;

 private:
  void count(const std::string& p) const {
    for (const auto& u : under_)
      if (p == u || p.starts_with(u + "/") || p.find("amdgpu_xcp") != std::string::npos) touched.push_back(p);
  }
  std::vector<std::string> under_;
};

}  // namespace

// A real MI300X registers 7 XCP partitions per GPU as platform devices, each with a card
// and a render node in /sys/class/drm. The DRM probe finds the GPU's own nodes from its
// PCI device's drm/ directory and never resolves the partitions' class links (issue 16).
TEST(Probes, DrmNeverResolvesTheXcpPartitionNodes) {
  TestTree t;
  test::copy_fixture("rdna2-dgpu", t.root());
  std::vector<std::string> xcp_entries;
  for (int x = 0; x < 3; ++x) {
    std::string dev = "/sys/devices/platform/amdgpu_xcp_" + std::to_string(x);
    for (const std::string& node : {"card" + std::to_string(1 + x), "renderD" + std::to_string(129 + x)}) {
      t.write(dev + "/drm/" + node + "/uevent", "DEVNAME=dri/" + node + "\n");
      t.link(dev + "/drm/" + node + "/device", "../../../amdgpu_xcp_" + std::to_string(x));
      t.link("/sys/class/drm/" + node, "../../devices/platform/amdgpu_xcp_" + std::to_string(x) + "/drm/" + node);
      xcp_entries.push_back("/sys/class/drm/" + node);
    }
  }
  auto h = platform::make_host(t.root());
  ASSERT_TRUE(h) << h.error().message;
  CountingHost counting(**h, xcp_entries);
  probes::ProbeOptions o;
  o.runtime = false;
  Facts f = probes::collect_facts(counting, shipped_knowledge(), o);
  ASSERT_EQ(f.drm.cards.size(), 1u);
  EXPECT_EQ(f.drm.cards[0].card, "card0");
  EXPECT_EQ(f.drm.cards[0].render_node, "/dev/dri/renderD128");
  EXPECT_EQ(errors_text(f), "");
  std::string paths;
  for (const auto& p : counting.touched) paths += p + "\n";
  EXPECT_TRUE(counting.touched.empty()) << paths;
}

}  // namespace amdml
