// `amdml explain "<error text>"` / `amdml explain -`: find every entry of the error
// catalogue that a pasted text matches (line by line, plus the kernel log's and
// ollama's own classification of their lines), then check each entry's causes against
// the doctor's facts and findings on this machine: confirmed, ruled out or not known,
// with what shows it. Pure functions; the scan is bounded and never fails on bytes.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "amdml/error_catalog.hpp"
#include "amdml/facts.hpp"
#include "amdml/finding.hpp"

namespace amdml {

// A paste larger than this is read from its end (the newest lines), and says so.
inline constexpr std::size_t kMaxExplainInput = 1 << 20;
// A longer line is matched on its first bytes only.
inline constexpr std::size_t kMaxExplainLine = 4096;
// Lines quoted per matched entry (the count says how many matched).
inline constexpr std::size_t kMaxQuotedLines = 3;

struct MatchedLine {
  std::size_t number = 0;  // 1-based, in what was read
  std::string text;        // trimmed, at most 300 bytes
};

struct ErrorMatch {
  const ErrorEntry* entry = nullptr;
  std::vector<MatchedLine> lines;  // the first kMaxQuotedLines
  std::size_t count = 0;           // every line that matched
  // Of the first line: {"gfx", "gfx1031"}, {"num", "1"}, {"word", "polaris12_mc.bin"} ({text} is not kept).
  std::vector<std::pair<std::string, std::string>> captures;
  std::size_t specificity = 0;     // literal bytes of the pattern that matched the first line
  std::string via;                 // "pattern", "kernel log" or "ollama log"
  std::set<std::size_t> seen;      // every line number counted (so one line counts once)
};

struct ErrorScan {
  std::size_t bytes = 0;    // the input's size
  std::size_t lines = 0;    // lines read
  bool truncated = false;   // only the last kMaxExplainInput bytes were read
  bool ollama_log = false;  // the text holds an ollama server start: its entries count from the last one
  std::vector<ErrorMatch> matches;  // first line first; on one line, the most specific first
};

// total: the size of the whole input when text is already its tail (stdin), else 0.
ErrorScan scan_error_text(const ErrorCatalog& catalog, std::string_view text, std::size_t total = 0);

// Whether a pattern matches a line (any case); captures are appended on a match.
bool match_pattern(const ErrorPattern& p, std::string_view line, std::vector<std::pair<std::string, std::string>>* captures);

enum class CauseVerdict { confirmed, unknown, ruled_out };
const char* to_string(CauseVerdict v);

struct CauseEvidence {
  std::string source;  // a finding id ("driver.not-loaded") or a check ("secure-boot")
  std::string text;    // what this machine shows
  bool supports = false;  // true: speaks for the cause; false: against it
};

struct CheckedCause {
  const ErrorCause* cause = nullptr;
  std::size_t rank = 0;  // 1-based place in the catalogue (most likely first)
  CauseVerdict verdict = CauseVerdict::unknown;
  std::vector<CauseEvidence> evidence;
  std::vector<std::string> commands;  // a confirming finding's own commands (already shell-quoted)
  std::vector<std::string> command_roles;  // commands[i]'s role: "run", "then" or "or"
};

// The causes of e on this machine: confirmed first, then not known, then ruled out,
// each group in catalogue order.
std::vector<CheckedCause> check_causes(const ErrorEntry& e, const Facts& facts, const std::vector<Finding>& findings);

// Text that is not a known subject but reads like an error message (several words, or
// punctuation a gfx name, PCI id or product name never has).
bool looks_like_error_text(std::string_view text);
// The entries sharing the most words with text, for "did you mean" (at most max).
std::vector<const ErrorEntry*> nearest_entries(const ErrorCatalog& catalog, std::string_view text, std::size_t max = 3);

}  // namespace amdml
