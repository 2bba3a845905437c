// rocm-install and the apt sources already on the machine: the repository the recipe
// adds may be configured already (AMD's own deb822 rocm.sources, an amdgpu-install
// list, a hand-written line), often with another Signed-By keyring, and apt refuses
// every source list when one URI and suite carry two Signed-By values ("Conflicting
// values set for option Signed-By"). Each such entry is turned off in its file -- one
// edit through formats/apt_sources, journaled like any change, put back by --undo --
// and the plan says so.
#include <algorithm>

#include "fix/fix.hpp"
#include "formats/apt_sources.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

constexpr const char* kSourcesList = "/etc/apt/sources.list";
constexpr const char* kSourcesDir = "/etc/apt/sources.list.d";

// The files apt reads its sources from, as apt picks them (sources.list.d/*.list and
// *.sources; other names, such as *.save or *.distUpgrade, are ignored by apt).
std::vector<std::string> source_files(platform::SafeTree& tree) {
  std::vector<std::string> out = {kSourcesList};
  if (auto names = tree.list(kSourcesDir)) {
    std::sort(names->begin(), names->end());
    for (const auto& n : *names)
      if (n.ends_with(".list") || n.ends_with(".sources")) out.push_back(std::string(kSourcesDir) + "/" + n);
  }
  return out;
}

}  // namespace

std::vector<FileChange> disable_duplicate_sources(platform::SafeTree& tree, const std::vector<std::string>& own,
                                                  const std::vector<AptRepo>& repos, const std::string& recipe,
                                                  std::vector<std::string>& notes) {
  std::vector<FileChange> out;
  for (const auto& path : source_files(tree)) {
    if (std::find(own.begin(), own.end(), path) != own.end()) continue;  // replaced whole by the recipe
    auto f = tree.read(path);
    if (!f) {
      notes.push_back(path + " could not be read (" + f.error().message + "): if it configures the same repository, apt "
                      "will refuse the sources until it is removed");
      continue;
    }
    if (!f->exists) continue;
    auto file = formats::apt::parse_sources(path, f->bytes);
    std::string text = f->bytes;
    std::vector<std::string> why;
    // Newest edit last: each disable() works on the file as the previous one left it.
    for (std::size_t i = file.entries.size(); i-- > 0;) {
      const auto& e = file.entries[i];
      for (const auto& r : repos) {
        if (!formats::apt::configures(e, r.uri, r.suite)) continue;
        const std::string by = r.list;
        auto now = formats::apt::parse_sources(path, text);
        if (i < now.entries.size())
          text = formats::apt::disable(now, now.entries[i], "turned off by amdml fix (" + recipe + "): " + by +
                                                                " configures " + formats::apt::normalized_uri(r.uri) + " " + r.suite +
                                                                "; `amdml fix --undo` turns it back on");
        why.push_back(formats::apt::normalized_uri(r.uri) + " " + r.suite);
        break;
      }
    }
    if (why.empty()) continue;
    std::string list;
    for (const auto& w : why) list += (list.empty() ? "" : ", ") + w;
    notes.push_back(path + " already configures " + list + " (perhaps with another Signed-By key, which makes apt refuse "
                    "every source): that entry is turned off and the recipe's own list used instead; --undo turns it on again");
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = text;
    fc.why = "turn off the entry for " + list + ", which the recipe's list replaces";
    out.push_back(std::move(fc));
  }
  return out;
}

}  // namespace amdml::fix
