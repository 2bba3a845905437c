// `amdml explain "<error text>"` / `amdml explain -`: the document for an error text --
// every catalogue entry it matched (the lines, what was captured, what it means) and
// each entry's causes checked on this machine (confirmed, not known, ruled out, with
// the finding or fact that shows it) -- as text for people and as JSON (schema
// amdml.explain/1, kind "message").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/error_explain.hpp"

namespace amdml::render {

struct ExplainedMatch {
  const ErrorMatch* match = nullptr;
  std::vector<CheckedCause> causes;
};

struct ErrorExplanation {
  std::string subject;  // the text as given, or "-" for stdin
  const ErrorScan* scan = nullptr;
  std::vector<ExplainedMatch> matches;
  std::string root = "/";  // the machine checked: "/" or --root DIR
  std::vector<std::string> recipes_flag;  // {"--recipes", DIR} when given: for the commands printed
};

// width: the text's wrap column.
std::string render_error_explain_text(const ErrorExplanation& e, std::size_t width = 100);
nlohmann::json error_explain_json(const ErrorExplanation& e);

}  // namespace amdml::render