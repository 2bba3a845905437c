// RecordingHost: forward, then note what came back (see host_recording.hpp).
#include "formats/kmsg.hpp"
#include "formats/system_files.hpp"
#include "base/text.hpp"
#include "platform/host_recording.hpp"

#include <cerrno>

namespace amdml::platform {
namespace {

constexpr int kMaxSymlinkHops = 40;

std::string child_path(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

bool under_dev(const std::string& p) { return p == "/dev" || p.starts_with("/dev/"); }

}  // namespace

formats::Recording RecordingHost::recording() const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return rec_;
}

std::optional<FileStat> RecordingHost::lstat_cached(const std::string& p) const {
  auto it = lstat_cache_.find(p);
  if (it != lstat_cache_.end()) return it->second;
  auto st = inner_.lstat(p);
  std::optional<FileStat> v;
  if (st) v = *st;
  lstat_cache_[p] = v;
  return v;
}

void RecordingHost::note_type(const std::string& p, FileType type, std::uint32_t mode) const {
  if (p == "/") return;
  auto it = rec_.tree.find(p);
  if (it != rec_.tree.end()) it->second.listed_only = false;
  if (it != rec_.tree.end() && it->second.kind != formats::SnapshotNode::Kind::placeholder) return;
  formats::SnapshotNode n;
  n.mode = mode;
  switch (type) {
    case FileType::directory: n.kind = formats::SnapshotNode::Kind::directory; break;
    case FileType::regular: n.kind = formats::SnapshotNode::Kind::placeholder; break;
    case FileType::symlink: return;  // links are recorded with their target by trace()
    default:
      // Device nodes under /dev are the manifest's "devices"; a special file elsewhere
      // can only be seen (stat), so an empty file stands in for it.
      if (under_dev(p)) return;
      n.kind = formats::SnapshotNode::Kind::placeholder;
  }
  rec_.tree[p] = std::move(n);
}

std::optional<std::string> RecordingHost::trace(const std::string& path, bool follow_last) const {
  // Every component walked is recorded: directories and files by type, links with their
  // target (a file that is asked for children is not: the walk fails there).
  auto lookup = [&](const std::string& p, bool more) {
    paths::PathNode n;
    auto st = lstat_cached(p);
    if (!st) return n;
    if (st->type != FileType::symlink) {
      n.kind = st->type == FileType::directory ? paths::PathNode::Kind::directory : paths::PathNode::Kind::other;
      if (!more || st->type == FileType::directory) note_type(p, st->type, st->mode);
      return n;
    }
    auto target = inner_.read_link(p);
    if (!target) return n;
    formats::SnapshotNode link;
    link.kind = formats::SnapshotNode::Kind::symlink;
    link.target = *target;
    rec_.tree[p] = link;
    n.kind = paths::PathNode::Kind::symlink;
    n.target = *target;
    return n;
  };
  return paths::resolve_path(path, follow_last, kMaxSymlinkHops, lookup);
}

void RecordingHost::note_error(const char* op, const std::string& path, const Error& e) const {
  rec_.errors[op][path] = formats::RecordedError{e.code, e.message};
}

Result<std::string> RecordingHost::read_file(const std::string& path, std::size_t limit) const {
  auto r = inner_.read_file(path, limit);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto real = trace(path, true);
  if (!r) {
    note_error("read", path, r.error());
    return r;
  }
  if (real && *real != "/") {
    formats::SnapshotNode& n = rec_.tree[*real];
    n.kind = formats::SnapshotNode::Kind::file;
    n.listed_only = false;
    n.content = *r;
    if (auto st = lstat_cached(*real)) n.mode = st->mode;
  }
  return r;
}

Result<KernelLogText> RecordingHost::kernel_log(std::size_t max_bytes, std::chrono::milliseconds timeout) const {
  auto r = inner_.kernel_log(max_bytes, timeout);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!r) {
    note_error("read", "/dev/kmsg", r.error());
    return r;
  }
  auto parsed = formats::kmsg::parse(r->records);
  std::vector<formats::kmsg::Record> kept;
  for (auto& rec : parsed.records)
    if (formats::kmsg::gpu_relevant(rec.text)) {
      rec.text = formats::kmsg::mask_macs(rec.text);
      kept.push_back(std::move(rec));
    }
  note_file("/dev/kmsg", formats::kmsg::write(kept));
  return r;
}

Result<std::string> RecordingHost::service_journal(const std::string& unit, std::size_t max_bytes,
                                                   std::chrono::milliseconds timeout) const {
  auto r = inner_.service_journal(unit, max_bytes, timeout);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (!r) {
    note_error("read", recorded_journal_path(unit), r.error());
    return r;
  }
  note_file(recorded_journal_path(unit), *r);
  return r;
}

