// Shared by the fuzz targets: FUZZ_CHECK, an invariant that holds for every input.
//
// A target is more than "does not crash": each states what its parser promises about
// its output (keys without separators, values that round-trip) and FUZZ_CHECK aborts
// on a broken promise, which libFuzzer and the replay runner both report as a failure.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                        \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)

namespace amdml::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace amdml::fuzz
