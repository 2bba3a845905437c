// Report: facts plus findings, what every renderer (text, JSON, Markdown, JUnit) takes.
#pragma once

#include <vector>

#include "amdml/facts.hpp"
#include "amdml/finding.hpp"

namespace amdml {

struct Report {
  Facts facts;
  std::vector<Finding> findings;
  Summary summary;
};

}  // namespace amdml
