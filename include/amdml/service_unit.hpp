// A systemd service as amdml understands it: the assignments of its unit file and
// drop-ins, what systemd would complain about in them, and the merged [Service]
// settings (environment with where each value came from, env files, user and groups).
// src/formats/systemd_unit.hpp parses and merges; probes/service_unit.cpp finds the files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

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

}  // namespace amdml::systemd
