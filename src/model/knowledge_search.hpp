// Finding things in the knowledge base by what people type: a product name as printed
// on the box ("7900 XTX", "Radeon 780M") and, for a subject amdml does not know, the
// nearest known spellings (edit distance), so `amdml explain` can say "did you mean".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "amdml/knowledge.hpp"

namespace amdml {

// The PCI products whose name contains every word of `text` as a whole word, case
// and the words "AMD"/"Radeon" aside ("7900 XT" matches "RX 7900 XT", not "RX 7900
// XTX"). Empty when `text` has no word or nothing matches.
std::vector<const PciProduct*> products_named(const Knowledge& kb, std::string_view text);

// Levenshtein distance over bytes, case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `max` of `candidates` closest to `text`, nearest first, within a distance of a
// third of the longer string (at least 2): typos, not unrelated words.
std::vector<std::string> nearest(std::string_view text, const std::vector<std::string>& candidates, std::size_t max = 3);

}  // namespace amdml
