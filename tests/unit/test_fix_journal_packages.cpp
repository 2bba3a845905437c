// fix::installed_packages (src/fix/journal.cpp): the packages dpkg's status has on disk,
// read through the dpkg codec (formats::parse::dpkg_packages), which the purge of a failed
// apt-get install compares before and after.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "fix/journal.hpp"
#include "platform/host.hpp"
#include "support/tree.hpp"

using namespace amdml;
using namespace amdml::test;

// The packages a failed install's purge compares against: every package dpkg has files of
// on disk (the half-configured one too, as the purge must take what an interrupted install
// left), not a config-files one (removed but for its configuration) nor a purged one.
TEST(FixJournal, InstalledPackagesAreThoseWithFilesOnDisk) {
  TestTree t;
  write_file(t / "var/lib/dpkg/status",
             "Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\n\n"
             "Package: amdgpu-dkms\nStatus: install ok half-configured\nVersion: 6.16.6\n\n"
             "Package: rocm-core\nStatus: deinstall ok config-files\nVersion: 6.1.0\n\n"
             "Package: rocm\nStatus: purge ok not-installed\n\n"
             "Package: rocm-hip\nStatus: hold ok installed\nVersion: 6.2.4\n");
  auto host = platform::make_host(t.str());
  ASSERT_TRUE(host) << host.error().message;
  auto pkgs = fix::installed_packages(**host);
  ASSERT_TRUE(pkgs);
  EXPECT_EQ(*pkgs, (std::set<std::string>{"amdgpu-dkms", "libc6", "rocm-hip"}));
  fs::remove(t / "var/lib/dpkg/status");
  EXPECT_FALSE(fix::installed_packages(**host));
}
