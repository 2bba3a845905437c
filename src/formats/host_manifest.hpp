// amdml-host.json: what a --root tree says about its machine that is not a file --
// identity, uname, environment, device nodes, container, command outputs, recorded
// failures and recorded facts. One codec for both directions: `amdml snapshot` writes
// it (snapshot_manifest in formats/snapshot.hpp builds a HostManifest from a Recording)
// and the rooted host (src/platform/host_rooted.cpp) reads it. docs/snapshot.md
// documents the format.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/host.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// A host call that failed, replayed by the rooted host from amdml-host.json "errors".
struct RecordedError {
  int code = 0;         // errno
  std::string message;  // exactly what the probe saw
};

struct RecordedCommand {
  std::optional<CommandResult> result;  // the program ran (any exit code)
  std::optional<Error> error;           // it could not be started (not found, ...)
};

// The operations whose failures are recorded, by their key in amdml-host.json "errors".
inline constexpr const char* kErrorOps[] = {"read", "list", "readlink", "stat", "lstat", "canonical"};

// The largest amdml-host.json the rooted host reads, and so the largest a snapshot
// writes: what amdml records it must be able to read back.
inline constexpr std::size_t kMaxManifestBytes = 8 << 20;

// "snapshot": which amdml wrote the manifest and how. Informational: no probe reads it.
struct SnapshotMeta {
  std::string amdml_version;
  bool redacted = true;
  nlohmann::json options = nlohmann::json::object();  // the probe options recorded under
};

// The manifest as data. Absent keys are unknown (nullopt / empty): the rooted host
// answers for them as a machine that has nothing there.
struct HostManifest {
  std::optional<Uname> uname;                         // "uname"
  std::optional<Identity> identity;                   // "process" and "sudo_user"
  std::map<std::string, std::string> env;             // "env": the process environment
  std::optional<std::vector<DeviceNode>> devices;     // "devices": path -> node, in path order
  bool container_recorded = false;                    // "container" present (null: not in one)
  std::optional<ContainerKind> container;
  std::map<std::string, RecordedCommand> commands;    // "commands": argv joined by single spaces
  std::map<std::string, std::map<std::string, RecordedError>> errors;  // "errors": op -> path -> failure
  std::map<std::string, nlohmann::json> facts;        // every other top-level key ("hsa", "libdrm", ...)
  std::optional<SnapshotMeta> snapshot;               // "snapshot"
};

// Reads amdml-host.json. Strict about types (a value of the wrong kind is a one-line
// error naming the key, "amdml-host.json: env.X must be a string"), lenient about
// absent keys, and keys it does not know are kept as recorded facts. "snapshot" is
// informational and read leniently (fields of another kind are ignored).
Result<HostManifest> parse_host_manifest(const std::string& text);

// The JSON document for m: "format": 1 and every part m holds. What it writes,
// parse_host_manifest reads back to the same manifest.
nlohmann::json host_manifest_json(const HostManifest& m);


}  // namespace amdml::formats