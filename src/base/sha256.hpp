// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits. For naming file
// contents in documents (`amdml fix --format json`: the bytes before and after a
// change), not for security decisions; small and dependency-free on purpose.
#pragma once

#include <string>
#include <string_view>

namespace amdml {

std::string sha256_hex(std::string_view bytes);

}  // namespace amdml
