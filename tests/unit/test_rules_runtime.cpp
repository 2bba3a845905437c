// Runtime rules with literal facts: each way the runtime can lose a GPU maps to its
// finding and the cause the other layers point at.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>

#include "rules/rules.hpp"

using namespace amdml;

namespace {

const Knowledge& kb() {
  static Knowledge k;
  return k;
}

// One 680M APU (gfx1035) on KFD node 1 with a render node, /dev/kfd openable.
Facts apu_machine() {
  Facts f;
  f.driver.amdgpu_loaded = true;
  f.driver.initstate = "live";
  f.kfd.present = true;
  KfdNode cpu;
  cpu.index = 0;
  cpu.cpu = true;
  KfdNode gpu;
  gpu.index = 1;
  gpu.gfx = GfxTarget{10, 3, 5};
  gpu.location_id = 0x7400;
  gpu.domain = 0;
  gpu.drm_render_minor = 128;
  f.kfd.nodes = {cpu, gpu};
  Gpu g;
  g.kfd_node = 1;
  g.gfx = GfxTarget{10, 3, 5};
  g.pci_slot = "0000:74:00.0";
  g.marketing_name = "AMD Radeon 680M";
  g.render_node = "/dev/dri/renderD128";
  g.driver = "amdgpu";
  f.gpus = {g};
  f.identity.devices_known = true;
  DeviceAccess kfd;
  kfd.path = "/dev/kfd";
  kfd.exists = true;
  kfd.open = OpenCheck::ok;
  DeviceAccess rn = kfd;
  rn.path = "/dev/dri/renderD128";
  f.identity.devices = {kfd, rn};
  f.rocm.source = RocmSource::opt_rocm;
  return f;
}

HsaAgent cpu_agent() {
  HsaAgent a;
  a.name = "AMD Ryzen 7 6800H with Radeon Graphics";
  a.device = HsaDeviceType::cpu;
  a.node = 0;
  return a;
}

std::vector<Finding> with_id(const std::vector<Finding>& all, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : all)
    if (to_string(f.id) == id) out.push_back(f);
  return out;
}

void init_failed(Facts& f, std::uint32_t code = 0x1008) {
  f.runtime.probed = true;
  f.runtime.hsa.outcome = HsaOutcome::init_failed;
  f.runtime.hsa.failed_call = "hsa_init";
  f.runtime.hsa.status_code = code;
  f.runtime.hsa.status_name = hsa_status_name(code);
}

}  // namespace

TEST(RuntimeRules, InitFailedWithoutDriverSaysTheModuleIsNotLoaded) {
  Facts f = apu_machine();
  f.driver.amdgpu_loaded = false;
  f.identity.devices.erase(f.identity.devices.begin());  // no /dev/kfd
  init_failed(f);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::error);
  EXPECT_NE(found[0].title.find("HSA_STATUS_ERROR_OUT_OF_RESOURCES"), std::string::npos);
  EXPECT_NE(found[0].detail.find("amdgpu kernel driver is not loaded"), std::string::npos) << found[0].detail;
}

TEST(RuntimeRules, InitFailedWithoutAnyGpuIsOnlyInformation) {
  Facts f;
  f.identity.devices_known = true;
  init_failed(f);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::info);
}

TEST(RuntimeRules, InitFailedMapsKfdOpenErrors) {
  struct Case {
    int err;
    const char* expect;
  } cases[] = {{EACCES, "cannot open /dev/kfd"}, {EINVAL, "EINVAL"}, {ENOMEM, "not supported in kfd"}, {EFAULT, "EFAULT"}};
  for (const auto& c : cases) {
    Facts f = apu_machine();
    f.identity.devices[0].open = OpenCheck::failed;
    f.identity.devices[0].open_errno = c.err;
    init_failed(f);
    auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].detail.find(c.expect), std::string::npos) << c.err << ": " << found[0].detail;
  }
}

