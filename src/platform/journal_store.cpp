// The journal's directory layout; see journal_store.hpp.
#include "platform/journal_store.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace amdml::platform {

namespace {

std::string utc_format(const char* fmt) {
  std::time_t t = std::time(nullptr);
  std::tm tm {};
  ::gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

}  // namespace

void test_kill_after_point(int step) {
  const char* v = std::getenv("AMDML_TEST_KILL_AFTER_STEP");
  if (!v || !*v) return;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end == '\0' && n == step) ::kill(::getpid(), SIGKILL);
}

std::string utc_now_iso() { return utc_format("%Y-%m-%dT%H:%M:%SZ"); }

bool JournalStore::valid_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

Result<std::string> JournalStore::create() {
  // A sequence number first, so ids sort in the order the runs happened even when the
  // clock jumps or two runs share a second; the caller holds the fix lock.
  AMDML_TRY(auto existing, list());
  int seq = 0;
  for (const auto& e : existing) seq = std::max(seq, std::atoi(e.c_str()));
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%04d", seq + 1);
  std::string id = std::string(prefix) + "-" + utc_format("%Y%m%dT%H%M%SZ");
  std::vector<std::string> created;
  AMDML_TRY_STATUS(tree_.make_dirs(std::string(kJournalDir) + "/" + id, 0700, &created));
  return id;
}

Status JournalStore::put(const std::string& txn, const std::string& name, const std::string& bytes) {
  FileMeta meta;
  meta.mode = 0600;
  return tree_.write(std::string(kJournalDir) + "/" + txn + "/" + name, bytes, meta, nullptr);
}

Result<std::optional<std::string>> JournalStore::get(const std::string& txn, const std::string& name) const {
  AMDML_TRY(auto f, tree_.read(std::string(kJournalDir) + "/" + txn + "/" + name, 64 << 20));
  if (!f.exists) return std::optional<std::string>();
  return std::optional<std::string>(std::move(f.bytes));
}

Status JournalStore::reserve(const std::string& txn, std::uint64_t bytes) {
  return tree_.reserve(std::string(kJournalDir) + "/" + txn + "/reserve", bytes);
}

Status JournalStore::release(const std::string& txn) { return remove(txn, "reserve"); }

Status JournalStore::remove(const std::string& txn, const std::string& name) {
  return tree_.remove(std::string(kJournalDir) + "/" + txn + "/" + name);
}

std::string JournalStore::real_path(const std::string& txn, const std::string& name) const {
  return tree_.real_path(std::string(kJournalDir) + "/" + txn + "/" + name);
}

Result<std::vector<std::string>> JournalStore::list() const {
  AMDML_TRY(auto names, tree_.list(kJournalDir));
  std::vector<std::string> out;
  for (auto& n : names)
    if (valid_id(n)) out.push_back(std::move(n));
  return out;
}

}  // namespace amdml::platform
