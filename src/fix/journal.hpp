// A fix transaction's journal in its directory: journal.json (formats/journal.hpp, the
// typed Transaction and its codec) and the before/after copies, through the JournalStore.
//
// Journal keeps the Transaction a run works on and saves it whole; every state change
// is saved before the step it announces (write-ahead): a change is journaled before its
// file or its parent directories are created, a command or rename before it starts. So
// a SIGKILL at any instant leaves a journal that says everything that may have happened.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "base/result.hpp"
#include "formats/journal.hpp"
#include "platform/host.hpp"
#include "platform/journal_store.hpp"

namespace amdml::fix {

using formats::ChangeState;
using formats::CommandState;
using formats::Transaction;
using formats::TxnState;

struct Journal {
  platform::JournalStore store;
  std::string id;
  Transaction txn;
  bool reserved = false;

  // journal.json rewritten atomically. A full disk gives the reserved space back and
  // tries once more: the reserve is for exactly this.
  Status save();
  void release();
};

// journal.json of transaction id, read and checked; a missing file is nullopt. Errors
// name the file (its real path) in one line.
Result<std::optional<Transaction>> load_journal(platform::JournalStore& store, const std::string& id);

// The last bytes of a command's output that the journal keeps (the end holds the error).
std::string output_tail(const std::string& out);

// The packages dpkg's status (read through the host, so --root sees the tree's) has
// files of on disk (formats::parse::DpkgPackage::on_disk: half-installed to installed,
// not config-files or not-installed); nullopt when the status file cannot be read.
std::optional<std::set<std::string>> installed_packages(const platform::Host& host);

}  // namespace amdml::fix
