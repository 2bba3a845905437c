// Every installed ROCm by its channel, each told by its own files (rocm-2026.md §3):
//   legacy    /opt/rocm-X.Y.Z directories (AMD's packages to 7.2.x): .info/version
//   core-sdk  /opt/rocm/core-X.Y directories (TheRock's native packages, 7.14 and 10.x),
//             the per-target packages amdrocmX.Y-gfxNNNN from dpkg
//   deb       the distribution's libhsa-runtime64-1 in /var/lib/dpkg/status (Debian, Ubuntu)
//   rpm       the distribution's ROCm in /usr/lib64 (Fedora): rocm-core's rocm_version.h
//   pacman    hsa-rocr / rocm-core in /var/lib/pacman/local/*/desc (Arch, under /opt/rocm)
//   tarball   share/therock/dist_info.json under ROCM_PATH or a directory of /opt
// and (python.cpp) TheRock's wheels in each Python environment. The targets come from
// dist_info.json, the .kpack/*_gfxNNNN.kpack names or rocBLAS's library files, in that
// order. Only directories count: /opt/rocm-6.2.4.tar.gz or an installer .run is none.
#include <algorithm>
#include <cctype>

#include "base/text.hpp"
#include "formats/ml_outputs.hpp"
#include "formats/system_files.hpp"
#include "platform/host.hpp"
#include "probes/ml_probes.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

namespace {

bool is_real_dir(const platform::Host& h, const std::string& p) {
  auto st = h.lstat(p);
  return st && st->type == FileType::directory;
}

void add_target(RocmInstall& in, const GfxTarget& g) {
  if (std::find(in.targets.begin(), in.targets.end(), g) == in.targets.end()) in.targets.push_back(g);
}

// rocBLAS's Tensile files in dir name the targets; true when they named any.
bool rocblas_targets(const platform::Host& h, const std::string& dir, RocmInstall& in) {
  auto entries = h.list_dir(dir);
  if (!entries) return false;
  for (const auto& e : *entries)
    if (e.name.starts_with("TensileLibrary"))
      if (auto g = formats::mlparse::library_file_target(e.name)) add_target(in, *g);
  if (in.targets.empty()) return false;
  std::sort(in.targets.begin(), in.targets.end());
  in.targets_from = dir;
  return true;
}

// The targets a ROCm tree carries device code for, from its own files.
void read_targets(const platform::Host& h, Facts& f, const std::string& prefix, RocmInstall& in) {
  const std::string dist = mlpath::join(prefix, "share/therock/dist_info.json");
  if (auto text = h.read_file(dist, 1 << 20)) {
    if (auto t = formats::mlparse::therock_dist_targets(*text)) {
      in.targets = *t;
      in.targets_from = dist;
      return;
    } else {
      f.error("rocm", dist, t.error().message);
    }
  }
  const std::string kpack = mlpath::join(prefix, ".kpack");
  if (auto entries = h.list_dir(kpack)) {
    for (const auto& e : *entries)
      if (e.name.size() > 6 && e.name.compare(e.name.size() - 6, 6, ".kpack") == 0)
        if (auto g = formats::mlparse::library_file_target(e.name)) add_target(in, *g);
    if (!in.targets.empty()) {
      std::sort(in.targets.begin(), in.targets.end());
      in.targets_from = kpack + "/*.kpack";
      return;
    }
  }
  for (const char* lib : {"lib/rocblas/library", "lib64/rocblas/library"})
    if (rocblas_targets(h, mlpath::join(prefix, lib), in)) return;
}

// .info/version under prefix (rocm-core writes it; TheRock's tarballs carry it).
bool read_info_version(const platform::Host& h, const std::string& prefix, RocmInstall& in) {
  const std::string p = mlpath::join(prefix, ".info/version");
  auto text = h.read_file(p, 4096);
  if (!text) return false;
  std::string v(text::trim(*text));
  in.version = Version::parse(v);
  if (!in.version) return false;
  in.version_text = v;
  in.version_from = p;
  return true;
}

void legacy_and_core(const platform::Host& h, Facts& f, const std::map<std::string, std::string>& amdrocm) {
  auto& r = f.rocm;
  for (const auto& dir : r.installed) {
    RocmInstall in;
    // A TheRock tarball unpacked as /opt/rocm-7.14.1 is still a tarball.
    in.channel = h.exists(mlpath::join(dir, "share/therock/dist_info.json")) ? RocmChannel::tarball : RocmChannel::legacy;
    in.path = dir;
    if (!read_info_version(h, dir, in)) {
      in.version = Version::parse(dir.substr(dir.rfind("rocm-") + 5));
      in.version_text = dir.substr(dir.rfind("rocm-") + 5);
      in.version_from = "the directory name";
    }
    read_targets(h, f, dir, in);
    r.installs.push_back(std::move(in));
  }
  // The Core SDK: /opt/rocm is a directory of core-X.Y trees and alternatives links
  // (core, core-<major>, bin, lib, ...); only the X.Y trees are releases.
  if (!is_real_dir(h, "/opt/rocm")) return;
  auto entries = h.list_dir("/opt/rocm");
  if (!entries) return;
  std::vector<std::string> names;
  for (const auto& e : *entries)
    if (e.type == FileType::directory && e.name.starts_with("core-") && Version::parse(e.name.substr(5)))
      names.push_back(e.name);
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return *Version::parse(a.substr(5)) < *Version::parse(b.substr(5));
  });
  for (const auto& n : names) {
    RocmInstall in;
    in.channel = RocmChannel::core_sdk;
    in.path = "/opt/rocm/" + n;
    const std::string series = n.substr(5);  // "7.14"
    if (!read_info_version(h, in.path, in)) {
      in.version = Version::parse(series);
      in.version_text = series;
      in.version_from = "the directory name";
    }
    // amdrocm7.14-gfx1151, amdrocm-core-sdk7.14-gfx1151: the per-target packages of this series.
    for (const auto& [pkg, ver] : amdrocm) {
      auto at = pkg.find(series + "-gfx");
      if (!pkg.starts_with("amdrocm") || at == std::string::npos || std::isdigit(static_cast<unsigned char>(pkg[at - 1])))
        continue;
      if (auto g = GfxTarget::parse_name(pkg.substr(at + series.size() + 1))) {
        in.device_packages.push_back(pkg);
        add_target(in, *g);
      }
    }
    if (!in.targets.empty()) {
      std::sort(in.targets.begin(), in.targets.end());
      in.targets_from = "dpkg amdrocm" + series + "-gfx* packages";
    } else {
      read_targets(h, f, in.path, in);
    }
    r.installs.push_back(std::move(in));
  }
}