// A file the recording makes up from what the host answered (not read from a path):
// its directories are added as they would be on replay.
void RecordingHost::note_file(const std::string& path, std::string content) const {
  for (auto slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (rec_.tree.count(dir)) continue;
    formats::SnapshotNode d;
    d.kind = formats::SnapshotNode::Kind::directory;
    d.mode = 0755;
    rec_.tree[dir] = d;
  }
  formats::SnapshotNode n;
  n.kind = formats::SnapshotNode::Kind::file;
  n.mode = 0644;
  n.content = std::move(content);
  rec_.tree[path] = std::move(n);
}

Result<std::vector<DirEntry>> RecordingHost::list_dir(const std::string& path) const {
  auto r = inner_.list_dir(path);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto real = trace(path, true);
  if (!r) {
    note_error("list", path, r.error());
    return r;
  }
  if (!real) return r;
  if (*real != "/") {
    auto& dir = rec_.tree[*real];
    dir.kind = formats::SnapshotNode::Kind::directory;
    if (auto st = lstat_cached(*real)) dir.mode = st->mode;
  }
  // Every entry must be there on replay, with its type, even if nothing looked inside.
  for (const auto& e : *r) {
    const std::string child = child_path(*real, e.name);
    if (rec_.tree.count(child)) continue;
    formats::SnapshotNode n;
    switch (e.type) {
      case FileType::directory:
        n.kind = formats::SnapshotNode::Kind::directory;
        n.mode = 0755;
        break;
      case FileType::symlink: {
        auto target = inner_.read_link(child_path(path, e.name));
        if (!target) continue;
        n.kind = formats::SnapshotNode::Kind::symlink;
        n.target = *target;
        break;
      }
      case FileType::other: continue;
      default:
        if (e.type != FileType::regular && under_dev(child)) continue;
        n.kind = formats::SnapshotNode::Kind::placeholder;
    }
    n.listed_only = true;
    rec_.tree[child] = std::move(n);
  }
  return r;
}

Result<std::string> RecordingHost::read_link(const std::string& path) const {
  auto r = inner_.read_link(path);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  trace(path, false);
  if (!r) note_error("readlink", path, r.error());
  return r;
}

Result<FileStat> RecordingHost::stat(const std::string& path) const {
  auto r = inner_.stat(path);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  trace(path, true);
  if (!r) note_error("stat", path, r.error());
  return r;
}

Result<FileStat> RecordingHost::lstat(const std::string& path) const {
  auto r = inner_.lstat(path);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  trace(path, false);
  if (!r) note_error("lstat", path, r.error());
  return r;
}

Result<std::string> RecordingHost::canonical(const std::string& path) const {
  auto r = inner_.canonical(path);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  trace(path, true);
  if (!r) note_error("canonical", path, r.error());
  return r;
}

Identity RecordingHost::identity() const {
  Identity id = inner_.identity();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  rec_.identity = id;
  return id;
}

std::optional<std::string> RecordingHost::env(const std::string& name) const {
  auto v = inner_.env(name);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  rec_.env_asked.insert(name);
  if (v) rec_.env[name] = *v;
  return v;
}

std::map<std::string, std::string> RecordingHost::environment() const {
  auto m = inner_.environment();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (const auto& [k, v] : m) rec_.env[k] = v;
  return m;
}

Uname RecordingHost::uname() const {
  Uname u = inner_.uname();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  rec_.uname = u;
  return u;
}

std::optional<std::vector<DeviceNode>> RecordingHost::devices() const {
  auto d = inner_.devices();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  rec_.devices_asked = true;
  rec_.devices = d;
  return d;
}

std::optional<ContainerKind> RecordingHost::container() const {
  auto c = inner_.container();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  rec_.container_asked = true;
  rec_.container = c;
  return c;
}

std::optional<nlohmann::json> RecordingHost::recorded(const std::string& key) const {
  auto v = inner_.recorded(key);
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (v && !rec_.facts.count(key)) rec_.facts[key] = *v;
  return v;
}

Result<CommandResult> RecordingHost::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) const {
  auto r = inner_.run(argv, timeout);
  // Words joined by one blank, an empty first word too (" x" stays " x").
  const std::string key = text::join(argv, " ");
  std::lock_guard<std::recursive_mutex> lock(mu_);
  formats::RecordedCommand c;
  if (r) c.result = *r;
  else c.error = r.error();
  rec_.commands[key] = std::move(c);
  return r;
}

void RecordingHost::record_fact(const std::string& key, const nlohmann::json& value) const {
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    rec_.facts[key] = value;
  }
  inner_.record_fact(key, value);
}

}  // namespace amdml::platform
