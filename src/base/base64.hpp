// Base64 (RFC 4648, the standard alphabet with '=' padding), once: the fix journal keeps
// bytes that are not UTF-8 in it, OpenPGP armor (RFC 4880) carries a key in it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace amdml::base64 {

std::string encode(std::string_view bytes);

// Strict: a multiple of four characters of the alphabet, at most two '=' and only at
// the end. nullopt otherwise.
std::optional<std::string> decode(std::string_view text);

// As armor is read: the characters up to the first '=' (or the end), whole bytes only;
// nullopt on a character outside the alphabet before it.
std::optional<std::string> decode_unpadded(std::string_view text);

}  // namespace amdml::base64
