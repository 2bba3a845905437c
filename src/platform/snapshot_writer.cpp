// Writing a snapshot tree and publishing it atomically; see snapshot_writer.hpp.
#include "platform/snapshot_writer.hpp"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/fd.hpp"
#include "base/paths.hpp"
#include "platform/fs.hpp"
#include "platform/process.hpp"

namespace amdml::platform {
namespace {

Error os_error(const std::string& what, int err) { return make_error(what + ": " + errno_text(err), err); }

// Creates every missing directory from base down to base + inner (inner starts with
// '/'). An existing component must be a real directory: never a symlink.
Status make_dirs(const std::string& base, const std::string& inner) {
  std::size_t pos = 1;
  while (pos <= inner.size()) {
    std::size_t slash = inner.find('/', pos);
    if (slash == std::string::npos) slash = inner.size();
    const std::string p = base + inner.substr(0, slash);
    if (::mkdir(p.c_str(), 0755) != 0) {
      if (errno != EEXIST) return os_error(p, errno);
      struct stat st {};
      if (::lstat(p.c_str(), &st) != 0) return os_error(p, errno);
      if (!S_ISDIR(st.st_mode)) return make_error(p + ": not a directory in the recorded tree", ENOTDIR);
    }
    pos = slash + 1;
  }
  return {};
}

Status write_new_file(const std::string& path, const std::string& content, unsigned mode) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd) return os_error(path, errno);
  AMDML_TRY_STATUS(write_fd(fd.get(), content, path));
  // The umask may have narrowed the mode; a replay must be able to read every file.
  if (::fchmod(fd.get(), mode) != 0) return os_error(path, errno);
  if (fd.close() != 0) return os_error(path, errno);
  return {};
}

bool dir_is_empty(const std::string& dir) {
  auto entries = list_real_dir(dir, dir);
  return entries && entries->empty();
}

}  // namespace

Result<std::string> make_temp_dir(const std::string& beside) {
  std::string path = paths::dirname(beside) + "/." + paths::basename(beside) + ".amdml-XXXXXX";
  if (!::mkdtemp(path.data())) return os_error(paths::dirname(beside), errno);
  ::chmod(path.c_str(), 0755);
  return path;
}

bool is_tarball_path(const std::string& out) { return out.ends_with(".tar.gz") || out.ends_with(".tgz"); }

std::string tarball_dir_name(const std::string& out) {
  std::string name = paths::basename(out);
  if (name.ends_with(".tgz")) name.resize(name.size() - 4);
  else if (name.ends_with(".tar.gz")) name.resize(name.size() - 7);
  if (name.empty() || name == "." || name == "..") name = "amdml-snapshot";
  return name;
}

