// Product-name lookup and "did you mean" over the knowledge base (knowledge_search.hpp).
#include "model/knowledge_search.hpp"

#include <algorithm>
#include <cctype>

namespace amdml {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Lower-case words of letters and digits; "AMD" and "Radeon" say nothing about which GPU.
std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (!w.empty() && w != "amd" && w != "radeon") out.push_back(w);
    w.clear();
  };
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) w += lower(c);
    else flush();
  }
  flush();
  return out;
}

}  // namespace

std::vector<const PciProduct*> products_named(const Knowledge& kb, std::string_view text) {
  std::vector<const PciProduct*> out;
  auto want = words(text);
  if (want.empty()) return out;
  for (const auto& p : kb.pci) {
    auto have = words(p.name);
    bool all = std::all_of(want.begin(), want.end(),
                           [&](const std::string& w) { return std::find(have.begin(), have.end(), w) != have.end(); });
    if (all) out.push_back(&p);
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest(std::string_view text, const std::vector<std::string>& candidates, std::size_t max) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& c : candidates) {
    std::size_t limit = std::max<std::size_t>(2, std::max(text.size(), c.size()) / 3);
    // The distance is at least the difference in length: a subject far longer than every
    // candidate (100k characters) costs no quadratic table.
    const std::size_t gap = text.size() > c.size() ? text.size() - c.size() : c.size() - text.size();
    if (gap > limit) continue;
    std::size_t d = edit_distance(text, c);
    if (d <= limit) scored.emplace_back(d, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, c] : scored) {
    if (out.size() >= max) break;
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

}  // namespace amdml