// The override is three decimal numbers of any length (amdml/gfx.hpp): leading zeros
// are well formed, so a failed init is not blamed on them.
TEST(RuntimeRules, InitFailedDoesNotBlameAnOverrideWithLeadingZeros) {
  Facts f = apu_machine();
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.00000";
  init_failed(f);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].detail.find("is not major.minor.stepping"), std::string::npos) << found[0].detail;
}

TEST(RuntimeRules, InitFailedInAContainerWithoutKfd) {
  Facts f = apu_machine();
  f.container.kind = ContainerKind::docker;
  f.identity.devices.erase(f.identity.devices.begin());
  init_failed(f);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].detail.find("not passed into this container"), std::string::npos);
}

TEST(RuntimeRules, InitFailedBlamesAMalformedOverride) {
  Facts f = apu_machine();
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "\"10.3.0\"";
  init_failed(f);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].detail.find("HSA_OVERRIDE_GFX_VERSION=\"10.3.0\" is not major.minor.stepping"), std::string::npos)
      << found[0].detail;
  // A well-formed value is not blamed.
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0";
  found = with_id(diagnose(f, kb()), "runtime.init-failed");
  EXPECT_EQ(found[0].detail.find("is not major.minor.stepping"), std::string::npos);
  EXPECT_NE(found[0].detail.find("no cause"), std::string::npos);
}

TEST(RuntimeRules, GpuMissingBecauseOfTheOverride) {
  Facts f = apu_machine();
  f.env["HSA_OVERRIDE_GFX_VERSION"] = "10.4.0";
  f.runtime.hsa.outcome = HsaOutcome::ok;
  f.runtime.hsa.agents = {cpu_agent()};
  auto found = with_id(diagnose(f, kb()), "runtime.gpu-missing");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].gpus, std::vector<int>{0});
  EXPECT_NE(found[0].title.find("lists no GPU"), std::string::npos);
  EXPECT_NE(found[0].detail.find("HSA_OVERRIDE_GFX_VERSION=10.4.0"), std::string::npos) << found[0].detail;
}

TEST(RuntimeRules, GpuMissingBecauseTheRenderNodeIsHidden) {
  Facts f = apu_machine();
  f.identity.devices[1].open = OpenCheck::failed;
  f.identity.devices[1].open_errno = EPERM;
  f.runtime.hsa.outcome = HsaOutcome::ok;
  f.runtime.hsa.agents = {cpu_agent()};
  auto found = with_id(diagnose(f, kb()), "runtime.gpu-missing");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].detail.find("device cgroup"), std::string::npos);
}

TEST(RuntimeRules, JoinedAgentIsNotMissing) {
  Facts f = apu_machine();
  HsaAgent g;
  g.name = "gfx1035";
  g.device = HsaDeviceType::gpu;
  g.gpu = 0;
  f.runtime.hsa.outcome = HsaOutcome::ok;
  f.runtime.hsa.agents = {cpu_agent(), g};
  EXPECT_TRUE(with_id(diagnose(f, kb()), "runtime.gpu-missing").empty());
}

TEST(RuntimeRules, ChildFailuresBecomeFindings) {
  Facts f = apu_machine();
  f.runtime.hsa.outcome = HsaOutcome::crashed;
  f.runtime.hsa.signal = 11;
  f.runtime.hsa.reason = "the child died on SIGSEGV (last step: hsa_init)";
  f.runtime.hsa.last_step = "hsa_init";
  auto crashed = with_id(diagnose(f, kb()), "runtime.crashed");
  ASSERT_EQ(crashed.size(), 1u);
  EXPECT_NE(crashed[0].detail.find("SIGSEGV"), std::string::npos);

  f.runtime.hsa.outcome = HsaOutcome::timed_out;
  EXPECT_EQ(with_id(diagnose(f, kb()), "runtime.timeout").size(), 1u);
  f.runtime.hsa.outcome = HsaOutcome::bad_output;
  EXPECT_EQ(with_id(diagnose(f, kb()), "runtime.probe-failed").size(), 1u);
}

