// Text for people about `amdml fix`: the recipe list, the plan (unified diffs,
// commands, follow-ups), what an apply did, what the re-probe found, what an undo
// restored. Strings only, from the fix engine's data (amdml/plan.hpp); the CLI prints
// them through the one stdout writer.
//
// The diffs: config files are small, so a plain LCS table is enough; past a size cap
// the diff degrades to "replace everything", which is still correct, only less pleasant.
#include "render/fix_text.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "formats/fix_params_json.hpp"
#include "render/render.hpp"

namespace amdml::render {

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

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    out += pad + text.substr(i, j - i) + "\n";
    i = j + 1;
  }
  return out;
}

std::string pad_to(std::string s, std::size_t n) {
  if (s.size() < n) s += std::string(n - s.size(), ' ');
  else s += ' ';
  return s;
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

std::string format_recipe_list(const std::vector<Recipe>& recipes) {
  std::string out = "Fix recipes (amdml fix --only ID):\n";
  for (const auto& r : recipes) {
    out += "  " + pad_to(r.id, 18) + r.title + "\n";
    std::string res, steps;
    for (const auto& f : r.resolves) res += (res.empty() ? "" : ", ") + f;
    for (const auto& s : r.steps) steps += (steps.empty() ? "" : ", ") + std::string(to_string(kind_of(s)));
    if (!res.empty()) out += "  " + std::string(18, ' ') + "resolves: " + res + "\n";
    out += "  " + std::string(18, ' ') + "steps:    " + steps + "\n";
  }
  return out;
}

std::string format_plan(const FixPlan& plan, bool rooted, const std::string& sudo_command) {
  std::string out;
  if (plan.recipes.empty()) return "Nothing to do: no finding has a fix recipe.\n";
  int pending = 0;
  for (const auto& rp : plan.recipes) pending += rp.pending() ? 1 : 0;
  out += "amdml fix: " + std::to_string(pending) + " of " + std::to_string(plan.recipes.size()) +
         (plan.recipes.size() == 1 ? " recipe" : " recipes") + " would change this machine" +
         (rooted ? " (--root: inside the tree only; commands are recorded, not run)" : "") + "\n";
  for (const auto& rp : plan.recipes) {
    out += "\n[" + rp.ref.recipe + "]" + (rp.recipe ? " " + rp.recipe->title : "") + "\n";
    for (const auto& f : rp.findings) out += "  resolves " + std::string(to_string(f.id)) + ": " + f.title + "\n";
    // A recipe asked for with --only that no finding gave parameters (it says why) has none.
    if (std::any_of(rp.findings.begin(), rp.findings.end(), [](const Finding& f) { return f.fix.has_value(); }) ||
        !rp.resumes.empty())
      out += "  params " + json_text(formats::fix_params_json(rp.ref.params), -1) + "\n";
    if (rp.refused) {
      out += "  REFUSED: " + rp.refused->message + "\n";
      for (const auto& f : rp.findings)
        for (const auto& c : f.commands) out += "  by hand: " + c + "\n";
      continue;
    }
    if (!rp.pending()) {
      out += "  already in place: nothing to do\n";
    } else {
      for (const auto& fc : rp.files) {
        if (!fc.changes()) {
          out += "  " + fc.path + ": already as wanted\n";
          continue;
        }
        out += "  " + fc.path + ": " + fc.why + (fc.before ? "" : " (new file)") + "\n";
        if (!fc.fetch_url.empty()) {
          out += "    fetched when applied from " + fc.fetch_url + "; refused unless its primary key fingerprint is " +
                 fc.fingerprint + "\n";
          continue;
        }
        out += indent(unified_diff(fc.path, fc.before, fc.after), "    ");
      }
      for (const auto& c : rp.commands) out += "  run: " + c.text() + "   # " + text::one_line(c.why) + "\n";
    }
    for (const auto& n : rp.notes) out += "  note: " + n + "\n";
    for (const auto& t : rp.follow_up_text) out += "  then: " + t + "\n";
  }
  out += "\n";
  if (plan.pending()) out += "Nothing was written. To make these changes: " + sudo_command + "\n";
  else out += "Nothing to do.\n";
  return out;
}

std::string format_apply(const ApplyOutcome& out, const FixPlan& plan) {
  return format_apply(out, plan, "amdml fix --undo " + text::shell_word(out.txn));
}

std::string format_apply(const ApplyOutcome& out, const FixPlan& plan, const std::string& undo_command) {
  std::string s;
  if (out.txn.empty()) return "Nothing to do: every recipe is already in place.\n";
  if (out.ok) {
    s += "Applied (transaction " + out.txn + "):\n";
    for (const auto& p : out.written) s += "  wrote " + p + "\n";
  } else {
    s += "FAILED (transaction " + out.txn + "): " + (out.failure ? out.failure->message : std::string("?")) + "\n";
    if (out.rollback_errors.empty()) s += "  Rolled back: every file this run wrote has its previous bytes again.\n";
    else {
      for (const auto& e : out.rollback_errors) s += "  could NOT roll back: " + e + "\n";
      s += "  The journal keeps every previous byte: once the cause is gone, `" + undo_command +
           "` finishes the rollback.\n";
    }
  }
  for (const auto& c : out.commands) {
    s += "  " + std::string(c.ran ? "ran " : "") + text::shell_words(c.argv) + ": " + c.note + "\n";
  }
  if (out.ok) s += "Undo with: " + undo_command + "\n";
  (void)plan;
  return s;
}

std::vector<std::pair<FollowUp, std::string>> applied_follow_ups(const FixPlan& plan, const ApplyOutcome& out) {
  std::set<std::pair<FollowUp, std::string>> seen;
  for (const auto& rp : plan.recipes) {
    if (std::find(out.recipes_applied.begin(), out.recipes_applied.end(), rp.ref.recipe) == out.recipes_applied.end()) continue;
    for (std::size_t i = 0; i < rp.follow_ups.size(); ++i) seen.insert({rp.follow_ups[i], rp.follow_up_text[i]});
  }
  return {seen.begin(), seen.end()};
}

std::string format_verify(const FixPlan& plan, const ApplyOutcome& out, const std::vector<VerifyLine>& verdicts) {
  if (!out.ok || out.txn.empty()) return "";
  std::string gone, waiting, left, still;
  for (const auto& l : verdicts) {
    std::string what = std::string(to_string(l.id)) + " (" + l.title + ")";
    switch (l.status) {
      case VerifyStatus::gone: gone += "  gone: " + what + "\n"; break;
      case VerifyStatus::after_reboot: waiting += "  after a reboot: " + what + "\n"; break;
      case VerifyStatus::after_relogin: waiting += "  after a new login: " + what + "\n"; break;
      case VerifyStatus::after_commands: waiting += "  after the recorded commands run: " + what + "\n"; break;
      case VerifyStatus::next_run: waiting += "  next run: " + what + ": run `amdml fix` again\n"; break;
      case VerifyStatus::now: waiting += "  now: " + what + "\n"; break;
      case VerifyStatus::left: left += "  left for you: " + what + "\n"; break;
      case VerifyStatus::still: still += "  still there: " + what + "\n"; break;
    }
  }
  std::string s = "Re-diagnosis:\n" + gone + waiting + left + still;
  auto follow = applied_follow_ups(plan, out);
  for (const auto& [need, t] : follow)
    if (need == FollowUp::reboot) s += "Reboot needed: " + t + "\n";
  for (const auto& [need, t] : follow)
    if (need == FollowUp::relogin) s += "Then: " + t + "\n";
  return s;
}

std::string format_undo(const UndoOutcome& out) {
  if (out.nothing) return out.message + "\n";
  std::string s = "Undid transaction " + out.txn + ":\n";
  for (const auto& r : out.restored) s += "  " + r + "\n";
  for (const auto& c : out.commands) {
    s += "  " + std::string(c.ran ? "ran " : "") + text::shell_words(c.argv) + ": " + c.note + "\n";
  }
  for (const auto& k : out.skipped) s += "  SKIPPED " + k + "\n";
  if (!out.skipped.empty())
    s += "Partly undone: every other change is back. Once the skipped ones are as amdml left them, `amdml fix --undo " + out.txn +
         "` tries them again.\n";
  return s;
}

}  // namespace amdml::render