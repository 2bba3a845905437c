// firmware.known-bad with literal facts: a linux-firmware snapshot the knowledge lists as
// breaking ROCm on a GPU family, by package manager; other snapshots, other GPUs and
// containers get nothing.
#include <gtest/gtest.h>

#include "rules/rules.hpp"
#include "support/knowledge.hpp"
#include "support/rule_facts.hpp"

using namespace amdml;

namespace {

using test::gfx;

Knowledge kb() {
  Knowledge k;
  FirmwareBad b;
  b.gfx = {gfx("gfx1151")};
  b.bad = {"20251125"};
  b.previous = "20251111";
  b.fixed = "20260110";
  b.why = "MES hangs";
  b.source = "ROCm/legacy-rocm-build#5724";
  k.firmware_bad.push_back(b);
  return k;
}

Facts box(const char* g, FirmwarePackage pkg) {
  Facts f;
  f.os.id = "arch";
  Gpu x;
  x.gfx = gfx(g);
  x.apu = true;
  x.kfd_node = 1;
  f.gpus.push_back(x);
  f.os.firmware_packages.push_back(std::move(pkg));
  return f;
}

std::vector<Finding> known_bad(const Facts& f) {
  std::vector<Finding> out;
  for (auto& fd : diagnose(f, kb()))
    if (fd.id == FindingId::firmware_known_bad) out.push_back(fd);
  return out;
}

const FirmwarePackage kArchBad{"linux-firmware-amdgpu", "20251125-1",
                               "/var/lib/pacman/local/linux-firmware-amdgpu-20251125-1/desc", "pacman"};

}  // namespace

TEST(FirmwareRules, SnapshotDateOfPackageVersions) {
  EXPECT_EQ(firmware_snapshot("20251125-1"), "20251125");
  EXPECT_EQ(firmware_snapshot("20251125.git1a2b3c4d-0ubuntu1"), "20251125");
  EXPECT_EQ(firmware_snapshot("1:20240318.git3b128b60-0ubuntu2.13"), "20240318");
  EXPECT_EQ(firmware_snapshot("202511250-1"), "");  // a longer number is no date
  EXPECT_EQ(firmware_snapshot("2025112"), "");
  EXPECT_EQ(firmware_snapshot("6.4.4-1"), "");
  EXPECT_EQ(firmware_snapshot(""), "");
}

TEST(FirmwareRules, ArchStrixHaloOnTheBadSnapshot) {
  auto out = known_bad(box("gfx1151", kArchBad));
  ASSERT_EQ(out.size(), 1u);
  const Finding& fd = out[0];
  EXPECT_EQ(fd.severity, Severity::warning);
  EXPECT_NE(fd.title.find("linux-firmware-amdgpu 20251125-1 breaks ROCm"), std::string::npos) << fd.title;
  EXPECT_NE(fd.title.find("move it to 20260110 or newer (or back to 20251111)"), std::string::npos) << fd.title;
  EXPECT_EQ(fd.gpus, std::vector<int>{0});
  ASSERT_FALSE(fd.evidence.empty());
  EXPECT_EQ(fd.evidence[0].source, kArchBad.from);
  EXPECT_EQ(fd.commands, (std::vector<std::string>{"sudo pacman -Syu --needed linux-firmware-amdgpu", "sudo mkinitcpio -P"}));
  EXPECT_NE(fd.notes.back().find("ROCm/legacy-rocm-build#5724"), std::string::npos);
}

TEST(FirmwareRules, DpkgPackageNameIsQuotedIntoApt) {
  auto out = known_bad(box("gfx1151", {"linux-firmware", "20251125.git1a2b3c4d-0ubuntu1", "/var/lib/dpkg/status", "dpkg"}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].commands, (std::vector<std::string>{"sudo apt-get update", "sudo apt-get install --only-upgrade linux-firmware",
                                                       "sudo update-initramfs -u -k all"}));
  // A name that is not a plain word reaches the shell as one quoted word.
  auto odd = known_bad(box("gfx1151", {"linux firmware", "20251125-1", "/var/lib/dpkg/status", "dpkg"}));
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].commands[1], "sudo apt-get install --only-upgrade 'linux firmware'");
}

TEST(FirmwareRules, OtherSnapshotsGpusAndContainersGetNothing) {
  EXPECT_TRUE(known_bad(box("gfx1151", {"linux-firmware-amdgpu", "20251111-1", kArchBad.from, "pacman"})).empty());
  EXPECT_TRUE(known_bad(box("gfx1151", {"linux-firmware-amdgpu", "20260110-1", kArchBad.from, "pacman"})).empty());
  EXPECT_TRUE(known_bad(box("gfx1103", kArchBad)).empty());  // the break is Strix Halo's
  Facts inside = box("gfx1151", kArchBad);
  inside.container.kind = ContainerKind::docker;
  EXPECT_TRUE(known_bad(inside).empty());
}

TEST(FirmwareRules, DkmsFirmwareIsNoted) {
  Facts f = box("gfx1151", kArchBad);
  f.rocm.packages["amdgpu-dkms-firmware"] = "1:6.12.12.60400-2164967.24.04";
  auto out = known_bad(f);
  ASSERT_EQ(out.size(), 1u);
  bool noted = false;
  for (const auto& n : out[0].notes) noted = noted || n.find("amdgpu-dkms-firmware is installed") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(FirmwareRules, ShippedKnowledgeListsStrixHalosBadSnapshot) {
  // The data itself: recipes/knowledge/kernels.toml's [[firmware_bad]], with its source.
  const Knowledge& k = test::shipped_knowledge();
  ASSERT_FALSE(k.firmware_bad.empty());
  const FirmwareBad& b = k.firmware_bad[0];
  EXPECT_EQ(b.gfx, std::vector<GfxTarget>{gfx("gfx1151")});
  EXPECT_TRUE(b.matches("20251125-1"));
  EXPECT_FALSE(b.matches("20251111-1"));
  EXPECT_EQ(b.previous, "20251111");
  EXPECT_FALSE(b.source.empty());
}
