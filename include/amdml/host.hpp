// What a machine is made of, as amdml sees it through the Host (src/platform/host.hpp):
// file types and metadata, the running identity, uname, device nodes, containers and the
// result of a command. Plain data; the Host interface that fills them is the platform's.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace amdml {

enum class FileType { regular, directory, symlink, char_device, block_device, fifo, socket, other };

struct FileStat {
  FileType type = FileType::other;
  std::uint32_t mode = 0;  // permission bits only (07777)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::uint64_t size = 0;
};

struct DirEntry {
  std::string name;
  FileType type = FileType::other;  // of the entry itself (a symlink is a symlink)
};

struct Identity {
  std::optional<std::string> user;
  std::optional<std::uint32_t> uid;
  std::optional<std::uint32_t> gid;
  std::optional<std::uint32_t> euid;
  std::optional<std::vector<std::uint32_t>> groups;  // the running process's groups
  std::optional<std::string> sudo_user;
};

struct Uname {
  std::optional<std::string> release;
  std::optional<std::string> machine;
};

enum class OpenCheck { not_checked, ok, failed };

struct DeviceNode {
  std::string path;  // absolute, as seen inside the host ("/dev/kfd")
  FileType type = FileType::char_device;
  std::optional<std::uint32_t> mode;
  std::optional<std::uint32_t> uid;
  std::optional<std::uint32_t> gid;
  OpenCheck open = OpenCheck::not_checked;  // live only: did open(O_RDWR) succeed
  int open_errno = 0;
};

enum class ContainerKind { docker, podman, kubernetes, lxc, other };

struct CommandResult {
  int exit_code = -1;
  bool timed_out = false;
  int signal = 0;
  std::string out;
  std::string err;
};

// The kernel log of this boot in /dev/kmsg's record format ("PRIO,SEQ,USEC,FLAGS;TEXT"
// per line), the newest records within a bound, and where it came from.
struct KernelLogText {
  std::string records;
  std::string source;      // "/dev/kmsg", or "journalctl -k -b 0" where /dev/kmsg was refused
  bool truncated = false;  // older records were dropped to stay within the bound
};

const char* to_string(FileType t);
const char* to_string(ContainerKind k);
std::optional<ContainerKind> parse_container_kind(const std::string& s);

}  // namespace amdml
