// systemd unit files and drop-ins, read the way systemd reads them -- as far as the
// settings amdml cares about for a service: Environment=, EnvironmentFile=, User=,
// Group= and SupplementaryGroups=.
//
// The text parsers are pure functions (each a fuzz target). load_service() is the one
// place that finds files: the unit from the first search directory that has it, then
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

#include "amdml/host.hpp"
#include "amdml/result.hpp"

namespace amdml::systemd {

// One "Key=value" line of a unit file, continuations joined.
struct Assignment {
  std::string section;  // "Service"
  std::string key;      // "Environment"
  std::string value;    // raw right-hand side, trimmed
  std::string file;
  int line = 0;  // 1-based line where the assignment starts
};

struct UnitIssue {
  enum class Kind {
    syntax,             // not "Key=value", or outside any section
    unknown_key,        // a key systemd does not know in [Service] (typos land here)
    bad_environment,    // an Environment= word that is not NAME=VALUE, or bad quoting
    env_file_missing,   // EnvironmentFile= without '-' whose file cannot be read
    env_file_relative,  // EnvironmentFile= path not absolute (systemd ignores it)
    bad_env_file_line,  // a line in an environment file systemd would skip
  };
  Kind kind = Kind::syntax;
  std::string file;
  int line = 0;
  std::string text;     // the offending key, word or line
  std::string message;  // one line, as a person would want to read it
};
const char* to_string(UnitIssue::Kind k);

struct ParsedUnit {
  std::vector<Assignment> assignments;
  std::vector<UnitIssue> issues;  // syntax issues only
};

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

// One effective environment variable and where its value came from.
struct EnvValue {
  std::string value;
  std::string file;
  int line = 0;
  bool from_env_file = false;  // set by an EnvironmentFile= file (these win over Environment=)
};

struct EnvFileRef {
  std::string path;
  bool optional = false;  // '-' prefix: a missing file is fine
  bool read = false;      // the file was there and was read
};

// The merged [Service] settings of a unit plus its drop-ins.
struct ServiceConfig {
  std::vector<std::string> files;  // unit file, then drop-ins in application order
  std::map<std::string, EnvValue> environment;  // effective: Environment=, then env files
  std::vector<EnvFileRef> env_files;           // after resets, in order
  std::vector<std::string> unset_environment;  // UnsetEnvironment= words, after resets
  std::optional<std::string> user;
  std::optional<std::string> group;
  std::vector<std::string> supplementary_groups;
  bool dynamic_user = false;
  std::vector<Assignment> unknown_keys;  // [Service] keys systemd ignores (with file/line)
  std::vector<UnitIssue> issues;
};

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

struct LoadedService {
  std::optional<std::string> unit_path;  // nullopt: no unit file in any search dir
  bool masked = false;                   // the unit file is a symlink to /dev/null
  ServiceConfig config;
};

// Finds `unit` ("ollama.service") and its drop-ins through the host and merges them.
LoadedService load_service(const Host& host, const std::string& unit);

}  // namespace amdml::systemd
