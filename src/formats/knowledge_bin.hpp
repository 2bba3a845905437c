// The knowledge base's compact form: a Knowledge as bytes, written by `amdml update`
// when it installs a verified bundle (/var/lib/amdml/knowledge/<date>/knowledge.bin)
// and read by every doctor after it, so an installed bundle costs what the built-in
// tables cost instead of a TOML parse (bench/: "live doctor, bundle installed").
//
// Layout: the magic "AMDMLKB\n", a u32 layout version (kKnowledgeBinLayout), then every
// field of every knowledge struct in declaration order -- integers little-endian u32/u64,
// strings and lists as a u32 count then their items, optionals as a u8 flag, doubles as
// their IEEE bits. Reading is strict: a short file, a count past the end, trailing bytes,
// an unknown layout or enum value is an error, never a partial Knowledge.
#pragma once

#include <string>
#include <string_view>

#include "amdml/knowledge.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// Raised whenever the layout changes (a field added to a knowledge struct): a store
// written by another amdml is then refused, and the doctor falls back to its own tables.
inline constexpr std::uint32_t kKnowledgeBinLayout = 2;

std::string encode_knowledge_bin(const Knowledge& kb);
Result<Knowledge> decode_knowledge_bin(std::string_view bytes);

}  // namespace amdml::formats