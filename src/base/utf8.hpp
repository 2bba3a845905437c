// UTF-8 (RFC 3629), once: decoding one sequence, validating a text, encoding a code
// point. Overlong forms, surrogates (U+D800..U+DFFF) and code points past U+10FFFF are
// not UTF-8 -- as nlohmann's parser, XML and the Prometheus format see it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace amdml::utf8 {

// The length (1-4) of the well-formed sequence at s[i], its code point in cp; 0 when
// the bytes there start none (cp is then unspecified). i must be < s.size().
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp);

// Whether all of s is well-formed UTF-8.
bool valid(std::string_view s);

// cp's UTF-8 bytes appended to out (cp <= U+10FFFF; the caller checks).
void append(std::string& out, char32_t cp);

}  // namespace amdml::utf8
