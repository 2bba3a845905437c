// `amdml explain <subject>`: the document for what the engine found the subject to be --
// a finding id with its page, a gfx target, a PCI id or a product-name search with every
// gfx target among the products, or an unknown subject with suggestions -- as text for
// people and as JSON (schema amdml.explain/1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/finding_id.hpp"
#include "amdml/knowledge.hpp"

namespace amdml::render {

struct Explanation {
  enum class Kind { finding, gfx, pci, product, error };
  Kind kind = Kind::error;
  std::string subject;
  const FindingSpec* finding = nullptr;           // finding
  std::optional<std::string> page;                // finding: its docs/findings page
  const GfxInfo* gfx = nullptr;                   // gfx
  std::uint16_t pci_device = 0;                   // pci
  std::vector<const PciProduct*> products;        // pci, product
  std::string error;                              // error: the one-line message
  std::vector<std::string> suggestions;           // error: nearest known subjects
};

std::string render_explain_text(const Knowledge& kb, const Explanation& e);  // not for error
nlohmann::json explain_json(const Knowledge& kb, const Explanation& e);

}  // namespace amdml::render