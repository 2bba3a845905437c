// apt-get's simulation output (formats/apt_simulation.hpp), in the shapes apt 2.6 prints
// on Debian 12 (`apt-get -s -q remove` / `purge` on this project's build machine), and
// the architecture-qualified names apt-pkg prints for a package of another architecture.
#include <gtest/gtest.h>

#include "formats/apt_simulation.hpp"

using amdml::formats::apt_simulated_removals;
using amdml::formats::debian_package_name;

namespace {

using Names = std::vector<std::string>;

// `apt-get -s -q remove libgtest-dev`, verbatim.
const char* kRemove =
    "Reading package lists...\n"
    "Building dependency tree...\n"
    "Reading state information...\n"
    "The following packages were automatically installed and are no longer required:\n"
    "  googletest libc++1-14 libc++abi1-14 libunwind-14\n"
    "Use 'apt autoremove' to remove them.\n"
    "The following packages will be REMOVED:\n"
    "  libgmock-dev libgtest-dev\n"
    "0 upgraded, 0 newly installed, 2 to remove and 130 not upgraded.\n"
    "Remv libgmock-dev [1.12.1-0.2]\n"
    "Remv libgtest-dev [1.12.1-0.2]\n";

}  // namespace

TEST(AptSimulation, RemovalsInAptsOrder) {
  // The packages apt takes along come first, as apt removes them.
  EXPECT_EQ(apt_simulated_removals(kRemove), (Names{"libgmock-dev", "libgtest-dev"}));
  // The summary above names packages too, but it is no action: only Remv lines count.
  EXPECT_EQ(apt_simulated_removals("The following packages will be REMOVED:\n  libgmock-dev libgtest-dev\n"), Names{});
}

TEST(AptSimulation, PurgeUpgradesAndBrokenLists) {
  EXPECT_EQ(apt_simulated_removals("Purg libgmock-dev [1.12.1-0.2]\nPurg libgtest-dev [1.12.1-0.2]\n"),
            (Names{"libgmock-dev", "libgtest-dev"}));
  // `apt-get -s -q remove binutils-common`: the packages a removal breaks in a second
  // bracket, and an upgrade it needs (Inst/Conf) that is no removal.
  const char* cascade =
      "Remv dpkg-dev [1.21.22] [lintian:amd64 build-essential:amd64 ]\n"
      "Remv binutils [2.40-2] [lintian:amd64 gcc-12:amd64 build-essential:amd64 fp-compiler-3.2.2:amd64 clang-14:amd64 ]\n"
      "Remv clang [1:14.0-55.7~deb12u1] [lintian:amd64 gcc-12:amd64 fp-compiler-3.2.2:amd64 clang-14:amd64 ]\n"
      "Inst libdpkg-perl [1.21.22] (1.21.23 Debian:12.15/oldstable [all])\n"
      "Conf libdpkg-perl (1.21.23 Debian:12.15/oldstable [all])\n";
  EXPECT_EQ(apt_simulated_removals(cascade), (Names{"dpkg-dev", "binutils", "clang"}));
}

TEST(AptSimulation, ArchitectureQualifiersAreDropped) {
  // A package of another architecture is "NAME:ARCH"; both of a Multi-Arch: same pair
  // are one name to reinstall.
  const char* multiarch =
      "Remv libhsa-runtime-dev:amd64 [5.7.1-2build1]\n"
      "Remv libhsa-runtime64-1 [5.7.1-2build1] [libhsa-runtime-dev:amd64 ]\n"
      "Remv libhsa-runtime64-1:i386 [5.7.1-2build1]\n";
  EXPECT_EQ(apt_simulated_removals(multiarch), (Names{"libhsa-runtime-dev", "libhsa-runtime64-1"}));
}

TEST(AptSimulation, WhatIsNoPackageNameIsLeftOut) {
  // Nothing read here may become an option or a second word on apt-get's command line.
  const char* odd =
      "Remv \n"
      "Remv -o [1]\n"
      "Remv --purge\n"
      "Remv Foo [1]\n"
      "Remv a\n"
      "Remv x: [1]\n"
      "Remv libx:AMD64 [1]\n"
      "Remv libz:amd64:i386 [2]\n"
      "Remvlibfoo [1]\n"
      " Remv libbar [1]\n"
      "Remv libok [1]";  // no newline at the end
  EXPECT_EQ(apt_simulated_removals(odd), Names{"libok"});
  EXPECT_EQ(apt_simulated_removals(""), Names{});
  for (const char* good : {"rocm", "libstdc++6", "g++-12", "hip-runtime-amd6.2.4", "0ad"})
    EXPECT_TRUE(debian_package_name(good)) << good;
  for (const char* bad : {"", "a", "-o", "+x", ".x", "Rocm", "lib x", "lib_x", "libx:amd64"})
    EXPECT_FALSE(debian_package_name(bad)) << bad;
}
