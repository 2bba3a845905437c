// OpenPGP ASCII armor (RFC 4880 section 6.2) to the binary packets it carries: what
// `gpg --dearmor` writes, which apt reads from a signed-by= keyring ending in .gpg.
#pragma once

#include <string>

#include "base/result.hpp"

namespace amdml::formats {

// The binary of an armored "PUBLIC KEY BLOCK"; bytes that are already binary (no armor
// header) come back as they are. Malformed armor is an error.
Result<std::string> dearmor_public_key(const std::string& text);

// The primary key's v4 fingerprint (RFC 4880 section 12.2: SHA-1 over 0x99, the packet
// length and the public-key packet's body) of a binary key, as 40 upper-case hex digits.
// Anything else (no public-key packet first, a v3/v5/v6 key, a cut packet) is an error.
Result<std::string> openpgp_fingerprint(const std::string& binary);

}  // namespace amdml::formats