// dlopen for the runtime probes' children: the first loadable library from a list of
// candidates, with what each attempt said, and the guard that keeps a loaded
// library's chatter off stdout.
#pragma once

#include <string>
#include <vector>

#include "amdml/facts_runtime.hpp"
#include "base/fd.hpp"

namespace amdml::platform {

struct LoadedLibrary {
  void* handle = nullptr;  // never dlclose'd: the child exits soon after and runtimes
                           // with threads do not survive being unloaded
  std::string path;
  std::vector<LibraryAttempt> attempts;
  // The address of symbol, or nullptr (and the name is added to missing).
  void* symbol(const char* name, std::vector<std::string>& missing) const;
  // Typed: sets slot to the symbol as a function pointer of its own type.
  template <class F>
  void bind(F& slot, const char* name, std::vector<std::string>& missing) const {
    slot = reinterpret_cast<F>(symbol(name, missing));
  }
};

// Tries each candidate with RTLD_NOW | RTLD_LOCAL. An absolute path that does not exist
// is recorded as such without calling dlopen; a plain soname counts as found unless
// the loader says it could not find that very name.
LoadedLibrary load_first(const std::vector<std::string>& candidates);

// load_first, reported the way both runtime children answer (HsaFacts, LibdrmFacts):
// the attempts, then the library that loaded, or the outcome not_installed when none did.
template <class RuntimeFacts>
LoadedLibrary load_first_reporting(const std::vector<std::string>& candidates, RuntimeFacts& out) {
  LoadedLibrary lib = load_first(candidates);
  out.attempts = lib.attempts;
  if (lib.handle) out.library = lib.path;
  else out.outcome = HsaOutcome::not_installed;
  return lib;
}

// While alive, file descriptor 1 points at stderr; the destructor puts stdout back.
class StdoutToStderr {
 public:
  StdoutToStderr();
  ~StdoutToStderr();
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  Fd saved_;
};

// Writes "amdml-probe: step <name>" to stderr (unbuffered), so a parent that has to
// kill or bury the child knows how far it got.
void probe_step(const char* name);

}  // namespace amdml::platform
