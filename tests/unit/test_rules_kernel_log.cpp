// kernel.* (from the kernel log), driver.not-loaded's reasons (boot state) and
// ollama.discovery, with literal facts.
#include <gtest/gtest.h>

#include <algorithm>

#include "rules/rules.hpp"
#include "support/findings.hpp"

using namespace amdml;

namespace {

using test::find_finding;
bool mentions(const Finding& f, const std::string& s) {
  for (const auto& c : f.commands)
    if (c.find(s) != std::string::npos) return true;
  for (const auto& n : f.notes)
    if (n.find(s) != std::string::npos) return true;
  return f.detail.find(s) != std::string::npos;
}

KernelEvent ev(KernelEventKind k, std::string line, std::string subject = "", std::string process = "") {
  KernelEvent e;
  e.kind = k;
  e.usec = 11423005;
  e.line = std::move(line);
  e.subject = std::move(subject);
  e.process = std::move(process);
  return e;
}

// An RX 7900 XTX on PCI with no driver bound and amdgpu not loaded, Ubuntu 6.8.
Facts unbound_gpu() {
  Facts f;
  f.os.id = "ubuntu";
  f.os.kernel_release = "6.8.0-49-generic";
  f.os.kernel = KernelVersion{6, 8, 0};
  Gpu g;
  g.gfx = GfxTarget::parse_name("gfx1100");
  g.vendor_id = 0x1002;
  g.device_id = 0x744c;
  g.pci_slot = "0000:23:00.0";
  f.gpus.push_back(g);
  f.kernel_log.read = true;
  return f;
}

Knowledge kb() {
  Knowledge k;
  GfxInfo navi31;
  navi31.target = *GfxTarget::parse_name("gfx1100");
  navi31.kernel_min = Version{6, 0, 0};
  k.gfx.push_back(navi31);
  return k;
}

TEST(DriverNotLoaded, SecureBootRefusalNamesMokEnrollmentNotModprobe) {
  Facts f = unbound_gpu();
  f.boot.secure_boot = true;
  f.boot.dkms = DkmsState::installed;
  f.kernel_log.events.push_back(ev(KernelEventKind::module_rejected, "Loading of module with unavailable key is rejected"));
  auto out = diagnose(f, kb());
  const Finding* d = find_finding(out, FindingId::driver_not_loaded);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->commands.front(), "sudo mokutil --import /var/lib/dkms/mok.pub");
  EXPECT_TRUE(mentions(*d, "MOK enrollment"));
  EXPECT_FALSE(mentions(*d, "modprobe"));
  ASSERT_TRUE(find_finding(out, FindingId::kernel_module_rejected));
}

TEST(DriverNotLoaded, SecureBootWithoutTheLogStillPointsAtTheKey) {
  Facts f = unbound_gpu();
  f.kernel_log = {};
  f.boot.secure_boot = true;
  f.boot.dkms = DkmsState::installed;
  const auto out = diagnose(f, kb());
  const Finding* d = find_finding(out, FindingId::driver_not_loaded);
  ASSERT_TRUE(d);
  EXPECT_TRUE(mentions(*d, "mokutil --import"));
}

TEST(DriverNotLoaded, BlacklistIsCommentedOut) {
  Facts f = unbound_gpu();
  f.boot.blacklists.push_back({"/etc/modprobe.d/blacklist-amdgpu.conf:2", "blacklist amdgpu"});
  const auto out = diagnose(f, kb());
  const Finding* d = find_finding(out, FindingId::driver_not_loaded);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->commands.front(), "sudo sed -i '2s/^/# /' /etc/modprobe.d/blacklist-amdgpu.conf");
  EXPECT_FALSE(mentions(*d, "modprobe amdgpu"));
}

TEST(DriverNotLoaded, DkmsMissingForThisKernel) {
  Facts f = unbound_gpu();
  f.boot.dkms = DkmsState::missing;
  f.boot.dkms_versions = {"6.10.5-2119913.22.04"};
  const auto out = diagnose(f, kb());
  const Finding* d = find_finding(out, FindingId::driver_not_loaded);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->commands.front(), "sudo dkms autoinstall -k 6.8.0-49-generic");
}

TEST(DriverNotLoaded, KernelTooOldNamesTheVersion) {
  Facts f = unbound_gpu();
  f.os.kernel = KernelVersion{5, 15, 0};
  const auto out = diagnose(f, kb());
  const Finding* d = find_finding(out, FindingId::driver_not_loaded);
  ASSERT_TRUE(d);
  EXPECT_TRUE(mentions(*d, "install a kernel >= 6.0"));
}

