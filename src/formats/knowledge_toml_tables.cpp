// The knowledge codec's self-contained tables (formats/knowledge_toml_tables.hpp).
#include "formats/knowledge_toml_tables.hpp"

#include <algorithm>
#include <cmath>

#include "formats/toml_fields.hpp"

namespace amdml::formats::knowledge_tables {

using toml_fields::known_keys;
using toml_fields::where;

Status load_meta(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* t = root["meta"].as_table();
  if (!t) return {};
  if (auto s = known_keys(file, *t, {"format", "date"}, "[meta]"); !s) return s;
  auto format = (*t)["format"].value<int64_t>();
  if (!format || *format < 1) return make_error(where(file, *t) + ": [meta] needs an integer 'format' from 1");
  if (*format > kKnowledgeFormat)
    return make_error(where(file, *t) + ": knowledge format " + std::to_string(*format) + " is newer than this amdml reads (" +
                      std::to_string(kKnowledgeFormat) + "); install a newer amdml");
  auto date = (*t)["date"].value<std::string>();
  if (!date || !parse_day(*date)) return make_error(where(file, *t) + ": [meta] needs 'date' like \"2026-10-05\"");
  if (kb.meta.format) return make_error(where(file, *t) + ": a second [meta] table");
  kb.meta = KnowledgeMeta{static_cast<int>(*format), *date};
  return {};
}

Status load_pcie(const std::string& file, const toml::table& root, Knowledge& kb) {
  auto* arr = root["pcie"].as_array();
  if (!arr) return {};
  for (const auto& node : *arr) {
    auto* t = node.as_table();
    if (!t) return make_error(file + ": [[pcie]] entries must be tables");
    if (auto s = known_keys(file, *t, {"gen", "gts", "encoding", "lane_gbs", "practical", "source"}, "[[pcie]]"); !s)
      return s;
    PcieGen g;
    auto gen = (*t)["gen"].value<int64_t>();
    auto gts = (*t)["gts"].value<double>();
    auto lane = (*t)["lane_gbs"].value<double>();
    auto practical = (*t)["practical"].value<double>();
    if (!gen || *gen < 1 || *gen > 99 || !gts || !(*gts > 0 && *gts < 1000) || !lane || !(*lane > 0 && *lane < *gts))
      return make_error(where(file, *t) + ": [[pcie]] needs 'gen' (1..), 'gts' (GT/s) and 'lane_gbs' below 'gts'");
    if (!practical || !(*practical > 0 && *practical <= 1))
      return make_error(where(file, *t) + ": [[pcie]] needs 'practical', a share above 0 and at most 1");
    g.gen = static_cast<int>(*gen);
    g.gts = *gts;
    g.lane_gbs = *lane;
    g.practical = *practical;
    g.encoding = (*t)["encoding"].value_or(std::string());
    g.source = (*t)["source"].value_or(std::string());
    if (g.source.empty()) return make_error(where(file, *t) + ": [[pcie]] needs its 'source'");
    if (kb.find_pcie(g.gts) || std::any_of(kb.pcie.begin(), kb.pcie.end(), [&](const PcieGen& o) { return o.gen == g.gen; }))
      return make_error(where(file, *t) + ": a second [[pcie]] entry for " + std::to_string(g.gen));
    kb.pcie.push_back(std::move(g));
  }
  std::sort(kb.pcie.begin(), kb.pcie.end(), [](const PcieGen& a, const PcieGen& b) { return a.gts < b.gts; });
  return {};
}

}  // namespace amdml::formats::knowledge_tables
