// Matching pasted text against the error catalogue (see error_explain.hpp). The causes
// are checked in error_causes.cpp.
#include <algorithm>
#include <cctype>
#include <set>

#include "base/text.hpp"
#include "formats/kmsg.hpp"
#include "formats/ollama_log.hpp"
#include "rules/error_explain.hpp"

namespace amdml {

namespace {

using Captures = std::vector<std::pair<std::string, std::string>>;

char low(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (low(c) >= 'a' && low(c) <= 'f'); }
bool is_word(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '+' || c == '-' || c == '~' ||
         c == ':';
}

// The length of a capture of kind k at line[pos] (greedy), or 0 when none starts there.
std::size_t capture_at(CaptureKind k, std::string_view l, std::size_t pos) {
  std::size_t i = pos;
  switch (k) {
    case CaptureKind::gfx:
      if (l.substr(pos, 3) != "gfx") return 0;
      i += 3;
      while (i < l.size() && i - pos < 7 && is_hex(l[i])) ++i;
      return i - pos >= 5 ? i - pos : 0;
    case CaptureKind::num:
      if (i < l.size() && l[i] == '-') ++i;
      while (i < l.size() && is_digit(l[i])) ++i;
      return i > pos && is_digit(l[i - 1]) ? i - pos : 0;
    case CaptureKind::word:
      while (i < l.size() && is_word(l[i])) ++i;
      return i - pos;
    case CaptureKind::text: return l.size() - pos;
  }
  return 0;
}

// The rest of the parts from part i, at line position pos (the parts before matched).
// A {text} before a literal takes as little as lets that literal follow.
bool match_rest(const ErrorPattern& p, std::size_t i, std::string_view lower, std::string_view line, std::size_t pos,
                Captures& caps) {
  if (i == p.parts.size()) return true;
  const PatternPart& part = p.parts[i];
  if (!part.capture) {
    if (lower.substr(pos, part.literal.size()) != part.literal) return false;
    return match_rest(p, i + 1, lower, line, pos + part.literal.size(), caps);
  }
  if (part.kind == CaptureKind::text && i + 1 < p.parts.size()) {
    const std::string& next = p.parts[i + 1].literal;
    auto at = lower.find(next, pos);
    if (at == std::string_view::npos) return false;
    caps.emplace_back(to_string(part.kind), std::string(line.substr(pos, at - pos)));
    return match_rest(p, i + 1, lower, line, at, caps);
  }
  std::size_t n = capture_at(part.kind, lower, pos);
  if (n == 0) return false;
  caps.emplace_back(to_string(part.kind), std::string(line.substr(pos, n)));
  return match_rest(p, i + 1, lower, line, pos + n, caps);
}

std::string lowered(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = low(c);
  return out;
}

// A leading capture ends where the first literal starts: the literal is searched, then
// the capture is read backwards from it.
bool match_leading_capture(const ErrorPattern& p, std::string_view lower, std::string_view line, Captures& caps) {
  const PatternPart& cap = p.parts[0];
  const std::string& lit = p.parts[1].literal;
  int tries = 0;
  for (auto at = lower.find(lit); at != std::string_view::npos && tries++ < 64; at = lower.find(lit, at + 1)) {
    std::size_t start = 0;
    if (cap.kind != CaptureKind::text) {
      // The longest capture of its kind that ends exactly at the literal (bounded look-back).
      start = at > 64 ? at - 64 : 0;
      while (start < at && capture_at(cap.kind, lower, start) != at - start) ++start;
      if (start == at) continue;
    }
    Captures c;
    c.emplace_back(to_string(cap.kind), std::string(line.substr(start, at - start)));
    if (match_rest(p, 1, lower, line, at, c)) {
      caps.insert(caps.end(), c.begin(), c.end());
      return true;
    }
  }
  return false;
}

}  // namespace

namespace {

// Occurrences of a pattern's first literal tried per line: a hostile line repeating it
// costs a bounded time.
constexpr int kMaxStarts = 64;

bool match_lowered(const ErrorPattern& p, std::string_view lower, std::string_view line, Captures* captures) {
  if (p.parts.empty()) return false;
  Captures caps;
  bool ok = false;
  if (p.parts[0].capture) {
    ok = p.parts.size() > 1 && match_leading_capture(p, lower, line, caps);
  } else {
    const std::string& first = p.parts[0].literal;
    int tries = 0;
    for (auto at = lower.find(first); at != std::string_view::npos && !ok && tries++ < kMaxStarts;
         at = lower.find(first, at + 1)) {
      caps.clear();
      ok = match_rest(p, 0, lower, line, at, caps);
    }
  }
  if (ok && captures) captures->insert(captures->end(), caps.begin(), caps.end());
  return ok;
}

}  // namespace

bool match_pattern(const ErrorPattern& p, std::string_view line, Captures* captures) {
  return match_lowered(p, lowered(line), line, captures);
}

namespace {

// One input line, trimmed, cut to kMaxExplainLine for matching.
struct Line {
  std::size_t number;
  std::string_view text;
};

std::string quoted(std::string_view s) {
  s = text::trim(s);
  return std::string(s.substr(0, 300));
}

// "[    3.636913] " of dmesg and "Nov 20 09:14:01 host kernel: " of journalctl in front of
// a kernel line; the record's text is what follows.
std::string_view kernel_text(std::string_view l) {
  if (!l.empty() && l[0] == '[') {
    auto end = l.find(']');
    if (end != std::string_view::npos && end < 20) return text::trim(l.substr(end + 1));
  }
  auto k = l.find(" kernel: ");
  if (k != std::string_view::npos && k < 64) return l.substr(k + 9);
  return l;
}

void add_hit(std::vector<ErrorMatch>& out, const ErrorEntry& e, const Line& l, const Captures& caps, std::size_t spec,
             const char* via) {
  auto it = std::find_if(out.begin(), out.end(), [&](const ErrorMatch& m) { return m.entry == &e; });
  if (it == out.end()) {
    ErrorMatch m;
    m.entry = &e;
    for (const auto& c : caps)
      if (c.first != "text") m.captures.push_back(c);
    m.specificity = spec;
    m.via = via;
    out.push_back(std::move(m));
    it = out.end() - 1;
  }
  if (!it->seen.insert(l.number).second) return;  // counted already
  ++it->count;
  if (it->lines.size() < kMaxQuotedLines) it->lines.push_back({l.number, quoted(l.text)});
}

// Where the last ollama start begins: the last `msg="server config"` line (0: none).
std::size_t ollama_start(const std::vector<Line>& lines) {
  std::size_t start = 0;
  for (const auto& l : lines)
    if (l.text.find("msg=\"server config\"") != std::string_view::npos) start = l.number;
  return start;
}

}  // namespace

ErrorScan scan_error_text(const ErrorCatalog& catalog, std::string_view text, std::size_t total) {
  ErrorScan scan;
  scan.bytes = std::max(total, text.size());
  if (text.size() > kMaxExplainInput || scan.bytes > text.size()) {
    if (text.size() > kMaxExplainInput) text = text.substr(text.size() - kMaxExplainInput);
    auto nl = text.find('\n');  // drop the partial first line
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    scan.truncated = true;
  }
  std::vector<Line> lines;
  for (auto l : text::split_lines(text)) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back({lines.size() + 1, l.substr(0, kMaxExplainLine)});
  }
  scan.lines = lines.size();
  const std::size_t from = ollama_start(lines);
  scan.ollama_log = from > 0;
  std::vector<ErrorMatch>& out = scan.matches;
  for (const auto& l : lines) {
    if (text::trim(l.text).empty()) continue;
    const std::string lower = lowered(l.text);
    for (const auto& e : catalog.entries) {
      if (e.ollama && l.number < from) continue;
      for (const auto& p : e.patterns) {
        Captures caps;
        if (match_lowered(p, lower, l.text, &caps)) {
          add_hit(out, e, l, caps, p.literal_size, "pattern");
          break;
        }
      }
    }
  }
  // The kernel log's own reading of the lines (formats::kmsg::classify).
  std::vector<formats::kmsg::Record> records;
  std::vector<std::size_t> record_line;
  for (const auto& l : lines) {
    formats::kmsg::Record r;
    r.text = std::string(kernel_text(l.text).substr(0, formats::kmsg::kMaxLineBytes));
    records.push_back(std::move(r));
    record_line.push_back(l.number - 1);
  }
  std::size_t cursor = 0;
  for (const auto& ev : formats::kmsg::classify(records)) {
    while (cursor < records.size() && records[cursor].text != ev.line) ++cursor;
    if (cursor == records.size()) break;
    for (const auto& e : catalog.entries)
      if (e.kernel == ev.kind) add_hit(out, e, lines[record_line[cursor]], {}, 0, "kernel log");
  }
  // ollama's reading of its last start (formats::ollama_log::last_start), matched back to lines
  // from the end.
  auto ol = formats::ollama_log::last_start(text);
  std::size_t back = lines.size();
  for (auto it = ol.rbegin(); it != ol.rend(); ++it) {
    while (back > 0 && lines[back - 1].text.find(it->line.substr(0, 200)) == std::string_view::npos) --back;
    if (back == 0) break;
    --back;
    for (const auto& e : catalog.entries)
      if (e.ollama == it->reason) add_hit(out, e, lines[back], {}, 0, "ollama log");
  }
  for (auto& m : out)
    std::sort(m.lines.begin(), m.lines.end(), [](const MatchedLine& a, const MatchedLine& b) { return a.number < b.number; });
  std::stable_sort(out.begin(), out.end(), [](const ErrorMatch& a, const ErrorMatch& b) {
    if (a.lines.front().number != b.lines.front().number) return a.lines.front().number < b.lines.front().number;
    return a.specificity > b.specificity;
  });
  return scan;
}

