// Container diagnosis: the probe and rules against the container fixture trees (a
// correct container, a gid mismatch, rootless podman, no devices, no sysfs, a host with
// docker), and the rules' branches with literal facts.
#include <gtest/gtest.h>

#include "probes/collect.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "rules/rules.hpp"
#include "support/knowledge.hpp"
#include "support/findings.hpp"

using amdml::test::shipped_knowledge;

using namespace amdml;

namespace {

using test::find_finding;
bool any_container_finding(const test::Diagnosed& d) {
  for (const auto& f : d.findings)
    if (finding_prefix(f.id) == "container") return true;
  return false;
}

bool has_command(const Finding& f, const std::string& needle) {
  for (const auto& c : f.commands)
    if (c.find(needle) != std::string::npos) return true;
  return false;
}

// A docker container with a non-root user, /dev/kfd and renderD128 owned by gid 109.
Facts literal_container(std::vector<std::uint32_t> groups) {
  Facts f;
  f.container.kind = ContainerKind::docker;
  f.kfd.present = true;
  f.identity.process.uid = 1000;
  f.identity.process.gid = 1000;
  f.identity.process.euid = 1000;
  f.identity.process.groups = groups;
  f.identity.user = "rocm-user";
  f.identity.devices_known = true;
  for (const char* p : {"/dev/kfd", "/dev/dri/renderD128"}) {
    DeviceAccess d;
    d.path = p;
    d.exists = true;
    d.mode = 0660;
    d.gid = 109;
    f.identity.devices.push_back(d);
  }
  return f;
}

std::vector<Finding> run_rules(const Facts& f) { return diagnose(f, shipped_knowledge()); }

}  // namespace

TEST(ContainerFixture, CorrectContainerHasNoFindings) {
  test::Diagnosed d(test::fixture("container-ok"));
  EXPECT_EQ(d.facts.container.kind, ContainerKind::docker);
  EXPECT_EQ(d.facts.container.user_namespace, false);
  EXPECT_FALSE(d.facts.container.rootless);
  EXPECT_TRUE(d.facts.container.sys_kfd_visible);
  ASSERT_EQ(d.facts.gpus.size(), 1u);
  EXPECT_FALSE(any_container_finding(d));
  EXPECT_EQ(summarize(d.findings).errors, 0);
}

TEST(ContainerFixture, GidMismatchNamesTheHostGid) {
  test::Diagnosed d(test::fixture("container-gid-mismatch"));
  const Finding* f = d.find("container.gid");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::error);
  EXPECT_TRUE(has_command(*f, "docker run --device=/dev/kfd --device=/dev/dri --group-add 109 IMAGE"));
  bool saw = false;
  for (const auto& e : f->evidence)
    if (e.source == "/dev/kfd") saw = e.value == "gid 109 (no name in this image), open: EACCES";
  EXPECT_TRUE(saw);
  EXPECT_FALSE(d.find("access.kfd"));  // inside a container, container.gid says it
}

TEST(ContainerFixture, RootlessPodmanNeedsKeepGroups) {
  test::Diagnosed d(test::fixture("container-podman-rootless"));
  EXPECT_TRUE(d.facts.container.rootless);
  EXPECT_EQ(d.facts.container.user_namespace, true);
  EXPECT_EQ(d.facts.container.rootless_why, "/run/.containerenv rootless=1");
  const Finding* f = d.find("container.rootless");
  ASSERT_TRUE(f);
  EXPECT_TRUE(has_command(*f, "--group-add keep-groups"));
  EXPECT_TRUE(has_command(*f, "MODE=\"0666\""));
  EXPECT_FALSE(d.find("container.gid"));  // a numeric --group-add cannot help here
}

TEST(ContainerFixture, NoDevicesGivesTheRunFlags) {
  test::Diagnosed d(test::fixture("container-nodev-podman"));
  const Finding* f = d.find("container.devices");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->title, "This podman container was started without /dev/kfd and /dev/dri");
  // Root inside a rootful container: no --group-add needed.
  EXPECT_TRUE(has_command(*f, "podman run --device=/dev/kfd --device=/dev/dri --security-opt seccomp=unconfined IMAGE"));
  EXPECT_FALSE(d.find("kfd.missing"));
  EXPECT_FALSE(d.find("container.gid"));
}

TEST(ContainerFixture, MissingSysfsTopology) {
  test::Diagnosed d(test::fixture("container-nosysfs"));
  const Finding* f = d.find("container.sysfs");
  ASSERT_TRUE(f);
  EXPECT_TRUE(has_command(*f, "--runtime=runc"));
  EXPECT_TRUE(d.find("gpu.none"));
}

TEST(ContainerFixture, HostWithDockerGetsARunLine) {
  test::Diagnosed d(test::fixture("host-docker"));
  EXPECT_FALSE(d.facts.container.kind);
  EXPECT_EQ(d.facts.container.docker.binary, "/usr/bin/docker");
  EXPECT_EQ(d.facts.container.docker.socket_gid, 988u);
  EXPECT_EQ(d.facts.container.docker.socket_group, "docker");
  const Finding* f = d.find("container.host-docker");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::info);
  EXPECT_EQ(f->title, "Docker is installed; alice can use it (group docker)");
  EXPECT_TRUE(has_command(*f, "docker run -it --rm --device=/dev/kfd --device=/dev/dri --group-add 109 "
                              "--security-opt seccomp=unconfined rocm/dev-ubuntu-24.04:6.4.1"));
  EXPECT_TRUE(has_command(*f, "rocm/pytorch:latest"));
  EXPECT_EQ(summarize(d.findings).errors, 0);
}

