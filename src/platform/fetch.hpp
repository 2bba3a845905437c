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

// `amdml update`'s download: always from the network (or a file:// mirror), also under
// --root, since the bundle is verified before anything is written. http://, https://
// and file:// (absolute path); curl runs as a child (no network library is linked),
// with redirects kept to http(s), a time limit and a size limit. The error is one line.
Result<std::string> download(const std::string& url, std::size_t limit);

}  // namespace amdml::platform
