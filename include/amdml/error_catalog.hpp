// The catalogue of error messages people paste (recipes/errors/*.toml): each entry is a
// message seen in public reports -- its match patterns, what it means, and its causes,
// most likely first, each tied to the finding ids and machine facts that confirm it or
// rule it out. `amdml explain "<error text>"` and `amdml explain -` match text against
// it (rules/error_explain.hpp) and check each cause on the machine.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts_boot.hpp"
#include "amdml/finding_id.hpp"

namespace amdml {

// A fact about this machine that a cause can be checked against: it holds, it does not,
// or it is not known. Closed set; the names are what the catalogue spells.
enum class ErrorCheck {
  amd_gpu,          // "amd-gpu": an AMD GPU on PCI
  driver_loaded,    // "driver-loaded": /sys/module/amdgpu
  kfd_gpu,          // "kfd-gpu": KFD's topology lists a GPU node
  kfd_access,       // "kfd-access": this user can open /dev/kfd
  rocm,             // "rocm": a ROCm runtime is installed
  override_set,     // "override": HSA_OVERRIDE_GFX_VERSION is set
  visible_devices,  // "visible-devices": HIP/ROCR/CUDA_VISIBLE_DEVICES is set
  secure_boot,      // "secure-boot": Secure Boot is on
  dkms,             // "dkms": AMD's amdgpu-dkms is installed for the running kernel
  blacklist,        // "blacklist": amdgpu blacklisted, nomodeset, amdgpu.modeset=0
  container,        // "container": amdml runs inside a container
  apu,              // "apu": a GPU is an APU
  torch_rocm,       // "torch-rocm": an installed PyTorch is a ROCm build
  ollama,           // "ollama": ollama is installed
};
const char* to_string(ErrorCheck c);
std::optional<ErrorCheck> parse_error_check(std::string_view name);

// One check of a cause: the fact must hold (or, negated, must not).
struct CauseCheck {
  ErrorCheck check = ErrorCheck::amd_gpu;
  bool negate = false;  // "!driver-loaded": the cause needs amdgpu NOT loaded
};

struct ErrorCause {
  std::string text;                // what is wrong, one sentence
  std::vector<FindingId> findings;  // the doctor reporting any of these confirms it
  std::vector<CauseCheck> checks;   // all holding confirms it; one failing rules it out
  std::string fix;                  // what to do (may be empty: the finding's own fix says it)
};

// A piece of a match pattern: literal text (matched case-insensitively) or a capture.
enum class CaptureKind {
  gfx,   // {gfx}: gfx followed by 2-4 hex digits
  num,   // {num}: an optional '-' and digits
  word,  // {word}: a run of bytes other than blanks and quotes
  text,  // {text}: anything, as little as lets the rest match
};
const char* to_string(CaptureKind k);

struct PatternPart {
  bool capture = false;
  std::string literal;  // lower case
  CaptureKind kind = CaptureKind::text;
};

struct ErrorPattern {
  std::string source;  // as written in the catalogue
  std::vector<PatternPart> parts;
  std::size_t literal_size = 0;  // bytes of literal text: how specific a match is
};

struct ErrorEntry {
  std::string id;       // "hip.no-binary-for-gpu"
  std::string title;    // "hipErrorNoBinaryForGpu"
  std::string meaning;  // one or two sentences
  std::vector<ErrorPattern> patterns;
  std::optional<KernelEventKind> kernel;  // formats::kmsg::classify's kind of the line also matches
  std::optional<OllamaReason> ollama;     // ollama_log's reason for the line also matches
  std::string sample;                     // a real message the entry answers (tests check it)
  std::vector<ErrorCause> causes;         // most likely first
};

struct ErrorCatalog {
  std::vector<ErrorEntry> entries;
  const ErrorEntry* find(std::string_view id) const {
    for (const auto& e : entries)
      if (e.id == id) return &e;
    return nullptr;
  }
};

}  // namespace amdml
