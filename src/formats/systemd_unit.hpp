// systemd unit files and drop-ins, read the way systemd reads them -- as far as the
// settings amdml cares about for a service: Environment=, EnvironmentFile=, User=,
// Group= and SupplementaryGroups=.
//
// The text parsers are pure functions (each a fuzz target); the types are in
// amdml/service_unit.hpp. probes/service_unit.cpp's load_service() is the one place that finds files: the unit from the first search directory that has it, then
// every drop-in (UNIT.d/*.conf and the type-wide service.d/*.conf) from all search
// directories -- for one file name the highest-priority directory wins, and the
// survivors apply in file-name order regardless of directory, later wins. Environment
// files named by EnvironmentFile= are read through the Host, so a --root tree works.
//
// What systemd would complain about (an unknown key such as "Enviroment=", a word that
// is not NAME=VALUE, a quote left open, a required EnvironmentFile= that is absent) is
// kept as an issue with file and line, because those are exactly the mistakes that keep
// a person's override away from the service.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/service_unit.hpp"
#include "base/result.hpp"

namespace amdml::formats::systemd_unit {

// The unit model (amdml/service_unit.hpp) these parsers fill.
using systemd::Assignment;
using systemd::EnvFileRef;
using systemd::EnvValue;
using systemd::ParsedUnit;
using systemd::ServiceConfig;
using systemd::UnitIssue;

// Splits a unit file into assignments: [Section] headers, '#'/';' comment lines,
// trailing-backslash continuations (comment lines inside one are skipped).
ParsedUnit parse_unit_text(std::string_view text, const std::string& file);

// The words of one Environment= value, unquoted and C-unescaped like systemd's
// extract_first_word(EXTRACT_UNQUOTE|EXTRACT_CUNESCAPE): quotes may start anywhere in a
// word, backslash escapes (\n \t \\ \" \' \s \xHH \NNN \uXXXX) work inside and outside
// quotes. An unterminated quote or an unknown escape ends the value with an error; the
// words before it are returned in `words` (systemd keeps them too).
struct EnvWords {
  std::vector<std::string> words;
  std::optional<std::string> error;
};
EnvWords split_environment(std::string_view value);

// NAME is a valid environment variable name for systemd: [A-Za-z_][A-Za-z0-9_]*.
bool env_name_valid(std::string_view name);

// An EnvironmentFile= file: NAME=VALUE lines with '#'/';' comment lines, single quotes
// (literal), double quotes (backslash escapes only \" \\ \` \$ and newline),
// unquoted values trimmed with backslash escaping the next character, backslash-newline
// continuing a line. Lines systemd would skip become issues.
struct EnvFile {
  std::vector<std::pair<std::string, std::string>> vars;  // in file order
  std::vector<UnitIssue> issues;
};
EnvFile parse_env_file(std::string_view text, const std::string& file);

// Applies parsed files in order (unit first, then drop-ins) and returns the merge.
// Environment files are not read here: env_files lists them, read_env_files() fills
// them in (kept apart so the merge stays pure and testable with literal text).
ServiceConfig merge_service(const std::vector<ParsedUnit>& files);

// The environment with env files applied: each listed file read through reader (path →
// contents or error), its variables overriding Environment= in the order listed.
using FileReader = Result<std::string> (*)(const void* ctx, const std::string& path);
void apply_env_files(ServiceConfig& cfg, const void* ctx, FileReader reader);

// Where systemd looks for system units, highest priority first.
const std::vector<std::string>& system_unit_dirs();

}  // namespace amdml::formats::systemd_unit