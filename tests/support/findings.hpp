// Looking findings up in a diagnosis: the first with an id (the typed id, or its dotted
// spelling as a CLI test reads it from JSON), every one with an id, and a finding's
// evidence as "source: value" lines to search -- one copy for the rule, probe and CLI tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "amdml/finding.hpp"

namespace amdml::test {

inline const Finding* find_finding(const std::vector<Finding>& all, FindingId id) {
  for (const auto& f : all)
    if (f.id == id) return &f;
  return nullptr;
}

inline const Finding* find_finding(const std::vector<Finding>& all, std::string_view id) {
  for (const auto& f : all)
    if (to_string(f.id) == id) return &f;
  return nullptr;
}

inline std::vector<const Finding*> findings_with_id(const std::vector<Finding>& all, FindingId id) {
  std::vector<const Finding*> out;
  for (const auto& f : all)
    if (f.id == id) out.push_back(&f);
  return out;
}
// The pointers point into `all`, so a temporary would leave them dangling.
std::vector<const Finding*> findings_with_id(std::vector<Finding>&&, FindingId) = delete;

inline std::string evidence_text(const Finding& f) {
  std::string s;
  for (const auto& e : f.evidence) s += e.source + ": " + e.value + "\n";
  return s;
}

}  // namespace amdml::test
