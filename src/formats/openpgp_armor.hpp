// OpenPGP ASCII armor (RFC 4880 section 6.2) to the binary packets it carries: what
// `gpg --dearmor` writes, which apt reads from a signed-by= keyring ending in .gpg.
#pragma once

#include <string>

#include "base/result.hpp"

namespace amdml {

// The binary of an armored "PUBLIC KEY BLOCK"; bytes that are already binary (no armor
// header) come back as they are. Malformed armor is an error.
Result<std::string> dearmor_public_key(const std::string& text);

}  // namespace amdml