// The distribution's own ROCm: Debian/Ubuntu by dpkg, Fedora by its files, Arch by pacman.
void distribution(const platform::Host& h, Facts& f) {
  auto& r = f.rocm;
  if (auto it = r.packages.find("libhsa-runtime64-1"); it != r.packages.end()) {
    RocmInstall in;
    in.channel = RocmChannel::deb;
    in.path = "/usr";
    in.version_text = it->second;
    in.version = Version::parse(it->second);
    in.version_from = "dpkg libhsa-runtime64-1";
    for (const char* dir : {"/usr/lib/x86_64-linux-gnu/rocblas", "/usr/lib/aarch64-linux-gnu/rocblas"}) {
      auto vers = h.list_dir(dir);
      if (!vers) continue;
      for (const auto& v : *vers)  // Debian's rocblas/<version>/library
        if (rocblas_targets(h, mlpath::join(mlpath::join(dir, v.name), "library"), in)) break;
    }
    r.installs.push_back(std::move(in));
  }
  if (h.exists("/usr/lib64/libhsa-runtime64.so.1")) {
    RocmInstall in;
    in.channel = RocmChannel::rpm;
    in.path = "/usr";
    // rocm-core's header: "#define ROCM_VERSION_MAJOR 6" and so on.
    const std::string header = "/usr/include/rocm-core/rocm_version.h";
    if (auto text = h.read_file(header, 1 << 16)) {
      std::uint32_t parts[3] = {0, 0, 0};
      int found = 0;
      const char* keys[3] = {"ROCM_VERSION_MAJOR", "ROCM_VERSION_MINOR", "ROCM_VERSION_PATCH"};
      for (auto line : text::split_lines(*text))
        for (int k = 0; k < 3; ++k) {
          auto at = line.find(keys[k]);
          if (line.find("#define") == std::string_view::npos || at == std::string_view::npos) continue;
          auto num = text::trim(line.substr(at + std::string_view(keys[k]).size()));
          if (auto n = text::u64(num); n && *n < 1000) {
            parts[k] = static_cast<std::uint32_t>(*n);
            ++found;
          }
        }
      if (found == 3) {
        in.version = Version{parts[0], parts[1], parts[2]};
        in.version_text = in.version->str();
        in.version_from = header;
      }
    }
    read_targets(h, f, "/usr", in);  // /usr/lib64/rocblas/library
    if (r.source == RocmSource::distro && !r.version && in.version) {
      r.version = in.version;
      r.version_text = in.version_text;
    }
    r.installs.push_back(std::move(in));
  }
  auto local = h.list_dir("/var/lib/pacman/local");
  if (!local) return;
  for (const char* want : {"rocm-core-", "hsa-rocr-"}) {
    for (const auto& e : *local) {
      // "rocm-core-6.4.1-1": the package name, then version-release.
      if (!e.name.starts_with(want) || !Version::parse(e.name.substr(std::string_view(want).size()))) continue;
      const std::string desc = "/var/lib/pacman/local/" + e.name + "/desc";
      auto text = h.read_file(desc, 1 << 20);
      if (!text) continue;
      auto ver = formats::mlparse::pacman_desc_field(*text, "VERSION");
      if (!ver) continue;
      RocmInstall in;
      in.channel = RocmChannel::pacman;
      in.path = "/opt/rocm";
      in.version_text = *ver;
      in.version = Version::parse(*ver);
      in.version_from = desc;
      read_targets(h, f, "/opt/rocm", in);
      r.installs.push_back(std::move(in));
      return;
    }
  }
}

