// The image gate: `amdml check --target gfxNNN` in a `docker build`, where there is no
// GPU. Instead of the hardware it checks the image itself, per target: the ROCm in it
// supports the target (knowledge base), the math libraries ship kernels for it (the
// rocBLAS and hipBLASLt Tensile files and MIOpen kernel databases under the ROCm path,
// the files ollama and users look at), each ROCm PyTorch build lists it (the wheel's
// own rocBLAS files; with --deep, torch.cuda.get_arch_list()), ollama's ROCm backend
// has it, and HSA_OVERRIDE_GFX_VERSION set in the image is valid for it.
//
// The file listings are collected through the Host (probes/image.cpp, amdml/image.hpp);
// the evaluation here is a pure function of them, the doctor's facts and the knowledge base.
#pragma once

#include <string>
#include <vector>

#include "amdml/check.hpp"
#include "amdml/facts.hpp"
#include "amdml/image.hpp"
#include "amdml/knowledge.hpp"

namespace amdml {


// Whether a kernel file of `library` is for `target`: Tensile files (.co, .hsaco, .dat,
// .kpack) name it as a word ("TensileLibrary_lazy_gfx942.dat", "Kernels.so-000-gfx1100.hsaco");
// MIOpen kernel databases (.kdb) start with it, followed by the CU count ("gfx942130.kdb",
// "gfx1030_36.kdb"). Any other name (README-gfx1100.txt, a .bak or .swp copy) is not one.
bool kernel_file_for(const std::string& library, const std::string& file, const GfxTarget& target);

// One case per target and check (suite "image"), in target order.
CheckReport evaluate_image(const Facts& facts, const ImageFacts& image, const Knowledge& kb,
                           const std::vector<GfxTarget>& targets);

}  // namespace amdml
