// The knowledge codec's self-contained tables, read apart from knowledge_toml.cpp (whose
// tables share its gfx and version helpers): meta.toml's [meta] and pcie.toml's
// [[pcie]]. Internal to the codec: load_knowledge calls them for every file.
#pragma once

#include <string>

#include "amdml/knowledge.hpp"
#include "base/result.hpp"
#include "formats/toml.hpp"

namespace amdml::formats::knowledge_tables {

// [meta] format (what this amdml reads) and date (the newest fact's day).
Status load_meta(const std::string& file, const toml::table& root, Knowledge& kb);

// [[pcie]]: per PCIe generation, what a lane carries each way and the share a DMA copy reaches.
Status load_pcie(const std::string& file, const toml::table& root, Knowledge& kb);

}  // namespace amdml::formats::knowledge_tables
