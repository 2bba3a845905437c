// The installed knowledge store (see knowledge_store.hpp).
#include "platform/knowledge_store.hpp"

#include <cerrno>
#include <ctime>

#include <nlohmann/json.hpp>

#include "base/text.hpp"
#include "formats/knowledge_bin.hpp"

namespace amdml::platform {

namespace {

const std::string kStore = kKnowledgeStore;

// A pointer file's date: one line "YYYY-MM-DD" (so it cannot name a path elsewhere).
Result<std::string> pointer_date(const std::string& bytes, const std::string& shown) {
  std::string date(text::trim(bytes));
  if (!parse_day(date)) return make_error(shown + ": not a bundle date (\"" + text::one_line(date.substr(0, 40)) + "\")");
  return date;
}

Result<std::string> read_pointer(const SafeTree& tree, const char* name) {
  AMDML_TRY(auto st, tree.read(kStore + "/" + name, 4096));
  if (!st.exists) return std::string();
  return pointer_date(st.bytes, tree.real_path(kStore + "/" + name));
}

// Removes a directory and everything below it (regular files and directories only: a
// symlink or device in the store is an error, never followed).
Status remove_tree(SafeTree& tree, const std::string& dir, int depth = 0) {
  if (depth > 4) return make_error(tree.real_path(dir) + ": nested too deep; not removing it", ELOOP);
  AMDML_TRY(auto names, tree.list(dir));
  for (const auto& n : names) {
    std::string p = dir + "/" + n;
    auto removed = tree.remove(p);
    if (!removed && removed.error().code == EINVAL) removed = remove_tree(tree, p, depth + 1);
    if (!removed) return removed;
  }
  return tree.remove_dir_if_empty(dir);
}

Status write_pointer(SafeTree& tree, const char* name, const std::string& date) {
  return tree.write(kStore + "/" + name, date + "\n", FileMeta{0644, std::nullopt, std::nullopt});
}

}  // namespace

std::optional<std::string> host_today(const Host& host) {
  if (host.live()) {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    if (!::gmtime_r(&now, &tm)) return std::nullopt;
    char buf[16];
    if (std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm) != 10) return std::nullopt;
    // A snapshot keeps the day it was taken as amdml-host.json's "time", so its replay
    // judges the knowledge's age as the live run did (a no-op on other hosts).
    host.record_fact("time", std::string(buf));
    return std::string(buf);
  }
  auto t = host.recorded("time");
  if (!t || !t->is_string()) return std::nullopt;
  std::string day = t->get<std::string>().substr(0, 10);
  if (!parse_day(day)) return std::nullopt;
  return day;
}

Result<std::optional<Knowledge>> read_installed_knowledge(const Host& host) {
  auto pointer = host.read_file(kStore + "/current", 4096);
  if (!pointer) {
    if (pointer.error().code == ENOENT) return std::optional<Knowledge>();
    return pointer.error();
  }
  AMDML_TRY(auto date, pointer_date(*pointer, kStore + "/current"));
  const std::string bin = kStore + "/" + date + "/knowledge.bin";
  AMDML_TRY(auto bytes, host.read_file(bin, 64 << 20));
  auto kb = formats::decode_knowledge_bin(bytes);
  if (!kb) return make_error(bin + ": " + kb.error().message);
  if (kb->meta.date != date) return make_error(bin + ": holds the knowledge of " + kb->meta.date + ", not " + date);
  return std::optional<Knowledge>(std::move(*kb));
}

Result<StoreState> read_store_state(const SafeTree& tree) {
  StoreState s;
  AMDML_TRY(s.current, read_pointer(tree, "current"));
  AMDML_TRY(s.previous, read_pointer(tree, "previous"));
  return s;
}

Status install_bundle(SafeTree& tree, const std::string& date, const std::vector<RecipeFile>& files,
                      const std::string& compact, void (*kill_point)()) {
  if (!parse_day(date)) return make_error("bundle date '" + text::one_line(date) + "' is not YYYY-MM-DD", EINVAL);
  AMDML_TRY(auto lock, TreeLock::acquire(tree, kStore + "/.lock", 10000));
  AMDML_TRY(auto state, read_store_state(tree));
  // What a killed run left: staging directories, and a bundle directory of this date
  // that nothing points at (it is complete, but it is rewritten from what was verified now).
  AMDML_TRY(auto names, tree.list(kStore));
  for (const auto& n : names)
    if (n.starts_with(".staging-")) AMDML_TRY_STATUS(remove_tree(tree, kStore + "/" + n));
  if (date == state.current) return make_error("bundle " + date + " is already the current one", EEXIST);
  const std::string staging = kStore + "/.staging-" + date;
  FileMeta meta{0644, std::nullopt, std::nullopt};
  for (const auto& f : files) {
    AMDML_TRY_STATUS(tree.write(staging + "/" + f.path, f.text, meta));
    kill_point();
  }
  AMDML_TRY_STATUS(tree.write(staging + "/knowledge.bin", compact, meta));
  kill_point();
  AMDML_TRY_STATUS(remove_tree(tree, kStore + "/" + date));
  AMDML_TRY_STATUS(tree.rename(staging, kStore + "/" + date));
  kill_point();
  // previous first: a kill between the two leaves `current` where it was.
  if (!state.current.empty()) {
    AMDML_TRY_STATUS(write_pointer(tree, "previous", state.current));
    kill_point();
  }
  AMDML_TRY_STATUS(write_pointer(tree, "current", date));
  kill_point();
  // Bundles neither current nor previous are no longer reachable.
  for (const auto& n : names)
    if (parse_day(n) && n != date && n != state.current) AMDML_TRY_STATUS(remove_tree(tree, kStore + "/" + n));
  return {};
}

Result<StoreState> rollback_bundle(SafeTree& tree) {
  AMDML_TRY(auto lock, TreeLock::acquire(tree, kStore + "/.lock", 10000));
  AMDML_TRY(auto state, read_store_state(tree));
  if (state.previous.empty() || state.previous == state.current)
    return make_error("no previous knowledge bundle to go back to", ENOENT);
  AMDML_TRY(auto there, tree.read(kStore + "/" + state.previous + "/knowledge.bin", 64 << 20));
  if (!there.exists) return make_error(tree.real_path(kStore + "/" + state.previous) + ": the previous bundle is gone", ENOENT);
  if (auto kb = formats::decode_knowledge_bin(there.bytes); !kb)
    return make_error(tree.real_path(kStore + "/" + state.previous) + ": " + kb.error().message, EINVAL);
  // current first: a kill between the two leaves both naming the bundle now in use.
  AMDML_TRY_STATUS(write_pointer(tree, "current", state.previous));
  AMDML_TRY_STATUS(write_pointer(tree, "previous", state.current));
  return StoreState{state.previous, state.current};
}

}  // namespace amdml::platform
