// Where `--output FILE` may write, and how. A report must never destroy what a person
// points it at: only a regular file (or a path that does not exist yet) is replaced
// atomically; a character device or a FIFO is written through, as the shell's `>`
// would; /dev/stdout, /dev/stderr and /dev/fd/N mean the descriptor amdml already
// holds; everything else (a directory, a socket, a block device, a file of /proc or
// /sys, a dangling symlink) is refused and left as it was.
#pragma once

#include <string>
#include <string_view>

#include "base/result.hpp"

namespace amdml::platform {

// How long a FIFO with no reader is given to get one before the write is refused.
inline constexpr int kFifoReaderWaitMs = 2000;

// Writes content to path under the rules above. The caller prefixes the error with the
// path; the message itself names only what else failed (e.g. the directory a temporary
// file could not be made in). errno, when there was one, is in Error::code.
Status write_output_file(const std::string& path, std::string_view content);

}  // namespace amdml::platform
