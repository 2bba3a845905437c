// amdml's entry point (cli/commands.cpp does the work).
#include "cli/cli.hpp"

int main(int argc, char** argv) { return amdml::cli::run(argc, argv); }
