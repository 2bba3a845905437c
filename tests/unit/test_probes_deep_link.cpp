// The PCIe path of a discrete GPU (probes/deep_link.cpp) read through a rooted host from
// deep-rx7900xtx-riser's sysfs: the GPU and its switch at 16 GT/s x16 behind a slot link
// trained at 8 GT/s x4, so the slot link limits the copy; malformed link files read as
// unknown; and the replayed --deep doctor holds the recorded copy against that link.
#include <gtest/gtest.h>

#include "probes/collect.hpp"
#include "probes/deep_link.hpp"
#include "rules/rules.hpp"
#include "support/findings.hpp"
#include "support/knowledge.hpp"
#include "support/tree.hpp"

using namespace amdml;

namespace {
const std::string kRoot = "/sys/devices/pci0000:00/0000:00:01.1";
const std::string kGpuDir = kRoot + "/0000:21:00.0/0000:22:00.0/0000:23:00.0";
}  // namespace

TEST(DeepLink, TheSlowestLinkOnThePathLimitsAndIsNamed) {
  test::TestTree t("deep-rx7900xtx-riser");
  auto host = t.host();
  ASSERT_TRUE(host);
  auto l = probes::read_pcie_link(*host, "0000:23:00.0");
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->slot, "0000:23:00.0");
  EXPECT_EQ(l->current, (PcieLink{8.0, 4}));
  EXPECT_EQ(l->max, (PcieLink{16.0, 16}));
  EXPECT_EQ(l->limited_at, "0000:21:00.0");  // the card's switch's upstream port: the slot link, met first going up
  EXPECT_EQ(l->links, 4u);                   // the GPU, its switch's two ports, the root port; not the host bridge
}

TEST(DeepLink, MalformedOrMissingFilesAreUnknownNeverACrash) {
  test::TestTree t("deep-rx7900xtx-riser");
  // The slot link's files garbled on both ends: the GPU's own links are what is left.
  t.write(kRoot + "/current_link_speed", "Unknown\n");
  t.write(kRoot + "/0000:21:00.0/current_link_speed", "\x01\xff GT/s PCIe\n");
  t.write(kRoot + "/0000:21:00.0/current_link_width", "99\n");
  t.write(kGpuDir + "/max_link_speed", "");
  auto host = t.host();
  auto l = probes::read_pcie_link(*host, "0000:23:00.0");
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->current, (PcieLink{16.0, 16}));
  EXPECT_EQ(l->links, 2u);
  EXPECT_FALSE(l->max.gts.has_value());
  EXPECT_EQ(l->max.width, 16u);
  // No such device, or a slot that is no PCI address: nothing.
  EXPECT_FALSE(probes::read_pcie_link(*host, "0000:99:00.0").has_value());
  EXPECT_FALSE(probes::read_pcie_link(*host, "../../etc").has_value());
}

TEST(DeepLink, TheReplayedDeepDoctorComparesTheCopyWithTheLink) {
  auto h = platform::make_host(test::fixture("deep-rx7900xtx-riser"));
  ASSERT_TRUE(h.ok());
  probes::ProbeOptions o;
  o.deep = true;
  Facts f = probes::collect_facts(**h, test::shipped_knowledge(), o);
  ASSERT_EQ(f.deep.gpus.size(), 1u);
  ASSERT_TRUE(f.deep.gpus[0].link.has_value()) << "the record has none: read from the tree's sysfs";
  EXPECT_EQ(f.deep.gpus[0].link->current, (PcieLink{8.0, 4}));
  auto findings = diagnose(f, test::shipped_knowledge());
  const Finding* slow = test::find_finding(findings, FindingId::deep_copy_slow);
  ASSERT_NE(slow, nullptr);
  EXPECT_NE(slow->title.find("copies to the GPU ran at 1.4 GB/s, less than half of the ~3.2 GB/s expected for PCIe 3.0 x4"),
            std::string::npos)
      << slow->title;
  // Plain doctor reads no link.
  probes::ProbeOptions plain;
  Facts p = probes::collect_facts(**h, test::shipped_knowledge(), plain);
  EXPECT_TRUE(p.deep.gpus.empty());
  EXPECT_EQ(test::find_finding(diagnose(p, test::shipped_knowledge()), FindingId::deep_copy_slow), nullptr);
}