TEST(DriverNotLoaded, NothingExplainsItThenModprobe) {
  const auto out = diagnose(unbound_gpu(), kb());
  const Finding* d = find_finding(out, FindingId::driver_not_loaded);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->commands.front(), "sudo modprobe amdgpu");
}

TEST(KernelLog, FirmwareMissingNamesFileAndDebianPackage) {
  Facts f = unbound_gpu();
  f.os.id = "debian";
  auto e = ev(KernelEventKind::firmware_missing,
              "amdgpu 0000:23:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin failed with error -2",
              "amdgpu/psp_13_0_0_sos.bin");
  e.error_code = -2;
  f.kernel_log.events.push_back(e);
  const auto out = diagnose(f, kb());
  const Finding* k = find_finding(out, FindingId::kernel_firmware_missing);
  ASSERT_TRUE(k);
  EXPECT_NE(k->title.find("amdgpu/psp_13_0_0_sos.bin"), std::string::npos);
  EXPECT_EQ(k->commands.front(), "sudo apt install firmware-amd-graphics");
  EXPECT_EQ(k->evidence.front().source, "kernel log [   11.423005]");
}

TEST(KernelLog, ResetsAreCountedWithTheLastProcess) {
  Facts f = unbound_gpu();
  for (int i = 0; i < 2; ++i)
    f.kernel_log.events.push_back(ev(KernelEventKind::ring_timeout, "ring gfx_0.0.0 timeout", "gfx_0.0.0", "llama-server"));
  f.kernel_log.events.push_back(ev(KernelEventKind::gpu_reset, "amdgpu 0000:c5:00.0: amdgpu: GPU reset begin!"));
  const auto out = diagnose(f, kb());
  const Finding* k = find_finding(out, FindingId::kernel_gpu_reset);
  ASSERT_TRUE(k);
  EXPECT_NE(k->title.find("2 ring timeouts, 1 GPU reset"), std::string::npos);
  EXPECT_EQ(k->evidence[1].value, "llama-server");
}

TEST(KernelLog, UnknownParameterOnlyForGpuModules) {
  Facts f = unbound_gpu();
  f.kernel_log.events.push_back(ev(KernelEventKind::unknown_param, "amdgpu: unknown parameter 'gtt_size' ignored", "amdgpu.gtt_size"));
  f.kernel_log.events.push_back(ev(KernelEventKind::unknown_param, "xe: unknown parameter 'force_vram_bar_size' ignored", "xe.force_vram_bar_size"));
  auto out = diagnose(f, kb());
  EXPECT_EQ(std::count_if(out.begin(), out.end(), [](const Finding& x) { return x.id == FindingId::kernel_unknown_parameter; }), 1);
}

TEST(KernelLog, UnreadableIsOneInfoAndNothingElse) {
  Facts f = unbound_gpu();
  f.kernel_log = {};
  f.kernel_log.needs_root = true;
  f.kernel_log.unreadable = "refused";
  auto out = diagnose(f, kb());
  const Finding* k = find_finding(out, FindingId::kernel_log_unreadable);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->severity, Severity::info);
}

TEST(OllamaDiscovery, TiedToTheFindingThatExplainsIt) {
  Facts f = unbound_gpu();
  f.ollama_journal.read = true;
  f.ollama_journal.source = "journalctl -u ollama -b 0";
  OllamaJournalLine l;
  l.reason = OllamaReason::no_compatible_gpu;
  l.line = "level=INFO source=gpu.go:377 msg=\"no compatible GPUs were discovered\"";
  f.ollama_journal.lines.push_back(l);
  auto out = diagnose(f, kb());
  const Finding* o = find_finding(out, FindingId::ollama_discovery);
  ASSERT_TRUE(o);
  EXPECT_TRUE(mentions(*o, "driver.not-loaded"));
}

TEST(OllamaDiscovery, SilentWhenItFoundTheGpu) {
  Facts f = unbound_gpu();
  f.ollama_journal.read = true;
  OllamaJournalLine l;
  l.reason = OllamaReason::gpu_found;
  f.ollama_journal.lines.push_back(l);
  const auto out = diagnose(f, kb());
  EXPECT_FALSE(find_finding(out, FindingId::ollama_discovery));
}

}  // namespace
