// Putting a finished recording on disk: the --root tree (files at their paths,
// symlinks as symlinks, listed directories, amdml-host.json) in a directory or a
// .tar.gz. Everything is written into a fresh temporary directory beside the target
// and renamed into place, so a failure leaves nothing half-written; nothing written
// ever follows a symlink (the tree holds recorded, possibly absolute, links).
#pragma once

#include <string>

#include "base/result.hpp"
#include "formats/snapshot.hpp"

namespace amdml::platform {

struct SnapshotStats {
  std::size_t files = 0;     // regular files (placeholders included)
  std::size_t symlinks = 0;
  std::size_t dirs = 0;
  std::uint64_t bytes = 0;   // file contents plus the manifest, uncompressed
};

// True for OUT.tar.gz and OUT.tgz.
bool is_tarball_path(const std::string& out);
// The one directory a snapshot tarball holds: its file name without .tar.gz/.tgz.
std::string tarball_dir_name(const std::string& out);

// Writes the tree and manifest_text (amdml-host.json) into dir, which must exist and
// be empty.
Result<SnapshotStats> write_snapshot_tree(const formats::Recording& r, const std::string& manifest_text, const std::string& dir);

// Writes the snapshot to out: a directory (refused when it exists and is not empty,
// unless force -- and even then only when it is an earlier snapshot, i.e. holds
// amdml-host.json) or, for a .tar.gz name, a tarball made by running tar (numeric
// owner 0, so no local user name lands in its headers).
Result<SnapshotStats> publish_snapshot(const formats::Recording& r, const std::string& manifest_text, const std::string& out,
                                       bool force);

// Creates a fresh private directory next to path (".NAME.amdml-XXXXXX").
Result<std::string> make_temp_dir(const std::string& beside);

// Removes a directory tree without following symlinks.
Status remove_tree(const std::string& dir);

}  // namespace amdml::platform
