#include "formats/openpgp_armor.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace amdml {

namespace {

int b64(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

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
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (char c : body) {
    if (c == '=') break;
    int v = b64(c);
    if (v < 0) return make_error("OpenPGP armor holds a character that is not base64");
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  if (out.empty()) return make_error("OpenPGP armor holds no key");
  return out;
}

}  // namespace amdml
