// Loading a service through the Host; see service_unit.hpp.
#include "probes/service_unit.hpp"
#include "platform/host.hpp"

#include <map>
#include <set>

namespace amdml::probes {

LoadedService load_service(const platform::Host& host, const std::string& unit) {
  LoadedService out;
  std::vector<systemd::ParsedUnit> parsed;
  for (const auto& dir : formats::systemd_unit::system_unit_dirs()) {
    std::string p = dir + "/" + unit;
    auto st = host.lstat(p);
    if (!st) continue;
    if (st->type == FileType::symlink) {
      auto target = host.read_link(p);
      if (target && *target == "/dev/null") {
        out.unit_path = p;
        out.masked = true;
        return out;
      }
    }
    auto text = host.read_file(p);
    if (!text) {
      out.config.issues.push_back({systemd::UnitIssue::Kind::syntax, p, 0, p, "cannot read: " + text.error().message});
      continue;
    }
    out.unit_path = p;
    parsed.push_back(formats::systemd_unit::parse_unit_text(*text, p));
    break;
  }
  // Drop-in directories: the unit's own, then the type-wide one ("service.d"); within
  // each, the search directories in priority order. The first directory to provide a
  // file name owns it.
  std::vector<std::string> dropin_dirs;
  auto dot = unit.rfind('.');
  std::string type = dot == std::string::npos ? "" : unit.substr(dot + 1);
  for (const auto& dir : formats::systemd_unit::system_unit_dirs()) dropin_dirs.push_back(dir + "/" + unit + ".d");
  if (!type.empty())
    for (const auto& dir : formats::systemd_unit::system_unit_dirs()) dropin_dirs.push_back(dir + "/" + type + ".d");
  std::map<std::string, std::string> by_name;  // file name -> full path (sorted by name)
  std::set<std::string> seen_dirs;
  for (const auto& d : dropin_dirs) {
    // /lib is often a symlink to /usr/lib: one directory read twice must not count twice
    auto canon = host.canonical(d);
    std::string key = canon ? *canon : d;
    if (!seen_dirs.insert(key).second) continue;
    auto entries = host.list_dir(d);
    if (!entries) continue;
    for (const auto& e : *entries) {
      if (e.name.size() <= 5 || e.name.compare(e.name.size() - 5, 5, ".conf") != 0) continue;
      if (e.type == FileType::directory) continue;
      by_name.emplace(e.name, d + "/" + e.name);
    }
  }
  if (!out.unit_path && by_name.empty()) return out;
  std::vector<std::string> dropin_paths;
  for (const auto& [name, path] : by_name) {
    auto st = host.lstat(path);
    if (st && st->type == FileType::symlink) {
      auto target = host.read_link(path);
      if (target && *target == "/dev/null") continue;  // a masked drop-in
    }
    auto text = host.read_file(path);
    if (!text) {
      out.config.issues.push_back({systemd::UnitIssue::Kind::syntax, path, 0, path, "cannot read: " + text.error().message});
      continue;
    }
    parsed.push_back(formats::systemd_unit::parse_unit_text(*text, path));
    dropin_paths.push_back(path);
  }
  auto earlier = std::move(out.config.issues);
  out.config = formats::systemd_unit::merge_service(parsed);
  out.config.issues.insert(out.config.issues.begin(), earlier.begin(), earlier.end());
  if (out.unit_path) out.config.files.push_back(*out.unit_path);
  for (const auto& path : dropin_paths) out.config.files.push_back(path);
  formats::systemd_unit::apply_env_files(out.config, &host, [](const void* ctx, const std::string& path) -> Result<std::string> {
    return static_cast<const platform::Host*>(ctx)->read_file(path, 1 << 20);
  });
  return out;
}

}  // namespace amdml::probes