// Finding: one diagnosed problem (or fact worth knowing), with a stable id, the
// evidence it rests on, and how to fix it -- a recipe with parameters and/or the
// exact commands a person would type.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/severity.hpp"

namespace amdml {

struct Evidence {
  std::string source;  // a path ("/sys/module/ttm/parameters/pages_limit") or "env HSA_OVERRIDE_GFX_VERSION"
  std::string value;   // what was read there ("3052026")
};

struct FixRef {
  std::string recipe;                               // pinned recipe id ("hsa-override")
  nlohmann::json params = nlohmann::json::object();  // recipe parameters
};

struct Finding {
  std::string id;  // stable, lowercase dotted ("gfx.override-needed")
  Severity severity = Severity::info;
  std::string title;   // one line: what is wrong
  std::string detail;  // one or two sentences: the cause
  std::vector<Evidence> evidence;
  std::vector<int> gpus;               // indices into Facts::gpus
  std::optional<FixRef> fix;           // an `amdml fix` recipe, when one applies
  std::vector<std::string> commands;   // exact commands that fix it by hand
  std::vector<std::string> notes;      // follow-ups ("log out and in again")
};

struct Summary {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
};

Summary summarize(const std::vector<Finding>& findings);

}  // namespace amdml