// TheRock tarballs unpacked under ROCM_PATH or a directory of /opt.
void tarballs(const platform::Host& h, Facts& f) {
  std::vector<std::string> candidates;
  if (auto opt = h.list_dir("/opt"))
    for (const auto& e : *opt)
      if (e.type == FileType::directory && !e.name.starts_with("rocm-")) candidates.push_back("/opt/" + e.name);
  std::sort(candidates.begin(), candidates.end());
  if (auto p = h.env("ROCM_PATH"); p && !p->empty() && (*p)[0] == '/') candidates.insert(candidates.begin(), *p);
  for (const auto& dir : candidates) {
    if (!h.exists(mlpath::join(dir, "share/therock/dist_info.json"))) continue;
    if (h.exists(mlpath::join(dir, "core/.info/version"))) continue;  // the Core SDK's alternatives, not a tarball
    auto canon = h.canonical(dir).value_or(dir);
    bool seen = std::any_of(f.rocm.installs.begin(), f.rocm.installs.end(), [&](const RocmInstall& i) {
      return i.path == dir || h.canonical(i.path).value_or(i.path) == canon;
    });
    if (seen) continue;
    RocmInstall in;
    in.channel = RocmChannel::tarball;
    in.path = dir;
    read_info_version(h, dir, in);
    read_targets(h, f, dir, in);
    f.rocm.installs.push_back(std::move(in));
  }
}

// The system ROCm the rocm probe found (ROCM_PATH, a plain /opt/rocm directory) when no
// channel above accounts for it: AMD's layout, version from its .info/version.
void system_prefix(const platform::Host& h, Facts& f) {
  const auto& r = f.rocm;
  if (!r.path || r.source == RocmSource::none || r.source == RocmSource::distro) return;
  const std::string where = r.resolved_path.value_or(*r.path);
  for (const auto& i : r.installs)
    if (i.path == where || i.path == *r.path || (i.channel == RocmChannel::core_sdk && where.starts_with(i.path))) return;
  RocmInstall in;
  in.channel = RocmChannel::legacy;
  in.path = where;
  read_info_version(h, where, in);
  read_targets(h, f, where, in);
  f.rocm.installs.push_back(std::move(in));
}

}  // namespace

void rocm_installs(const ProbeContext& ctx, Facts& f, const std::map<std::string, std::string>& amdrocm) {
  legacy_and_core(ctx.host, f, amdrocm);
  distribution(ctx.host, f);
  tarballs(ctx.host, f);
  system_prefix(ctx.host, f);
}

void rocm_pip_installs(Facts& f) {
  for (const auto& env : f.ml.python) {
    const auto& w = env.rocm_wheels;
    if (!w.any()) continue;
    RocmInstall in;
    in.channel = RocmChannel::pip;
    in.python_env = env.prefix;
    in.path = w.core_path.value_or(env.site_packages.empty() ? env.prefix : env.site_packages.front());
    const auto& v = w.rocm_version ? w.rocm_version : w.core_version ? w.core_version : w.libraries_version;
    if (v) {
      in.version_text = *v;
      in.version = Version::parse(*v);
      in.version_from = w.rocm_version ? "rocm dist-info" : w.core_version ? "rocm_sdk_core dist-info" : "rocm_sdk_libraries dist-info";
    }
    in.targets = w.device_targets;
    if (!in.targets.empty()) in.targets_from = "rocm_sdk_device_gfx*.dist-info";
    in.device_packages = w.device_packages;
    f.rocm.installs.push_back(std::move(in));
  }
}

}  // namespace amdml::probes
