// amdml's entry point: parse the command line, run one subcommand, map what went
// wrong to the documented exit codes. The only place exceptions are caught.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "render/render.hpp"
#include "cli/cli.hpp"
#include "cli/version.hpp"

using namespace amdml;
using namespace amdml::cli;

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("amdml");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("amdml: %l: %v");
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"amdml: the doctor and fixer for machine learning on AMD GPUs under Linux"};
  app.set_version_flag("--version,-V", version_text, "Print the version, the git commit and the newest ROCm release amdml knows");
  app.require_subcommand(0, 1);
  app.fallthrough();
  GlobalOptions g;
  app.add_option("--root", g.root, "Probe a recorded machine: every path resolves inside DIR (also AMDML_ROOT)");
  app.add_option("--recipes", g.recipes, "Use the knowledge base and fix recipes under DIR instead of the built-in ones");
  app.add_option("--color", g.color, "Colour: auto (on a terminal, honouring NO_COLOR), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("-v,--verbose", g.verbose, "Log what amdml does to stderr (repeat for more)");

  std::vector<std::pair<CLI::App*, CommandRunner>> subs;
  for (const auto& spec : command_table()) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.help);
    subs.emplace_back(sub, spec.setup(*sub, g));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    write_stdout(app.help());
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    write_stdout(app.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    write_stdout(version_text());
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // A subcommand's --help arrives here as CallForHelp on the subcommand.
    if (e.get_name() == "CallForHelp") {
      for (auto& [sub, run] : subs)
        if (sub->parsed()) {
          write_stdout(sub->help());
          return kExitOk;
        }
      write_stdout(app.help());
      return kExitOk;
    }
    error_line(e.what());
    return kExitUsage;
  }
  if (g.verbose == 1) spdlog::set_level(spdlog::level::info);
  if (g.verbose >= 2) spdlog::set_level(spdlog::level::debug);

  try {
    for (auto& [sub, run] : subs)
      if (sub->parsed()) return run();
    // No subcommand: doctor with its defaults.
    for (auto& [sub, run] : subs)
      if (std::string(sub->get_name()) == "doctor") return run();
    return kExitInternal;
  } catch (const UsageError& e) {
    error_line(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    error_line(std::string("internal: ") + e.what());
    return kExitInternal;
  }
}