Result<SnapshotStats> write_snapshot_tree(const formats::Recording& r, const std::string& manifest_text, const std::string& dir) {
  SnapshotStats stats;
  for (const auto& [inner, node] : r.tree) {
    if (inner.empty() || inner[0] != '/' || inner == "/") continue;
    if (inner.find("/../") != std::string::npos || inner.ends_with("/..")) continue;
    if (inner == "/amdml-host.json") continue;  // the manifest's own place
    AMDML_TRY_STATUS(make_dirs(dir, paths::dirname(inner) == "/" ? "" : paths::dirname(inner)));
    const std::string path = dir + inner;
    switch (node.kind) {
      case formats::SnapshotNode::Kind::directory:
        if (::mkdir(path.c_str(), (node.mode & 0777) | 0700) != 0) {
          struct stat st {};
          if (errno != EEXIST || ::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return os_error(path, errno);
        }
        ++stats.dirs;
        break;
      case formats::SnapshotNode::Kind::file:
      case formats::SnapshotNode::Kind::placeholder:
        AMDML_TRY_STATUS(write_new_file(path, node.kind == formats::SnapshotNode::Kind::file ? node.content : std::string(),
                                        (node.mode & 0777) | 0600));
        ++stats.files;
        stats.bytes += node.content.size();
        break;
      case formats::SnapshotNode::Kind::symlink:
        if (::symlink(node.target.c_str(), path.c_str()) != 0) return os_error(path, errno);
        ++stats.symlinks;
        break;
    }
  }
  AMDML_TRY_STATUS(write_new_file(dir + "/amdml-host.json", manifest_text, 0644));
  stats.bytes += manifest_text.size();
  return stats;
}

Status remove_tree(const std::string& dir) {
  int rc = ::nftw(
      dir.c_str(),
      [](const char* path, const struct stat*, int type, struct FTW*) -> int {
        return type == FTW_DP ? ::rmdir(path) : ::unlink(path);
      },
      32, FTW_DEPTH | FTW_PHYS);
  if (rc != 0) return os_error(dir, errno);
  return {};
}

Result<SnapshotStats> publish_snapshot(const formats::Recording& r, const std::string& manifest_text, const std::string& out_in,
                                       bool force) {
  std::string out = out_in;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out.empty()) return make_error("snapshot: empty output path");
  const bool tarball = is_tarball_path(out);
  struct stat st {};
  const bool exists = ::lstat(out.c_str(), &st) == 0;
  if (exists) {
    if (tarball) {
      if (!S_ISREG(st.st_mode)) return make_error(out + ": exists and is not a regular file");
      if (!force) return make_error(out + ": already exists (use --force to replace it)");
    } else {
      if (!S_ISDIR(st.st_mode)) return make_error(out + ": exists and is not a directory");
      if (!dir_is_empty(out)) {
        if (!force) return make_error(out + ": directory is not empty (use --force to replace it)");
        struct stat m {};
        if (::lstat((out + "/amdml-host.json").c_str(), &m) != 0)
          return make_error(out + ": not an amdml snapshot (no amdml-host.json); refusing to replace it");
      }
    }
  }
  auto tmp = make_temp_dir(out);
  if (!tmp) return tmp.error();
  auto fail = [&](Error e) -> Result<SnapshotStats> {
    (void)remove_tree(*tmp);
    return e;
  };

  if (tarball) {
    // The tarball holds one directory named after it (OUT.tar.gz -> OUT/).
    const std::string name = tarball_dir_name(out);
    const std::string tree_dir = *tmp + "/" + name;
    if (::mkdir(tree_dir.c_str(), 0755) != 0) return fail(os_error(tree_dir, errno));
    auto stats = write_snapshot_tree(r, manifest_text, tree_dir);
    if (!stats) return fail(stats.error());
    const std::string tar_tmp = *tmp + "/snapshot.tar.gz";
    RunOptions ro;
    ro.timeout = std::chrono::milliseconds(120000);
    auto run = run_command({"tar", "--create", "--gzip", "--file", tar_tmp, "--owner=0", "--group=0", "--numeric-owner",
                            "-C", *tmp, name},
                           ro);
    if (!run) return fail(make_error("tar: " + run.error().message, run.error().code));
    if (run->exit_code != 0) {
      std::string err = run->err.substr(0, run->err.find('\n'));
      return fail(make_error("tar failed" + (err.empty() ? std::string() : ": " + err)));
    }
    if (::rename(tar_tmp.c_str(), out.c_str()) != 0) return fail(os_error(out, errno));
    (void)remove_tree(*tmp);
    return *stats;
  }

  auto stats = write_snapshot_tree(r, manifest_text, *tmp);
  if (!stats) return fail(stats.error());
  if (::rename(tmp->c_str(), out.c_str()) == 0) return *stats;
  if (errno != ENOTEMPTY && errno != EEXIST) return fail(os_error(out, errno));
  // Replacing an earlier snapshot (--force): move it aside, move the new one in, then
  // delete the old one.
  auto old = make_temp_dir(out);
  if (!old) return fail(old.error());
  ::rmdir(old->c_str());
  if (::rename(out.c_str(), old->c_str()) != 0) return fail(os_error(out, errno));
  if (::rename(tmp->c_str(), out.c_str()) != 0) {
    int err = errno;
    ::rename(old->c_str(), out.c_str());
    return fail(os_error(out, err));
  }
  (void)remove_tree(*old);
  return *stats;
}

}  // namespace amdml::platform
