// deep.llamacpp-* and deep.ollama-*: what the inference tools said when --deep asked them
// (llama.cpp's --list-devices, the running ollama server's /api/version and /api/ps).
// Called from deep_rules (deep.cpp); kept apart so deep.cpp stays about the HSA steps
// and torch.
#pragma once

#include <vector>

#include "rules/rules_internal.hpp"

namespace amdml::rules {

void deep_llamacpp_rules(const Facts& f, std::vector<Finding>& out);
void deep_ollama_rules(const Facts& f, std::vector<Finding>& out);

}  // namespace amdml::rules
