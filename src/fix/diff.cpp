// Unified diffs for the plan: what `amdml fix` shows before it writes anything.
// Config files are small, so a plain LCS table is enough; past a size cap the diff
// degrades to "replace everything", which is still correct, only less pleasant.
#include <algorithm>

#include "fix/fix.hpp"

namespace amdml::fix {

namespace {

struct Lines {
  std::vector<std::string> lines;
  bool final_newline = true;
};

Lines split(const std::string& s) {
  Lines out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = s.find('\n', i);
    if (j == std::string::npos) {
      out.lines.push_back(s.substr(i));
      out.final_newline = false;
      break;
    }
    out.lines.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

enum class Op { keep, del, add };

std::vector<std::pair<Op, std::size_t>> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::pair<Op, std::size_t>> out;
  const std::size_t n = a.size(), m = b.size();
  if (n * m > 4'000'000) {
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(Op::del, i);
    for (std::size_t j = 0; j < m; ++j) out.emplace_back(Op::add, j);
    return out;
  }
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out.emplace_back(Op::keep, i);
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.emplace_back(Op::del, i++);  // deletions first, as diff(1) prints them
    } else {
      out.emplace_back(Op::add, j++);
    }
  }
  return out;
}

}  // namespace

std::string unified_diff(const std::string& path, const std::optional<std::string>& before, const std::string& after) {
  if (before && *before == after) return "";
  Lines a = before ? split(*before) : Lines{};
  Lines b = split(after);
  // A missing final newline is a difference of its own; mark the last line so the
  // LCS sees it, and print the customary note under it.
  if (!a.lines.empty() && !a.final_newline) a.lines.back() += "\n\\ No newline at end of file";
  if (!b.lines.empty() && !b.final_newline) b.lines.back() += "\n\\ No newline at end of file";
  auto script = edit_script(a.lines, b.lines);

  std::string out = "--- " + (before ? "a" + path : std::string("/dev/null")) + "\n";
  out += "+++ b" + path + "\n";
  constexpr std::size_t kContext = 3;
  std::size_t k = 0;
  while (k < script.size()) {
    // Next change.
    std::size_t first = k;
    while (first < script.size() && script[first].first == Op::keep) ++first;
    if (first == script.size()) break;
    std::size_t start = first >= kContext ? first - kContext : 0;
    if (start < k) start = k;
    // Extend over changes closer than 2*context apart.
    std::size_t end = first;
    std::size_t last_change = first;
    while (end < script.size()) {
      if (script[end].first != Op::keep) last_change = end;
      else if (end - last_change > 2 * kContext) break;
      ++end;
    }
    end = std::min(script.size(), last_change + kContext + 1);
    // Line numbers: count a and b lines before start.
    std::size_t a_line = 0, b_line = 0;
    for (std::size_t x = 0; x < start; ++x) {
      if (script[x].first != Op::add) ++a_line;
      if (script[x].first != Op::del) ++b_line;
    }
    std::size_t a_count = 0, b_count = 0;
    std::string body;
    for (std::size_t x = start; x < end; ++x) {
      auto [op, idx] = script[x];
      if (op == Op::keep) {
        body += " " + a.lines[idx] + "\n";
        ++a_count, ++b_count;
      } else if (op == Op::del) {
        body += "-" + a.lines[idx] + "\n";
        ++a_count;
      } else {
        body += "+" + b.lines[idx] + "\n";
        ++b_count;
      }
    }
    auto range = [](std::size_t line, std::size_t count) {
      std::size_t first_line = count == 0 ? line : line + 1;
      return std::to_string(first_line) + (count == 1 ? "" : "," + std::to_string(count));
    };
    out += "@@ -" + range(a_line, a_count) + " +" + range(b_line, b_count) + " @@\n" + body;
    k = end;
  }
  return out;
}

}  // namespace amdml::fix
