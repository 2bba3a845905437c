// What a killed run left to do: the transactions still "applying", the recipes they
// were asked for, and the commands they still owe (journaled "pending" or "running":
// the files were written, update-grub or apt-get install never finished).
#include <algorithm>

#include "base/text.hpp"
#include "fix/fix.hpp"
#include "fix/journal.hpp"
#include "formats/fix_params_json.hpp"
#include "platform/journal_store.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

// Every transaction a killed run left "applying" that no later apply finished.
std::vector<Transaction> interrupted(platform::SafeTree& journal_tree) {
  std::vector<Transaction> out;
  platform::JournalStore store(journal_tree);
  auto ids = store.list();
  if (!ids) return out;
  for (const auto& id : *ids) {
    auto t = load_journal(store, id);
    if (!t || !*t) continue;
    if ((*t)->state != TxnState::applying || !(*t)->resumed_by.empty()) continue;
    if ((*t)->id.empty()) (*t)->id = id;
    out.push_back(std::move(**t));
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, FixRef>> interrupted_requests(platform::SafeTree& journal_tree) {
  std::vector<std::pair<std::string, FixRef>> out;
  for (const auto& t : interrupted(journal_tree)) {
    // A format-1 journal names its recipes without parameters: only announced.
    if (!t.requests) {
      out.emplace_back(t.id, FixRef{});
      continue;
    }
    // Parameters that do not read back are kept as a request for no recipe: the
    // transaction is still interrupted, but nothing is planned from them.
    for (const auto& r : *t.requests) {
      auto params = formats::parse_fix_params(r.params);
      out.emplace_back(t.id, params ? FixRef{r.recipe, *params} : FixRef{});
    }
  }
  return out;
}

std::vector<std::string> interrupted_transactions(platform::SafeTree& journal_tree) {
  std::vector<std::string> out;
  for (const auto& [id, ref] : interrupted_requests(journal_tree))
    if (out.empty() || out.back() != id) out.push_back(id);
  return out;
}

void add_owed_commands(RecipePlan& rp, platform::SafeTree& journal_tree) {
  if (rp.resumes.empty() || rp.refused || !rp.recipe) return;
  const bool files_change = std::any_of(rp.files.begin(), rp.files.end(), [](const FileChange& f) { return f.changes(); });
  std::vector<Command> owed;
  for (const auto& t : interrupted(journal_tree)) {
    if (std::find(rp.resumes.begin(), rp.resumes.end(), t.id) == rp.resumes.end()) continue;
    for (const auto& c : t.commands) {
      // A rename is planned again from the tree as it is now (moved already, or not).
      if (c.recipe != rp.recipe->id || c.rollback || c.rename || c.done() || c.state == CommandState::failed) continue;
      Command cmd{c.argv, "owed by transaction " + t.id + ", interrupted " +
                              (c.state == CommandState::running ? "while it ran" : "before it ran"),
                  std::chrono::milliseconds(c.timeout_ms > 0 ? c.timeout_ms : 60000)};
      cmd.undo = c.undo;
      cmd.resumes = t.id;
      owed.push_back(std::move(cmd));
    }
  }
  if (owed.empty()) return;
  std::vector<std::string> names;
  // Files to write again: the recipe's commands run anyway after them; an owed command
  // it does not plan itself is added. No file to write: exactly the owed commands (and
  // the renames the plan still has) run, not the recipe's commands that already ran.
  std::vector<Command> keep;
  for (auto& c : rp.commands)
    if (files_change || c.rename) keep.push_back(std::move(c));
  for (auto& c : owed) {
    auto same = std::find_if(keep.begin(), keep.end(), [&](const Command& k) { return k.argv == c.argv; });
    names.push_back(text::join(c.argv, " "));
    if (same != keep.end()) same->resumes = c.resumes;
    else keep.push_back(std::move(c));
  }
  rp.commands = std::move(keep);
  rp.notes.push_back("finishes transaction " + rp.resumes.front() + ": its files are in place, but it was interrupted before " +
                     "these commands finished: " + text::join(names, "; "));
}

}  // namespace amdml::fix
