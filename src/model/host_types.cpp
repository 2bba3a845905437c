// The names of the Host nouns (include/amdml/host.hpp): how amdml-host.json and the
// reports spell file types and container kinds.
#include "amdml/host.hpp"

#include "base/enum_names.hpp"

namespace amdml {

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
