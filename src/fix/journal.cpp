// The journal of a transaction in its directory; see journal.hpp.
#include "fix/journal.hpp"

#include <cerrno>

#include "formats/system_files.hpp"

namespace amdml::fix {

Status Journal::save() {
  const std::string text = formats::write_journal(txn);
  auto st = store.put(id, "journal.json", text);
  if (!st && reserved && (st.error().code == ENOSPC || st.error().code == EDQUOT)) {
    release();
    st = store.put(id, "journal.json", text);
  }
  return st;
}

void Journal::release() {
  if (reserved) (void)store.release(id);
  reserved = false;
}

Result<std::optional<Transaction>> load_journal(platform::JournalStore& store, const std::string& id) {
  std::string file = store.real_path(id, "journal.json");
  auto text = store.get(id, "journal.json");
  if (!text) return text.error();
  if (!*text) return std::optional<Transaction>();
  auto t = formats::read_journal(**text);
  if (!t) return make_error(file + " is damaged (" + t.error().message + "); nothing was changed");
  return std::optional<Transaction>(std::move(*t));
}

std::string output_tail(const std::string& out) {
  constexpr std::size_t kKeep = 8192;
  return out.size() <= kKeep ? out : "[...]" + out.substr(out.size() - kKeep);
}

std::optional<std::set<std::string>> installed_packages(const platform::Host& host) {
  auto status = host.read_file("/var/lib/dpkg/status", 64 << 20);
  if (!status) return std::nullopt;
  std::set<std::string> out;
  // Every package with files on disk, not only the configured ones: the purge after a
  // failed install must take what it left unpacked or half-configured, and a package
  // that was half-configured before the install is one the person had, never purged.
  for (auto& p : formats::parse::dpkg_packages(*status, [](std::string_view) { return true; }))
    if (p.on_disk()) out.insert(std::move(p.name));
  return out;
}

}  // namespace amdml::fix
