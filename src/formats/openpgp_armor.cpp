#include "formats/openpgp_armor.hpp"

#include <algorithm>

#include "base/base64.hpp"
#include "base/sha1.hpp"
#include "base/text.hpp"

namespace amdml::formats {

Result<std::string> dearmor_public_key(const std::string& text) {
  const std::string begin = "-----BEGIN PGP PUBLIC KEY BLOCK-----", end = "-----END PGP PUBLIC KEY BLOCK-----";
  auto b = text.find(begin);
  if (b == std::string::npos) {
    // A binary key starts with a packet tag byte (bit 7 set); text without armor is not a key.
    if (!text.empty() && (static_cast<unsigned char>(text[0]) & 0x80)) return text;
    return make_error("not an OpenPGP public key (no armor header, not binary)");
  }
  auto e = text.find(end, b);
  if (e == std::string::npos) return make_error("OpenPGP armor without its END line");
  std::string body;
  bool headers = true;
  // From the line after BEGIN (the views below point into this string).
  const std::size_t body_at = std::min(text.find('\n', b) + 1, e);
  const std::string armored = text.substr(body_at, e - body_at);
  for (auto raw : text::split_lines(armored)) {
    std::string line(text::trim(raw));
    if (headers) {
      // Armor headers ("Version: ...") end at the first blank line.
      if (line.empty()) headers = false;
      else if (line.find(": ") == std::string::npos) headers = false;
      if (headers || line.empty()) continue;
    }
    if (line.empty()) continue;
    if (line[0] == '=') break;  // the CRC-24 line
    body += line;
  }
  auto decoded = base64::decode_unpadded(body);
  if (!decoded) return make_error("OpenPGP armor holds a character that is not base64");
  std::string out = std::move(*decoded);
  if (out.empty()) return make_error("OpenPGP armor holds no key");
  return out;
}

Result<std::string> openpgp_fingerprint(const std::string& binary) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(binary[i]); };
  if (binary.empty() || !(byte(0) & 0x80)) return make_error("not a binary OpenPGP key");
  std::size_t at = 1, len = 0;
  unsigned tag = 0;
  if (byte(0) & 0x40) {  // new format
    tag = byte(0) & 0x3f;
    if (binary.size() < 2) return make_error("OpenPGP packet cut short");
    const unsigned o1 = byte(1);
    if (o1 < 192) len = o1, at = 2;
    else if (o1 < 224 && binary.size() >= 3) len = ((o1 - 192) << 8) + byte(2) + 192, at = 3;
    else if (o1 == 255 && binary.size() >= 6) len = (std::size_t{byte(2)} << 24) | (byte(3) << 16) | (byte(4) << 8) | byte(5), at = 6;
    else return make_error("OpenPGP packet with a partial or cut length");
  } else {  // old format
    tag = (byte(0) >> 2) & 0x0f;
    const unsigned type = byte(0) & 3;
    const std::size_t n = type == 0 ? 1 : type == 1 ? 2 : type == 2 ? 4 : 0;
    if (n == 0 || binary.size() < 1 + n) return make_error("OpenPGP packet with an indeterminate or cut length");
    for (std::size_t i = 0; i < n; ++i) len = (len << 8) | byte(1 + i);
    at = 1 + n;
  }
  if (tag != 6) return make_error("the key does not start with a public-key packet");
  if (len == 0 || len > 0xffff || binary.size() - at < len) return make_error("OpenPGP public-key packet cut short");
  if (byte(at) != 4) return make_error("not a version 4 OpenPGP key (version " + std::to_string(byte(at)) + ")");
  std::string hashed;
  hashed += static_cast<char>(0x99);
  hashed += static_cast<char>((len >> 8) & 0xff);
  hashed += static_cast<char>(len & 0xff);
  hashed.append(binary, at, len);
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (auto b : sha1(hashed)) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace amdml::formats