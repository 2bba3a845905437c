// Where `amdml fix` keeps its journal: /var/lib/amdml/journal/<txn>/ inside the tree
// (so inside --root DIR in tests). One directory per transaction, named by a sequence
// number and the UTC time so names sort oldest first; files in it are written atomically, mode 0600 --
// a backup of /etc/gshadow must be no more readable than the original.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/safe_tree.hpp"

namespace amdml::platform {

inline constexpr const char* kStateDir = "/var/lib/amdml";
inline constexpr const char* kJournalDir = "/var/lib/amdml/journal";
inline constexpr const char* kLockPath = "/var/lib/amdml/lock";

class JournalStore {
 public:
  explicit JournalStore(SafeTree& tree) : tree_(tree) {}

  // Makes a new, empty transaction directory; returns its id ("0003-20261121T061500Z").
  Result<std::string> create();
  Status put(const std::string& txn, const std::string& name, const std::string& bytes);
  // nullopt when the file is not there.
  Result<std::optional<std::string>> get(const std::string& txn, const std::string& name) const;
  // Space for what the journal still has to write (journal.json rewrites, the command
  // records): a file of `bytes` allocated now, so a disk that fills up later fails this
  // and not a step after the first target changed. release() gives the space back.
  Status reserve(const std::string& txn, std::uint64_t bytes);
  Status release(const std::string& txn);
  Status remove(const std::string& txn, const std::string& name);
  // The file's path on this machine, for messages.
  std::string real_path(const std::string& txn, const std::string& name) const;
  // Transaction ids, oldest first.
  Result<std::vector<std::string>> list() const;
  static bool valid_id(const std::string& id);

 private:
  SafeTree& tree_;
};

// Test seam (docs/fix.md): with AMDML_TEST_KILL_AFTER_STEP=N the process SIGKILLs itself
// right after step N of an apply did its work (a directory made, a file written, a
// rename or command done) and before the journal records that it did. The kill before
// a step is test_kill_point (safe_tree.hpp). N=-K: right after step K made the parent
// directories of its file, before the journal lists what was made.
void test_kill_after_point(int step);

// The current UTC time as "2026-11-21T06:15:00Z".
std::string utc_now_iso();

}  // namespace amdml::platform
