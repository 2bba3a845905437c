// The names of the Host nouns (include/amdml/host.hpp): how amdml-host.json and the
// reports spell file types and container kinds.
#include "amdml/host.hpp"

namespace amdml {

const char* to_string(FileType t) {
  switch (t) {
    case FileType::regular: return "file";
    case FileType::directory: return "dir";
    case FileType::symlink: return "symlink";
    case FileType::char_device: return "char";
    case FileType::block_device: return "block";
    case FileType::fifo: return "fifo";
    case FileType::socket: return "socket";
    case FileType::other: return "other";
  }
  return "other";
}

const char* to_string(ContainerKind k) {
  switch (k) {
    case ContainerKind::docker: return "docker";
    case ContainerKind::podman: return "podman";
    case ContainerKind::kubernetes: return "kubernetes";
    case ContainerKind::lxc: return "lxc";
    case ContainerKind::other: return "other";
  }
  return "other";
}

std::optional<ContainerKind> parse_container_kind(const std::string& s) {
  if (s == "docker") return ContainerKind::docker;
  if (s == "podman") return ContainerKind::podman;
  if (s == "kubernetes") return ContainerKind::kubernetes;
  if (s == "lxc") return ContainerKind::lxc;
  if (s == "other") return ContainerKind::other;
  return std::nullopt;
}

}  // namespace amdml
