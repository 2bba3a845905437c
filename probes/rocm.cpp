// ROCm user space: ROCM_PATH, /opt/rocm (a symlink to /opt/rocm-X.Y.Z) and its
// .info/version, or Debian/Ubuntu's own packages under /usr (version from dpkg).
#include <algorithm>
#include <cctype>
#include <cerrno>

#include "formats/system_files.hpp"
#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"
#include "probes/ml_probes.hpp"

namespace amdml::probes {

static const char* kSystemLibDirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
                                       "/usr/lib"};

// Whether a package name is part of a ROCm: AMD's (rocm-*, hip*, hsa-*, comgr, amdgpu-dkms)
// or the distribution's (libhsa-runtime64-1, libamdhip64-5, rocminfo, librocblas0, ...).
static bool rocm_package(std::string_view n) {
  for (const char* p : {"rocm", "hip", "hsa-", "libhsa", "libhsakmt", "libamdhip", "libamd-comgr", "comgr", "librocm",
                        "librocblas", "rocblas", "libhipblas", "miopen", "libmiopen", "rccl", "amdgpu-dkms", "amdgpu-install",
                        "rocminfo"})
    if (n.starts_with(p)) return true;
  return false;
}

static bool amdrocm_package(std::string_view n) { return n.starts_with("amdrocm"); }

void rocm(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto& r = f.rocm;
  // One pass over dpkg's status: the ROCm packages, and TheRock's native amdrocm* ones
  // (amdrocm7.14, amdrocm10.1-gfx1201) the channel probe reads the Core SDK's targets from.
  std::map<std::string, std::string> amdrocm;
  // Only these packages' stanzas are parsed (formats::parse::dpkg_packages); libhsa-runtime64-1,
  // the distribution's runtime, is among them.
  if (auto st = h.read_file("/var/lib/dpkg/status", 64 << 20)) {
    std::map<std::string, std::string> firmware;  // linux-firmware: the firmware probe's, read in this pass
    for (auto& p : formats::parse::dpkg_packages(*st, [](std::string_view n) {
           return rocm_package(n) || amdrocm_package(n) || linux_firmware_package(n);
         }))
      if (p.installed())
        (linux_firmware_package(p.name) ? firmware : amdrocm_package(p.name) ? amdrocm : r.packages)[p.name] =
            std::move(p.version);
    firmware_from_dpkg(firmware, f);
    r.dpkg_status = true;
  }
  if (auto opt = h.list_dir("/opt")) {
    // Releases only: "rocm-" and a digit. A directory amdml moved aside (rocm-install,
    // "amdml-set-aside-rocm-6.2.4") or rocm-current is none.
    // Directories only, named by a version: /opt/rocm-6.2.4.tar.gz or an installer's .run
    // left in /opt is no release (Version::parse refuses "6.2.4.tar.gz").
    for (const auto& e : *opt)
      if (e.name.starts_with("rocm-") && Version::parse(e.name.substr(5)) && mlpath::is_dir(h, "/opt/" + e.name))
        r.installed.push_back("/opt/" + e.name);
  }
  auto try_prefix = [&](const std::string& prefix, RocmSource src) {
    if (auto st = h.stat(prefix); !st) {
      // Absent is the normal "not here"; a loop or an unreadable link is worth saying.
      if (st.error().code != ENOENT && st.error().code != ENOTDIR) f.error("rocm", prefix, st.error().message);
      return false;
    }
    r.source = src;
    r.path = prefix;
    if (auto c = h.canonical(prefix)) r.resolved_path = *c;
    // The Core SDK's /opt/rocm holds no .info of its own: its "core" alternative names
    // the release in use (/opt/rocm/core -> /opt/rocm/core-7.14).
    if (!h.exists(prefix + "/.info/version") && h.exists(prefix + "/core/.info/version")) {
      if (auto c = h.canonical(prefix + "/core")) r.resolved_path = *c;
      if (auto v = read_value(h, f, "rocm", prefix + "/core/.info/version")) {
        r.version_text = *v;
        r.version = Version::parse(*v);
      }
    } else if (auto v = read_value(h, f, "rocm", prefix + "/.info/version")) {
      r.version_text = *v;
      r.version = Version::parse(*v);
      if (!r.version) f.error("rocm", prefix + "/.info/version", "no X.Y.Z version in \"" + v->substr(0, 40) + "\"");
    } else if (r.resolved_path) {
      auto slash = r.resolved_path->rfind("rocm-");
      if (slash != std::string::npos) r.version = Version::parse(r.resolved_path->substr(slash + 5));
    }
    for (const char* lib : {"/lib/libhsa-runtime64.so.1", "/lib64/libhsa-runtime64.so.1"})
      if (h.exists(prefix + lib)) {
        r.hsa_library = prefix + lib;
        break;
      }
    return true;
  };
  bool found = false;
  if (auto p = h.env("ROCM_PATH"); p && !p->empty() && (*p)[0] == '/') found = try_prefix(*p, RocmSource::rocm_path);
  if (!found) found = try_prefix("/opt/rocm", RocmSource::opt_rocm);
  if (!found && !r.installed.empty()) {
    // The newest by version, not by name: rocm-6.10.0 sorts before rocm-6.9.0.
    auto newest = std::max_element(r.installed.begin(), r.installed.end(), [](const std::string& a, const std::string& b) {
      return Version::parse(a.substr(10)).value_or(Version{}) < Version::parse(b.substr(10)).value_or(Version{});
    });
    found = try_prefix(*newest, RocmSource::opt_rocm);
  }
  if (!found) {
    for (const char* dir : kSystemLibDirs) {
      std::string lib = std::string(dir) + "/libhsa-runtime64.so.1";
      if (!h.exists(lib)) continue;
      r.source = RocmSource::distro;
      r.path = "/usr";
      r.hsa_library = lib;
      if (auto v = r.packages.find("libhsa-runtime64-1"); v != r.packages.end()) {
        r.version_text = v->second;
        r.version = Version::parse(v->second);
      }
      break;
    }
  }
  rocm_installs(ctx, f, amdrocm);
}

}  // namespace amdml::probes
