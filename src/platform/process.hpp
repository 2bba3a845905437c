// Running a program: argv only (never a shell), output captured, a hard time limit
// after which the whole process group is killed.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amdml/host.hpp"

namespace amdml::platform {

struct RunOptions {
  std::chrono::milliseconds timeout{10000};
  std::size_t output_limit = 4 << 20;                  // bytes kept per stream
  std::optional<std::map<std::string, std::string>> env;  // replaces the environment when set
  std::map<std::string, std::string> extra_env;         // added to the inherited environment
};

// Looks argv[0] up in PATH when it has no slash. Fails only when the program cannot
// be started; a program that fails, crashes or times out is a CommandResult.
Result<CommandResult> run_command(const std::vector<std::string>& argv, const RunOptions& options);

// Full path of a program on PATH, if any.
std::optional<std::string> find_in_path(const std::string& program);

}  // namespace amdml::platform
