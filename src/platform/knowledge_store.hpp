// The installed knowledge: bundles `amdml update` verified, under
// /var/lib/amdml/knowledge (inside --root DIR when given).
//
//   /var/lib/amdml/knowledge/
//     2026-11-20/knowledge/*.toml   the bundle's files as signed
//     2026-11-20/knowledge.bin      the same, validated and in compact form (formats/knowledge_bin)
//     current                       "2026-11-20\n": the bundle in use
//     previous                      the one before it, for `amdml update --rollback`
//     .staging-<date>/              a bundle being written (removed when found later)
//     .lock                         held while the store changes
//
// `current` and `previous` are small files replaced atomically (SafeTree's temp file,
// fsync, rename), not symlinks: SafeTree follows no symlink, and a rename over a file is
// the same one atomic switch. A bundle directory is complete before its name appears
// (written under .staging-, renamed), so a kill at any step leaves the old `current`
// naming a complete bundle.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdml/knowledge.hpp"
#include "base/result.hpp"
#include "platform/host.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::platform {

inline constexpr const char* kKnowledgeStore = "/var/lib/amdml/knowledge";

// The bundle `current` names, decoded from its compact form through the host (so a
// --root tree and a snapshot see it): nullopt when nothing is installed, an error when
// `current` names a bundle that cannot be read.
Result<std::optional<Knowledge>> read_installed_knowledge(const Host& host);

// Today as "YYYY-MM-DD" (UTC): the clock on the live host; under --root the manifest's
// "time" (an RFC 3339 time or a date, what the machine's clock said when it was
// recorded), nullopt when it has none -- a fixture is not judged by the day a test runs.
std::optional<std::string> host_today(const Host& host);

struct StoreState {
  std::string current;   // a date, or "" when nothing is installed
  std::string previous;  // likewise
};
Result<StoreState> read_store_state(const SafeTree& tree);

// Installs a validated bundle as <date> and makes it current (the old current becomes
// previous; bundles older than both are removed). files: "knowledge/NAME.toml" and
// their bytes; compact: encode_knowledge_bin of the same knowledge. `kill_point` is
// called between steps (the crash tests kill the process there).
Status install_bundle(SafeTree& tree, const std::string& date, const std::vector<RecipeFile>& files,
                      const std::string& compact, void (*kill_point)());

// Makes `previous` current again (and the current one previous). An error when there
// is no previous bundle.
Result<StoreState> rollback_bundle(SafeTree& tree);

}  // namespace amdml::platform
