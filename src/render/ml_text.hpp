// One-line summaries of the ML stack for the text report's host table: "ollama",
// "PyTorch" and "llama.cpp" rows, present only when something was found.
#pragma once

#include <string>
#include <vector>

#include "amdml/facts_ml.hpp"

namespace amdml {

std::vector<std::vector<std::string>> ml_summary_rows(const MlFacts& m);

}  // namespace amdml
