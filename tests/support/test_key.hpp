// The throwaway OpenPGP key the unit tests sign and pin with: an ed25519 key made by
// `gpg --quick-gen-key "amdml unit test key <tests@amdml.invalid>" ed25519` and exported
// with `gpg --armor --export`; the fingerprint is the one gpg printed. Its private half
// was never kept: it only stands in for a repository's public key.
#pragma once

namespace amdml::test {

inline constexpr const char* kTestKey =
    "-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
    "\n"
    "mDMEaweKuBYJKwYBBAHaRw8BAQdAt1XcQBBQAi/dvDMZVF3H9gnfUY8fsnlHasNg\n"
    "qB8zUjq0KWFtZG1sIHVuaXQgdGVzdCBrZXkgPHRlc3RzQGFtZG1sLmludmFsaWQ+\n"
    "iJAEExYIADgWIQS7vn2++P7Lf5ypiN+afl3e1Czc6gUCaweKuAIbAwULCQgHAgYV\n"
    "CgkICwIEFgIDAQIeAQIXgAAKCRCafl3e1Czc6l6wAQCVSoLdoPCMdwlXH/ehHNco\n"
    "BOBCu3si9/LQVM7P9D1OFQEAxuj0TvosUqR1HfitscJg2CpxbNET1mq72ShVnMAT\n"
    "SA0=\n"
    "=ce43\n"
    "-----END PGP PUBLIC KEY BLOCK-----\n";

inline constexpr const char* kTestKeyFingerprint = "BBBE7DBEF8FECB7F9CA988DF9A7E5DDED42CDCEA";

}  // namespace amdml::test
