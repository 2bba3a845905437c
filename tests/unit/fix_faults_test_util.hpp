// Shared by the fix fault-injection tests (fix_faults_*.cpp): the recipe scenarios on a
// copy of tests/fixtures/fix-apu, a syscall layer that fails from the Nth call of one
// operation on (once, or for good: a disk that stays full, a file system that stays
// read-only), and the checks every faulted run must pass -- each planned file is its
// old or its new bytes, no temp file is left, the journal says what happened.
#pragma once

#include <algorithm>

#include <fcntl.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "fix_test_util.hpp"
#include "platform/safe_tree.hpp"

namespace faulttest {

using namespace amdml;
using namespace fixtest;
using Op = platform::FaultyFsOps::Op;

inline const char* op_name(Op op) {
  switch (op) {
    case Op::open: return "open";
    case Op::write: return "write";
    case Op::fsync: return "fsync";
    case Op::fchmod: return "fchmod";
    case Op::fchown: return "fchown";
    case Op::rename: return "rename";
    case Op::unlink: return "unlink";
    case Op::mkdir: return "mkdir";
  }
  return "?";
}
inline constexpr Op kAllOps[] = {Op::open, Op::write, Op::fsync, Op::fchmod, Op::fchown, Op::rename, Op::unlink, Op::mkdir};

// Fails the nth call of op (1-based) with err -- only that call, or (sticky) every call
// from the nth on. Counts every operation, so a clean run tells how many calls there are.
class FaultOps final : public platform::FsOps {
 public:
  FaultOps(Op op, int nth, int err, bool sticky) : op_(op), nth_(nth), err_(err), sticky_(sticky) {}
  int calls(Op op) const { return counts_[static_cast<int>(op)]; }
  int fired() const { return fired_; }

  int openat(int dirfd, const char* path, int flags, unsigned mode) override {
    // Like FaultyFsOps: only opens that create count (reads are not what can fail here).
    if ((flags & O_CREAT) && hit(Op::open)) return -1;
    return FsOps::openat(dirfd, path, flags, mode);
  }
  ssize_t write(int fd, const void* buf, std::size_t n) override {
    return hit(Op::write) ? -1 : FsOps::write(fd, buf, n);
  }
  int fsync(int fd) override { return hit(Op::fsync) ? -1 : FsOps::fsync(fd); }
  int fchmod(int fd, unsigned mode) override { return hit(Op::fchmod) ? -1 : FsOps::fchmod(fd, mode); }
  int fchown(int fd, uid_t uid, gid_t gid) override { return hit(Op::fchown) ? -1 : FsOps::fchown(fd, uid, gid); }
  int renameat(int a, const char* b, int c, const char* d) override {
    return hit(Op::rename) ? -1 : FsOps::renameat(a, b, c, d);
  }
  int unlinkat(int dirfd, const char* path, int flags) override {
    return hit(Op::unlink) ? -1 : FsOps::unlinkat(dirfd, path, flags);
  }
  int mkdirat(int dirfd, const char* path, unsigned mode) override {
    return hit(Op::mkdir) ? -1 : FsOps::mkdirat(dirfd, path, mode);
  }
  // Taking space is a write: the journal's reservation fails like a write on a full disk.
  int fallocate(int fd, off_t len) override { return hit(Op::write) ? -1 : FsOps::fallocate(fd, len); }

 private:
  bool hit(Op op) {
    int n = ++counts_[static_cast<int>(op)];
    if (op != op_ || n < nth_ || (!sticky_ && n != nth_)) return false;
    ++fired_;
    errno = err_;
    return true;
  }
  Op op_;
  int nth_;
  int err_;
  bool sticky_;
  int counts_[8] = {};
  int fired_ = 0;
};

// Errnos a real machine gives each operation; the fault tests cycle through them.
inline std::vector<int> errnos_for(Op op) {
  switch (op) {
    case Op::open: return {EROFS, ENOSPC, EACCES, EDQUOT};
    case Op::write: return {ENOSPC, EIO, EROFS, EDQUOT};
    case Op::fsync: return {EIO, ENOSPC, EROFS};
    case Op::fchmod: return {EPERM, EROFS};
    case Op::fchown: return {EPERM, EROFS};
    case Op::rename: return {EXDEV, EROFS, ENOSPC, EIO};
    case Op::unlink: return {EROFS, EIO, EBUSY};
    case Op::mkdir: return {EROFS, ENOSPC, EEXIST};
  }
  return {EIO};
}

constexpr std::uint64_t k24GiBPages = 6291456;

// One recipe (or all of them) applied to a fresh copy of fix-apu.
struct Scenario {
  std::string name;
  std::optional<std::string> only;  // --only RECIPE
  std::vector<Finding> extra;       // findings whose rules live in other layers
};

// Every finding is literal: the scenarios exercise the fix engine, not the rules, so
// they do not change when a rule does.
inline std::vector<Scenario> scenarios() {
  Finding groups = literal_finding("access.kfd", "groups", {{"user", "alice"}, {"groups", {"render", "video"}}});
  Finding ttm = literal_finding("memory.gtt-limit", "ttm-pages-limit",
                                {{"module", "ttm"}, {"pages_limit", k24GiBPages}, {"page_pool_size", k24GiBPages}});
  Finding hsa = literal_finding("gfx.override-needed", "hsa-override", {{"value", "11.0.0"}});
  Finding ollama = literal_finding("ollama.env", "ollama-override",
                                   {{"env", {{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}, {"OLLAMA_IGPU_ENABLE", "1"}}}});
  return {{"groups", std::string("groups"), {groups}},
          {"ttm-pages-limit", std::string("ttm-pages-limit"), {ttm}},
          {"hsa-override", std::string("hsa-override"), {hsa}},
          {"ollama-override", std::string("ollama-override"), {ollama}},
          {"all", std::nullopt, {groups, ttm, hsa, ollama}}};
}

// A tree, diagnosed, with the scenario's plan.
struct Bench {
  TempTree t{"fix-apu"};
  std::unique_ptr<Diagnosed> d;
  std::vector<Finding> findings;
  fix::ApplyOptions options;
  std::map<std::string, std::string> original;
  amdml::Plan plan;

