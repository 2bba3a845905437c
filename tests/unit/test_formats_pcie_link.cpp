// The PCI link attributes' codec (formats/pcie_link.cpp) on the kernel's own strings
// (drivers/pci/pci-sysfs.c: pci_speed_string() since Linux 5.7, PCIE_SPEED2STR before)
// and on what a broken sysfs may hold: anything else is unknown.
#include <gtest/gtest.h>

#include "formats/pcie_link.hpp"

using namespace amdml;
namespace pcie = formats::pcie;

TEST(PcieLink, ReadsTheKernelsSpeedsOldAndNew) {
  EXPECT_EQ(pcie::link_speed("2.5 GT/s PCIe\n"), 2.5);
  EXPECT_EQ(pcie::link_speed("5.0 GT/s PCIe\n"), 5.0);
  EXPECT_EQ(pcie::link_speed("8.0 GT/s PCIe\n"), 8.0);
  EXPECT_EQ(pcie::link_speed("16.0 GT/s PCIe\n"), 16.0);
  EXPECT_EQ(pcie::link_speed("32.0 GT/s PCIe\n"), 32.0);
  EXPECT_EQ(pcie::link_speed("64.0 GT/s PCIe\n"), 64.0);
  EXPECT_EQ(pcie::link_speed("8 GT/s\n"), 8.0);  // before Linux 5.7
  EXPECT_EQ(pcie::link_speed("5 GT/s"), 5.0);
  EXPECT_EQ(pcie::speed_text(16.0), "16 GT/s");
  EXPECT_EQ(pcie::speed_text(2.5), "2.5 GT/s");
}

TEST(PcieLink, AnythingElseIsUnknown) {
  for (const char* t : {"Unknown\n", "Unknown speed\n", "", "\n", "GT/s", " GT/s PCIe", "16.0 GT/s PCI", "16.0GT/s",
                        "-8.0 GT/s", "1e3 GT/s", "8..0 GT/s", ".5 GT/s", "8. GT/s", "0 GT/s", "0.0 GT/s PCIe",
                        "5000 GT/s", "33 MHz PCI", "16.0 GT/s PCIe PCIe", "\xff\xfe GT/s"})
    EXPECT_FALSE(pcie::link_speed(t).has_value()) << t;
}

TEST(PcieLink, WidthsAreLaneCountsFrom1To32) {
  EXPECT_EQ(pcie::link_width("16\n"), 16u);
  EXPECT_EQ(pcie::link_width("4"), 4u);
  EXPECT_EQ(pcie::link_width("1\n"), 1u);
  for (const char* t : {"0\n", "33", "x16", "-4", "", "16 lanes", "99999999999999999999"})
    EXPECT_FALSE(pcie::link_width(t).has_value()) << t;
}