TEST(ContainerRules, MatchingGidPassesMissingGidFails) {
  EXPECT_FALSE(find_finding(run_rules(literal_container({1000, 109})), "container.gid"));
  auto out = run_rules(literal_container({1000, 992}));
  ASSERT_TRUE(find_finding(out, "container.gid"));
  EXPECT_TRUE(has_command(*find_finding(out, "container.gid"), "--group-add 109"));
}

TEST(ContainerRules, KubernetesGetsSupplementalGroups) {
  auto f = literal_container({1000});
  f.container.kind = ContainerKind::kubernetes;
  auto out = run_rules(f);
  ASSERT_TRUE(find_finding(out, "container.gid"));
  EXPECT_TRUE(has_command(*find_finding(out, "container.gid"), "supplementalGroups: [109]"));
}

TEST(ContainerRules, RootNeedsNoGroupButBindMountedDevIsRefused) {
  auto f = literal_container({0});
  f.identity.process.euid = 0;
  EXPECT_FALSE(find_finding(run_rules(f), "container.gid"));
  // -v /dev:/dev: the nodes are visible but the device cgroup says EPERM.
  for (auto& d : f.identity.devices) {
    d.open = OpenCheck::failed;
    d.open_errno = EPERM;
  }
  auto out = run_rules(f);
  const Finding* dev = find_finding(out, "container.devices");
  ASSERT_TRUE(dev);
  EXPECT_NE(dev->title.find("may not open them"), std::string::npos);
  EXPECT_TRUE(has_command(*dev, "--device=/dev/kfd"));
}

TEST(ContainerRules, OnlyKfdMissing) {
  auto f = literal_container({1000, 109});
  f.identity.devices[0].exists = false;
  auto out = run_rules(f);
  const Finding* dev = find_finding(out, "container.devices");
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->title, "This docker container was started without /dev/kfd");
  // A non-root user: the host's numbers, evaluated on the host.
  EXPECT_TRUE(has_command(*dev, "--group-add $(getent group render | cut -d: -f3)"));
}

TEST(ContainerRules, RootlessWithWorldOpenNodesIsFine) {
  auto f = literal_container({0});
  f.identity.process.euid = 0;
  f.container.rootless = true;
  for (auto& d : f.identity.devices) {
    d.gid = kOverflowGid;
    d.mode = 0666;
    d.world_accessible = true;
  }
  EXPECT_FALSE(find_finding(run_rules(f), "container.rootless"));
  for (auto& d : f.identity.devices) {
    d.mode = 0660;
    d.world_accessible = false;
  }
  EXPECT_TRUE(find_finding(run_rules(f), "container.rootless"));
}

TEST(ContainerRules, HostDockerAccessVerdicts) {
  Facts f;
  f.identity.user = "bob";
  f.identity.user_uid = 1001;
  f.identity.process.uid = 1001;
  f.identity.process.euid = 1001;
  f.identity.process.groups = std::vector<std::uint32_t>{1001};
  f.container.docker.binary = "/usr/bin/docker";
  f.container.docker.socket_exists = true;
  f.container.docker.socket_mode = 0660;
  f.container.docker.socket_gid = 988;
  f.container.docker.socket_group = "docker";
  auto title = [&] {
    auto out = run_rules(f);
    const Finding* d = find_finding(out, "container.host-docker");
    return d ? d->title : std::string("(none)");
  };
  EXPECT_EQ(title(), "Docker is installed; bob cannot use it without sudo (not in group docker)");
  f.identity.user_groups_etc = {988, 1001};
  EXPECT_EQ(title(), "Docker is installed; bob is in group docker per /etc/group, but this session is not yet: log out and in");
  f.identity.process.groups = std::vector<std::uint32_t>{988, 1001};
  EXPECT_EQ(title(), "Docker is installed; bob can use it (group docker)");
  f.container.docker.socket_exists = false;
  EXPECT_EQ(title(), "Docker is installed; its daemon is not running: /var/run/docker.sock does not exist");
  f.container.docker.binary.reset();
  EXPECT_EQ(title(), "(none)");
}

TEST(ContainerRules, HostDockerImageFollowsHostRocm) {
  Facts f;
  f.identity.root = true;
  f.container.docker.binary = "/usr/bin/docker";
  auto image_line = [&] {
    auto out = run_rules(f);
    const Finding* d = find_finding(out, "container.host-docker");
    return d ? d->commands.front() : std::string();
  };
  EXPECT_NE(image_line().find("rocm/dev-ubuntu-24.04:latest"), std::string::npos);
  f.rocm.source = RocmSource::opt_rocm;
  f.rocm.version = Version{6, 2, 4};
  EXPECT_NE(image_line().find("rocm/dev-ubuntu-24.04:6.2.4"), std::string::npos);
  f.rocm.version = Version{5, 7, 1};
  EXPECT_NE(image_line().find("rocm/dev-ubuntu-22.04:5.7.1"), std::string::npos);
  f.rocm.source = RocmSource::distro;  // Debian's own ROCm build has no AMD image
  EXPECT_NE(image_line().find("rocm/dev-ubuntu-24.04:latest"), std::string::npos);
}

TEST(ContainerRules, EveryContainerIdIsCataloguedAndDocumented) {
  for (const char* id : {"container.devices", "container.gid", "container.sysfs", "container.rootless", "container.host-docker"}) {
    ASSERT_TRUE(find_finding_spec(id)) << id;
    std::FILE* page = std::fopen((std::string(AMDML_SOURCE_DIR) + "/docs/findings/" + id + ".md").c_str(), "r");
    EXPECT_TRUE(page) << "docs/findings/" << id << ".md";
    if (page) std::fclose(page);
  }
}
