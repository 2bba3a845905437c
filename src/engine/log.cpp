// -v and -vv: the stage and probe times, and details, on stderr through spdlog. The one
// unit that includes spdlog (and with it fmt): both are header-only, and costly to compile.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "engine/pipeline.hpp"

namespace amdml::engine {

namespace {

int g_verbosity = 0;

double millis(std::chrono::nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

void set_verbosity(int level) {
  g_verbosity = level;
  if (level < 1) return;  // nothing to say: no logger to set up
  auto logger = spdlog::stderr_color_mt("amdml");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("amdml: %l: %v");
  spdlog::set_level(level >= 2 ? spdlog::level::debug : spdlog::level::info);
}

int verbosity() { return g_verbosity; }

void log_info(const std::string& line) {
  if (g_verbosity >= 1) spdlog::info("{}", line);
}

void log_debug(const std::string& line) {
  if (g_verbosity >= 2) spdlog::debug("{}", line);
}

void log_probe(const probes::ProbeSpec& probe, std::chrono::nanoseconds took) {
  if (g_verbosity >= 1) spdlog::info("probe {}: {:.3f} ms", probe.name, millis(took));
}

Stage::Stage(const char* name) : name_(name), start_(std::chrono::steady_clock::now()) {}

Stage::~Stage() {
  if (g_verbosity >= 1) spdlog::info("stage {}: {:.3f} ms", name_, millis(std::chrono::steady_clock::now() - start_));
}

}  // namespace amdml::engine
