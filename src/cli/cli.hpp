// The command line: amdml's flags and subcommands (CLI11, in commands.cpp alone), parsed
// into the engine's plain option structs (engine/engine.hpp), whose pipelines run them.
#pragma once

namespace amdml::cli {

// Parses argv, runs one subcommand and maps what went wrong to the documented exit
// codes: the only place exceptions are caught.
int run(int argc, char** argv);

}  // namespace amdml::cli