  explicit Bench(const Scenario& s) {
    options.run_commands = false;
    options.live = false;
    options.lock_timeout_ms = 1000;
    original = snapshot(t.dir);
    replan(s);
  }
  void replan(const Scenario& s) {
    d = std::make_unique<Diagnosed>(t.str());
    findings = d->findings;
    for (const auto& f : s.extra) findings.push_back(f);
    platform::SafeTree tree(t.str());
    fix::PlanInputs in{*d->host, tree, d->facts, findings, d->recipes, s.only};
    plan = fix::plan_fixes(in);
  }
  Result<amdml::ApplyOutcome> apply(platform::FsOps& target_ops, platform::FsOps& journal_ops) {
    platform::SafeTree targets(t.str(), target_ops), journal(t.str(), journal_ops);
    return fix::apply_plan(plan, *d->host, targets, journal, options);
  }
  Result<amdml::UndoOutcome> undo() {
    platform::SafeTree tree(t.str());
    return fix::undo_transaction(std::nullopt, *d->host, tree, tree, options);
  }
  std::optional<nlohmann::json> journal(const std::string& txn) const {
    auto p = t / ("var/lib/amdml/journal/" + txn + "/journal.json");
    if (!fs::exists(p)) return std::nullopt;
    auto j = nlohmann::json::parse(read_file(p), nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return j;
  }
  // Each file the plan changes: "old", "new" or a description of how it is neither.
  std::map<std::string, std::string> file_states() const { return file_states(plan); }
  // A file two recipes change (e.g. /etc/group for the person and for the ollama
  // user) is "old" as the first change found it and "new" as the last one leaves it.
  std::map<std::string, std::string> file_states(const amdml::Plan& p) const {
    // A fault that persists can stop the rollback between two such changes: the file
    // then holds what the earlier change wrote, whole ("step").
    std::map<std::string, std::pair<std::optional<std::string>, std::string>> ends;  // path -> (first before, last after)
    std::map<std::string, std::vector<std::string>> steps;                           // path -> intermediate contents
    for (const auto& rp : p.recipes)
      for (const auto& fc : rp.files) {
        if (!fc.changes()) continue;
        auto it = ends.find(fc.path);
        if (it == ends.end()) {
          ends.emplace(fc.path, std::make_pair(fc.before, fc.after));
        } else {
          steps[fc.path].push_back(it->second.second);
          it->second.second = fc.after;
        }
      }
    std::map<std::string, std::string> out;
    for (const auto& [path, e] : ends) {
      const auto& [before, after] = e;
      fs::path fp = t.dir / path.substr(1);
      bool exists = fs::is_regular_file(fs::symlink_status(fp));
      std::string now = exists ? read_file(fp) : "";
      if (exists && now == after) out[path] = "new";
      else if (!exists && !before) out[path] = "old";
      else if (exists && before && now == *before) out[path] = "old";
      else if (exists && std::count(steps[path].begin(), steps[path].end(), now)) out[path] = "step";
      else out[path] = exists ? "TORN (" + std::to_string(now.size()) + " bytes)" : "MISSING";
    }
    return out;
  }
  // Temp files the atomic writer left behind (".NAME.amdml-PID-N").
  std::vector<std::string> temp_files() const {
    std::vector<std::string> out;
    for (auto it = fs::recursive_directory_iterator(t.dir); it != fs::recursive_directory_iterator(); ++it)
      if (it->path().filename().string().find(".amdml-") != std::string::npos) out.push_back(it->path().string());
    return out;
  }
  std::map<std::string, std::string> snapshot_now() const { return snapshot(t.dir); }
};

inline bool all_are(const std::map<std::string, std::string>& states, const std::string& want) {
  for (const auto& [path, s] : states)
    if (s != want) return false;
  return !states.empty();
}

inline std::string describe(const std::map<std::string, std::string>& states) {
  std::string out;
  for (const auto& [path, s] : states) out += path + "=" + s + " ";
  return out;
}

}  // namespace faulttest
