// The knowledge base and diagnoses tests start from: the shipped knowledge (recipes/
// embedded in the binary), a tree probed and diagnosed like `amdml doctor --no-runtime`
// does, and findings written out literally for the fix engine.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fix/fix.hpp"
#include "formats/fix_params_json.hpp"
#include "formats/knowledge_toml.hpp"
#include "formats/recipe_toml.hpp"
#include "platform/host.hpp"
#include "platform/recipes_dir.hpp"
#include "probes/collect.hpp"
#include "rules/rules.hpp"
#include "support/fixtures.hpp"

namespace amdml::test {

// The knowledge base amdml ships (recipes/knowledge/*.toml), loaded once.
inline const Knowledge& shipped_knowledge() {
  static const Knowledge kb = [] {
    auto files = platform::recipe_files("");
    EXPECT_TRUE(files.ok()) << (files.ok() ? "" : files.error().message);
    if (!files.ok()) return Knowledge{};
    auto k = formats::load_knowledge(*files);
    EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().message);
    return k.ok() ? *k : Knowledge{};
  }();
  return kb;
}

// A tree (a fixture machine or a copy of one) probed without the runtime and diagnosed
// with the shipped knowledge; the shipped recipes beside it for the fix engine.
struct Diagnosed {
  std::unique_ptr<platform::Host> host;
  std::vector<Recipe> recipes;
  Facts facts;
  std::vector<Finding> findings;

  explicit Diagnosed(const std::string& root) {
    auto h = platform::make_host(root);
    if (!h) throw std::runtime_error(h.error().message);
    host = std::move(*h);
    auto files = platform::recipe_files("");
    if (!files) throw std::runtime_error(files.error().message);
    auto r = formats::load_recipes(*files);
    if (!r) throw std::runtime_error(r.error().message);
    recipes = *r;
    probes::ProbeOptions po;
    po.runtime = false;
    facts = probes::collect_facts(*host, shipped_knowledge(), po);
    findings = diagnose(facts, shipped_knowledge());
  }
  const Finding* find(const std::string& id) const {
    for (const auto& f : findings)
      if (to_string(f.id) == id) return &f;
    return nullptr;
  }
  bool has(const std::string& id) const { return find(id) != nullptr; }
  // The finding ids, sorted.
  std::vector<std::string> ids() const {
    std::vector<std::string> v;
    for (const auto& f : findings) v.push_back(std::string(to_string(f.id)));
    std::sort(v.begin(), v.end());
    return v;
  }
};

// A finding as a rule would raise it, naming a recipe with its parameters: fix tests
// exercise the fix engine with these, so they do not change when a rule does.
// Fix parameters from their JSON form (the report's fix.params), as a test spells them.
inline FixParams params_json(const nlohmann::json& j) {
  auto p = formats::parse_fix_params(j);
  if (!p) throw std::runtime_error(p.error().message);
  return *p;
}

inline Finding literal_finding(const std::string& id, const std::string& recipe, const nlohmann::json& params) {
  Finding f;
  f.id = parse_finding_id(id).value();
  f.severity = Severity::warning;
  f.title = "literal " + id;
  f.fix = FixRef{recipe, params_json(params)};
  return f;
}

}  // namespace amdml::test
