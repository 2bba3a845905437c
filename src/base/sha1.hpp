// SHA-1 (FIPS 180-4), for the one place a format defines an identity by it: an OpenPGP
// v4 key's fingerprint (RFC 4880 section 12.2). Not for anything new.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace amdml {

std::array<std::uint8_t, 20> sha1(std::string_view data);

}  // namespace amdml
