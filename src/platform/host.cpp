// make_host() and the Host enum names.
#include "platform/host.hpp"

#include "base/enum_names.hpp"

#include "platform/hosts.hpp"

namespace amdml {

Result<std::unique_ptr<Host>> make_host(const std::string& root) {
  if (root.empty() || root == "/") return platform::make_live_host();
  return platform::make_rooted_host(root);
}

namespace {

constexpr EnumName<FileType> kFileTypeNames[] = {
    {FileType::regular, "file"},     {FileType::directory, "dir"},      {FileType::symlink, "symlink"},
    {FileType::char_device, "char"}, {FileType::block_device, "block"}, {FileType::fifo, "fifo"},
    {FileType::socket, "socket"},    {FileType::other, "other"},
};

constexpr EnumName<ContainerKind> kContainerKindNames[] = {
    {ContainerKind::docker, "docker"}, {ContainerKind::podman, "podman"}, {ContainerKind::kubernetes, "kubernetes"},
    {ContainerKind::lxc, "lxc"},       {ContainerKind::other, "other"},
};

}  // namespace

const char* to_string(FileType t) { return enum_name(kFileTypeNames, t, "other"); }
const char* to_string(ContainerKind k) { return enum_name(kContainerKindNames, k, "other"); }
std::optional<ContainerKind> parse_container_kind(const std::string& s) { return enum_from_name(kContainerKindNames, s); }

}  // namespace amdml
