// One-line summaries of the ML stack for the text report's host table: "ollama",
// "PyTorch" and "llama.cpp" rows, present only when something was found.
#pragma once

#include <string>
#include <vector>

#include "amdml/facts.hpp"

namespace amdml::render {

// ollama, each PyTorch and llama.cpp: which ROCm each loads and, where its files name the
// targets, whether that ROCm has kernels for each GPU.
std::vector<std::vector<std::string>> ml_summary_rows(const Facts& f);

// ", kernels for gfx1151, no kernels for gfx1103" for targets an install's files name;
// "" when they name none.
std::string kernels_verdict(const Facts& f, const std::vector<GfxTarget>& targets);

// Every ROCm install the ROCm row does not already name: "7.14.1 (pip) in /home/a/venv: gfx1151".
std::vector<std::vector<std::string>> rocm_install_rows(const RocmFacts& r);

}  // namespace amdml::render