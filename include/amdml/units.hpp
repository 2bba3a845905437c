// Byte and page quantities as distinct types, so a page count is never added to a
// byte count by accident, and their human-readable forms.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace amdml {

struct Bytes {
  std::uint64_t value = 0;
  constexpr auto operator<=>(const Bytes&) const = default;
};

// TTM counts memory in PAGE_SIZE pages; amdml only supports 4 KiB pages (x86-64 and
// the arm64 defaults the ROCm stack ships for).
inline constexpr std::uint64_t kPageSize = 4096;

struct Pages {
  std::uint64_t value = 0;
  constexpr auto operator<=>(const Pages&) const = default;
  constexpr Bytes bytes() const { return Bytes{value * kPageSize}; }
  static constexpr Pages from_bytes(Bytes b) { return Pages{b.value / kPageSize}; }
};

inline constexpr std::uint64_t kKiB = 1024ULL;
inline constexpr std::uint64_t kMiB = 1024ULL * kKiB;
inline constexpr std::uint64_t kGiB = 1024ULL * kMiB;

// "16.0 GiB", "512 MiB", "0 B": binary units, one decimal where it matters.
std::string format_bytes(Bytes b);

// Parses "64GiB", "64G", "512MiB", "1024", "1.5TiB" (binary units; a bare number is bytes).
bool parse_bytes(const std::string& text, Bytes& out);

}  // namespace amdml