TEST(RuntimeRules, NotInstalledVersusLoadFailed) {
  Facts f = apu_machine();
  f.runtime.hsa.outcome = HsaOutcome::not_installed;
  f.runtime.hsa.attempts = {{"/opt/rocm/lib/libhsa-runtime64.so.1", false, "not found: No such file or directory"},
                            {"libhsa-runtime64.so.1", false, "not found on the library search path"}};
  EXPECT_EQ(with_id(diagnose(f, kb()), "runtime.not-installed").size(), 1u);
  f.runtime.hsa.attempts[1] = {"libhsa-runtime64.so.1", true, "libhsakmt.so.1: cannot open shared object file"};
  auto all = diagnose(f, kb());
  EXPECT_TRUE(with_id(all, "runtime.not-installed").empty());
  ASSERT_EQ(with_id(all, "runtime.load-failed").size(), 1u);
}

TEST(RuntimeRules, MemoryDisagreementIsFlagged) {
  Facts f = apu_machine();
  GpuMemoryView v;
  v.gpu = 0;
  v.disagreements = {"GTT total: libdrm 15 GiB, sysfs 8 GiB"};
  f.runtime.memory = {v};
  auto found = with_id(diagnose(f, kb()), "drm.mismatch");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence[0].value, "GTT total: libdrm 15 GiB, sysfs 8 GiB");
}

TEST(RuntimeRules, InitFailedOnARenderNodeItMayNotOpen) {
  Facts f = apu_machine();
  f.identity.devices[1].open = OpenCheck::failed;
  f.identity.devices[1].open_errno = EACCES;
  init_failed(f);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].detail.find("can open /dev/kfd but not /dev/dri/renderD128"), std::string::npos) << found[0].detail;
}

TEST(RuntimeRules, GenericErrorPointsAtNewApus) {
  Facts f = apu_machine();
  init_failed(f, 0x1000);
  auto found = with_id(diagnose(f, kb()), "runtime.init-failed");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].title.find("HSA_STATUS_ERROR"), std::string::npos);
  EXPECT_NE(found[0].detail.find("gfx1150-gfx1152"), std::string::npos) << found[0].detail;
}

// Live without /dev/kfd the probe skips the runtime; the finding says so and gives the
// cause runtime.init-failed would have given.
TEST(RuntimeRules, NotAskedWithoutKfdGivesTheCause) {
  Facts f = apu_machine();
  f.driver.amdgpu_loaded = false;
  f.identity.devices.erase(f.identity.devices.begin());  // no /dev/kfd
  f.runtime.hsa.outcome = HsaOutcome::skipped;
  f.runtime.hsa.reason = "/dev/kfd does not exist, and the HSA runtime cannot start without it";
  auto all = diagnose(f, kb());
  EXPECT_TRUE(with_id(all, "runtime.init-failed").empty());
  auto found = with_id(all, "runtime.not-asked");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::error);
  EXPECT_NE(found[0].title.find("/dev/kfd does not exist"), std::string::npos) << found[0].title;
  EXPECT_NE(found[0].detail.find("amdgpu kernel driver is not loaded"), std::string::npos) << found[0].detail;
}

TEST(RuntimeRules, NotAskedWhenKfdDoesNotOpenAndOnlyInformationWithoutAGpu) {
  Facts f = apu_machine();
  f.identity.devices[0].open = OpenCheck::failed;
  f.identity.devices[0].open_errno = EACCES;
  f.runtime.hsa.outcome = HsaOutcome::skipped;
  f.runtime.hsa.reason = "/dev/kfd cannot be opened (Permission denied), and the HSA runtime cannot start without it";
  auto found = with_id(diagnose(f, kb()), "runtime.not-asked");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].detail.find("cannot open /dev/kfd"), std::string::npos) << found[0].detail;

  Facts none;  // no GPU, a runtime on disk, no /dev/kfd
  none.identity.devices_known = true;
  none.rocm.hsa_library = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1";
  none.runtime.hsa.outcome = HsaOutcome::skipped;
  found = with_id(diagnose(none, kb()), "runtime.not-asked");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, Severity::info);

  none.rocm.hsa_library.reset();  // nothing to ask at all: no finding
  EXPECT_TRUE(with_id(diagnose(none, kb()), "runtime.not-asked").empty());
}
