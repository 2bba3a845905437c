// /proc/PID/environ: a process's environment, NUL-separated NAME=VALUE entries. Only the
// names doctor follows (parse::login_env_followed) and never a credential-like one
// (is_secret_name) are kept: the ollama probe's facts and a snapshot's copy of the file
// read it the same way.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amdml::formats {

using EnvEntries = std::vector<std::pair<std::string, std::string>>;
// The followed entries, in the file's order.
EnvEntries followed_environ(std::string_view environ);
// Entries written back NUL-separated, each ended by a NUL as the kernel writes them.
std::string write_environ(const EnvEntries& env);

}  // namespace amdml::formats