bool looks_like_error_text(std::string_view t) {
  t = text::trim(t);
  if (t.find_first_of(":=!()[]{}<>\"'\n/\\_") != std::string_view::npos && t.size() > 8) return true;
  return text::split_ws(t).size() >= 4;
}

std::vector<const ErrorEntry*> nearest_entries(const ErrorCatalog& catalog, std::string_view text, std::size_t max) {
  auto words = [](std::string_view s) {
    std::set<std::string> out;
    std::string w;
    for (char c : s) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        w += low(c);
      } else {
        if (w.size() >= 4) out.insert(w);
        w.clear();
      }
    }
    if (w.size() >= 4) out.insert(w);
    return out;
  };
  const auto mine = words(text.substr(0, kMaxExplainLine));
  std::vector<std::pair<std::size_t, const ErrorEntry*>> scored;
  for (const auto& e : catalog.entries) {
    std::string all = e.title + " " + e.sample;
    for (const auto& p : e.patterns) all += " " + p.source;
    std::size_t n = 0;
    for (const auto& w : words(all)) n += mine.count(w);
    if (n > 0) scored.emplace_back(n, &e);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const ErrorEntry*> out;
  for (const auto& s : scored)
    if (out.size() < max) out.push_back(s.second);
  return out;
}

}  // namespace amdml
