// Snapshots: what a recording Host saw, as plain data, and the pure transforms between
// that record and what `amdml snapshot` writes -- the size policy, redaction and the
// amdml-host.json manifest.
//
// The record is filled by the recording Host decorator (src/platform/host_recording.hpp)
// while the ordinary probes run, so it holds exactly what they read: no list of paths
// is kept anywhere else. Writing it out (src/platform/snapshot_writer.hpp) gives a
// --root tree that replays the same facts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/host.hpp"
#include "base/result.hpp"
#include "formats/host_manifest.hpp"
#include "formats/secrets.hpp"

namespace amdml::formats {

// One path of the recorded tree: an absolute path inside the host. Files and
// directories sit at their symlink-free location; a symlink node is the link itself,
// so the chain a probe walked is rebuilt link by link.
struct SnapshotNode {
  enum class Kind {
    directory,
    file,         // content holds the bytes the probe read
    symlink,      // target holds readlink()'s text, relative or absolute as found
    placeholder,  // a regular file (or a special file outside /dev) that was seen -- by stat
                  // or in a listing -- but never read: written empty
  };
  Kind kind = Kind::placeholder;
  std::string content;
  std::string target;
  std::uint32_t mode = 0644;  // permission bits as seen (files, placeholders, directories)
  bool listed_only = false;   // known only from a parent's listing (never read, stat'ed or walked)
};

struct Recording {
  std::map<std::string, SnapshotNode> tree;                            // inner path -> node
  std::map<std::string, std::map<std::string, RecordedError>> errors;  // op -> path -> error
  std::optional<Identity> identity;
  std::optional<Uname> uname;
  std::map<std::string, std::string> env;  // every variable the host handed out
  std::set<std::string> env_asked;         // names a probe asked for one by one
  bool devices_asked = false;
  std::optional<std::vector<DeviceNode>> devices;
  bool container_asked = false;
  std::optional<ContainerKind> container;
  std::map<std::string, nlohmann::json> facts;          // record_fact() and recorded() values
  std::map<std::string, RecordedCommand> commands;      // argv joined by single spaces
};

// ---- Size policy -------------------------------------------------------------------

// Files a probe reads in full but needs only a part of are cut down to that part, so a
// snapshot of a big node stays small: /var/lib/dpkg/status keeps the stanzas of GPU,
// ROCm and ML packages (see docs/snapshot.md for the list). Returns the trimmed paths.
std::vector<std::string> trim_recording(Recording& r);

// True for dpkg package names the ROCm and ML probes may look up.
bool is_snapshot_relevant_package(const std::string& name);

// ---- Redaction ---------------------------------------------------------------------

struct RedactOptions {
  // Replace user names, home directories, host names, serial numbers and UUIDs
  // (--no-redact turns this off). Secrets are dropped and scrubbed either way.
  bool identities = true;
  // Names kept from the full environment (the probes' own list); names a probe asked
  // for one by one are kept too. Null keeps every name.
  std::function<bool(const std::string&)> relevant_env;
  // The machine's host names, looked up outside the recording (no probe needs
  // /etc/hostname, but the name can still show up in outputs and files).
  std::vector<std::string> host_names;
};

struct RedactionSummary {
  std::vector<std::string> users;  // the replacements used: "user1", ...
  std::vector<std::string> hosts;  // "host1", ...
  int homes = 0;                   // home directories replaced
  int serials = 0;                 // serial numbers and unique ids
  int uuids = 0;
  std::vector<std::string> env_kept;     // names
  std::vector<std::string> env_dropped;  // names only, never values
  int secrets_scrubbed = 0;              // secret-looking values cut from files and outputs
  int home_files_pruned = 0;             // names of personal files seen only in listings
  std::vector<std::string> lines() const;  // human summary, one fact per line
};

// A consistent replacement map learned from one recording: the same user, host or
// serial becomes the same placeholder in every file, path, variable and output.
class Redactor {
 public:
  static Redactor learn(const Recording& r, const RedactOptions& options);

  // Rewrites the recording in place: file contents, paths, symlink targets, identity,
  // uname, environment, facts, commands and recorded errors. Secrets (formats/secrets.hpp)
  // are cut from all of them whatever the options.
  void apply(Recording& r);
  // The same replacements on any text (the rendered report, a JSON dump).
  std::string text(const std::string& s) const;
  const RedactionSummary& summary() const { return summary_; }

 private:
  RedactOptions options_;
  std::vector<std::pair<std::string, std::string>> literal_;   // replaced anywhere (homes)
  std::vector<std::pair<std::string, std::string>> tokens_;    // replaced between word boundaries
  std::set<std::string> secret_values_;                        // dropped env values, scrubbed anywhere
  std::set<std::string> redacted_users_;                       // original names (passwd GECOS blanking)
  mutable std::map<std::string, std::string> uuid_map_;
  mutable std::map<std::uint64_t, std::uint64_t> unique_id_map_;
  mutable int secrets_ = 0;
  RedactionSummary summary_;

  std::string scrub_secrets(const std::string& s) const;
  std::string replace_ids(const std::string& s) const;
  std::uint64_t fake_unique_id(std::uint64_t v) const;
  // A string under a secret JSON key ("api_key": "...") is cut whole.
  nlohmann::json json_value(const nlohmann::json& j, bool secret_key = false) const;
};

// ---- Manifest ----------------------------------------------------------------------

// amdml-host.json for the recording (formats/host_manifest.hpp writes it): format 1,
// uname, process, sudo_user, env, devices, container, commands, errors (less the
// "does not exist" ones the written tree replays by itself), every recorded fact, and
// "snapshot" (meta).
nlohmann::json snapshot_manifest(const Recording& r, const SnapshotMeta& meta);

}  // namespace amdml::formats