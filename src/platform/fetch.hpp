// Fetching a small file named by a URL, for what a plan must show byte for byte before
// it writes it (AMD's apt signing key). file:///abs/path reads that real file -- tests
// and offline mirrors use it; https:// runs curl on a live host. A rooted host (--root)
// touches no network: its manifest's recorded commands answer, else it is an error.
#pragma once

#include <cstddef>
#include <string>

#include "base/result.hpp"
#include "platform/host.hpp"

namespace amdml::platform {

Result<std::string> fetch_url(const Host& host, const std::string& url, std::size_t limit = 1 << 20);

}  // namespace amdml::platform
