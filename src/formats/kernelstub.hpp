// kernelstub's /etc/kernelstub/configuration (Pop!_OS): JSON whose user.kernel_options
// list is the command line kernelstub writes into the boot entry. Read through the one
// depth-limited JSON parser (formats/json.hpp); a write replaces the bytes of that list
// and nothing else -- the rest of the document is never re-dumped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace amdml::formats {

struct KernelstubConfig {
  std::string text;                  // the file as read
  std::size_t begin = 0, end = 0;    // user.kernel_options' bytes, '[' to ']'
  std::vector<std::string> options;  // its strings
  std::vector<std::string> sources;  // each string as written (escapes kept)
  std::string open = "";             // blanks after '['
  std::string between = " ";         // blanks after each ','
  std::string close = "";            // blanks before ']'
};

// An error ("not valid JSON", "nested deeper than 64 levels", "no user.kernel_options
// list", ...) for a file that is not kernelstub's configuration.
Result<KernelstubConfig> read_kernelstub(std::string_view text);
// The file with user.kernel_options holding `options` (strings read keep their bytes;
// the list keeps its layout); the bytes read when they are the options read.
std::string write_kernelstub(const KernelstubConfig& config, const std::vector<std::string>& options);

}  // namespace amdml::formats
