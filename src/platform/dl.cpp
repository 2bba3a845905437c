// dlopen with a record of every attempt; see dl.hpp.
#include "platform/dl.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "platform/runtime_child.hpp"

namespace amdml::platform {

void* LoadedLibrary::symbol(const char* name, std::vector<std::string>& missing) const {
  void* p = handle ? ::dlsym(handle, name) : nullptr;
  if (!p) missing.emplace_back(name);
  return p;
}

LoadedLibrary load_first(const std::vector<std::string>& candidates) {
  LoadedLibrary lib;
  for (const auto& path : candidates) {
    LibraryAttempt a;
    a.path = path;
    if (path.find('/') != std::string::npos) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        a.error = std::string("not found: ") + std::strerror(errno);
        lib.attempts.push_back(std::move(a));
        continue;
      }
    }
    ::dlerror();
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      a.exists = true;
      lib.attempts.push_back(a);
      lib.handle = h;
      lib.path = path;
      // For a soname, say which file the loader picked.
      if (path.find('/') == std::string::npos) {
        Dl_info info{};
        void* any = ::dlsym(h, "hsa_init");
        if (!any) any = ::dlsym(h, "amdgpu_device_initialize");
        if (any && ::dladdr(any, &info) && info.dli_fname) lib.path = info.dli_fname;
      }
      return lib;
    }
    const char* err = ::dlerror();
    a.error = err ? err : "dlopen failed";
    // "libX.so.1: cannot open shared object file: No such file or directory" names the
    // library itself when it is absent; a missing dependency names the dependency.
    bool self_missing = a.error.starts_with(path + ":") && a.error.find("No such file") != std::string::npos;
    a.exists = !self_missing;
    if (self_missing) a.error = "not found on the library search path";
    lib.attempts.push_back(std::move(a));
  }
  return lib;
}

StdoutToStderr::StdoutToStderr() {
  std::fflush(stdout);
  saved_.reset(::fcntl(1, F_DUPFD_CLOEXEC, 3));
  if (saved_) ::dup2(2, 1);
}

StdoutToStderr::~StdoutToStderr() {
  if (!saved_) return;
  std::fflush(stdout);
  ::dup2(saved_.get(), 1);
  saved_.reset();
}

void probe_step(const char* name) {
  std::string line = std::string(kProbeStepMarker) + name + "\n";
  ssize_t ignored = ::write(2, line.data(), line.size());
  (void)ignored;
}

}  // namespace amdml::platform
