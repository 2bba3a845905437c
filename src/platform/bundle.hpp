// A downloaded knowledge bundle: its detached OpenPGP signature checked with gpgv, and
// its files taken out of the tar.gz. Both run as child programs (gpgv, tar) inside a
// private temporary directory that is removed afterwards; nothing else is written.
#pragma once

#include <string>
#include <vector>

#include "amdml/knowledge.hpp"
#include "base/result.hpp"

namespace amdml::platform {

// gpgv --keyring KEYRING: whether sig is a good signature of data by a key in the
// keyring (a binary OpenPGP keyring, `gpg --export KEYID > FILE.gpg`). A bad or
// unknown-key signature is an error naming what gpgv said.
Status verify_signature(const std::string& keyring, const std::string& data, const std::string& sig);

// The files of a bundle tarball: exactly "knowledge/NAME.toml" regular files (NAME of
// letters, digits, '-', '_'; the "knowledge/" directory itself may be listed). Any other
// member, a link, a device, or a tarball tar cannot read whole is an error.
Result<std::vector<RecipeFile>> unpack_bundle(const std::string& tar_gz);

}  // namespace amdml::platform
