// Fuzz target: OpenPGP public keys as rocm-install fetches them -- armor to binary
// (formats/openpgp_armor) and the primary key's v4 fingerprint read from the packets.
#include "formats/openpgp_armor.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));
  auto binary = amdml::formats::dearmor_public_key(text);
  if (binary) FUZZ_CHECK(!binary->empty() && (static_cast<unsigned char>((*binary)[0]) & 0x80));
  const std::string* none = nullptr;
  for (const std::string* in : {static_cast<const std::string*>(&text), binary ? &*binary : none}) {
    if (!in) continue;
    auto fp = amdml::formats::openpgp_fingerprint(*in);
    if (!fp) continue;
    FUZZ_CHECK(fp->size() == 40);
    FUZZ_CHECK(fp->find_first_not_of("0123456789ABCDEF") == std::string::npos);
  }
  return 0;
}
