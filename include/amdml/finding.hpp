// Finding: one diagnosed problem (or fact worth knowing), with a stable id, the
// evidence it rests on, and how to fix it -- a recipe with parameters and/or the
// exact commands a person would type.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdml/finding_id.hpp"
#include "amdml/fix_params.hpp"
#include "amdml/severity.hpp"

namespace amdml {

struct Evidence {
  std::string source;  // a path ("/sys/module/ttm/parameters/pages_limit") or "env HSA_OVERRIDE_GFX_VERSION"
  std::string value;   // what was read there ("3052026")
};

struct FixRef {
  std::string recipe;  // pinned recipe id ("hsa-override")
  FixParams params;    // recipe parameters, of the kind the recipe's schema names
};

// How a hand command relates to the one before it: the first step ("run"), a step
// after the previous one ("then"), or an alternative to the previous one ("or").
enum class CommandRole { run, then, alt };
inline const char* to_string(CommandRole r) {
  return r == CommandRole::run ? "run" : r == CommandRole::then ? "then" : "or";
}

struct Finding {
  FindingId id{};  // from the one catalog; to_string(id) is the pinned dotted id ("gfx.override-needed")
  Severity severity = Severity::info;
  std::string title;   // one line: what is wrong
  std::string detail;  // one or two sentences: the cause
  std::vector<Evidence> evidence;
  std::vector<int> gpus;               // indices into Facts::gpus
  std::optional<FixRef> fix;           // an `amdml fix` recipe, when one applies
  std::vector<std::string> commands;   // exact commands that fix it by hand
  std::vector<CommandRole> roles;      // commands[i]'s role where recorded (command_role)
  std::vector<std::string> notes;      // follow-ups ("log out and in again")

  // commands[i]'s role: as recorded by add_command, else "run" for the first, "then" after.
  CommandRole command_role(std::size_t i) const {
    if (i < roles.size()) return roles[i];
    return i == 0 ? CommandRole::run : CommandRole::then;
  }
  // Appends a command with an explicit role ("or": an alternative to the one before).
  void add_command(std::string command, CommandRole role) {
    while (roles.size() < commands.size()) roles.push_back(command_role(roles.size()));
    commands.push_back(std::move(command));
    roles.push_back(role);
  }
};

struct Summary {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
};

Summary summarize(const std::vector<Finding>& findings);

}  // namespace amdml
