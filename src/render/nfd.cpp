// Kubernetes node labels through Node Feature Discovery: a local feature file for
// nfd-worker's features.d directory (one `name=value` per line, `#` comments). Every
// name is amd.com/<name> and every name and value is within the label syntax the API
// server accepts (a name part and a value of at most 63 characters of [A-Za-z0-9._-],
// alphanumeric at both ends), so one odd GPU name cannot make NFD drop the whole file.
// NFD publishes names outside its own namespaces only when amd.com is allowed
// (extraLabelNs); docs/fleet.md says so.
#include <algorithm>
#include <map>
#include <set>

#include "base/text.hpp"
#include "render/fleet.hpp"

namespace amdml::render {

namespace {

constexpr std::size_t kMaxName = 63;
constexpr const char* kPrefix = "amd.com/";

bool label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

std::uint64_t mib(Bytes b) { return b.value / (1024 * 1024); }

// The smallest of a per-GPU size, over the GPUs that have one: a pod scheduled by
// "at least N MiB" must fit on whichever GPU it gets.
template <class Get>
std::optional<Bytes> smallest(const std::vector<Gpu>& gpus, Get get) {
  std::optional<Bytes> out;
  for (const auto& g : gpus)
    if (auto b = get(g); b && (!out || b->value < out->value)) out = b;
  return out;
}

}  // namespace

std::string nfd_label_value(std::string_view text) {
  std::string out;
  for (char c : text) out += label_char(c) ? c : '-';
  if (out.size() > kMaxName) out.resize(kMaxName);
  // both ends alphanumeric
  std::size_t b = 0;
  while (b < out.size() && !alnum(out[b])) ++b;
  std::size_t e = out.size();
  while (e > b && !alnum(out[e - 1])) --e;
  return out.substr(b, e - b);
}

std::string nfd_text(const Report& r, const Knowledge& kb) {
  const Facts& f = r.facts;
  std::vector<std::pair<std::string, std::string>> labels;
  auto add = [&](const std::string& name, const std::string& value) {
    std::string n = nfd_label_value(name);
    if (!n.empty()) labels.emplace_back(kPrefix + n, nfd_label_value(value));
  };

  add("gpu.count", std::to_string(f.gpus.size()));
  std::map<std::string, int> targets;
  std::map<std::string, int> families;
  for (const auto& g : f.gpus) {
    if (!g.gfx) continue;
    ++targets[g.gfx->name()];
    const GfxInfo* info = kb.find_gfx(*g.gfx);
    ++families[to_string(info ? info->isa : IsaFamily::unknown)];
  }
  for (const auto& [t, n] : targets) add("gpu." + t + ".count", std::to_string(n));
  for (const auto& [fam, n] : families) add("gpu.family." + fam + ".count", std::to_string(n));
  // One family for the whole node is what a nodeSelector wants to match.
  if (families.size() == 1) add("gpu.family", families.begin()->first);
  if (auto v = smallest(f.gpus, [](const Gpu& g) { return g.vram; })) add("gpu.vram-mib", std::to_string(mib(*v)));
  if (auto v = smallest(f.gpus, [](const Gpu& g) { return g.kfd_memory; }))
    add("gpu.memory-mib", std::to_string(mib(*v)));
  if (f.rocm.version) add("rocm.version", f.rocm.version->str());
  add("gpu.usable", !f.gpus.empty() && r.summary.errors == 0 ? "true" : "false");
  // The failing finding ids: errors and warnings, one label each so a selector or an
  // alert can name one.
  std::map<std::string, std::string> failing;
  for (const auto& fd : r.findings) {
    if (fd.severity == Severity::info) continue;
    auto& s = failing[std::string(to_string(fd.id))];
    if (s != "error") s = to_string(fd.severity);
  }
  for (const auto& [id, sev] : failing) add("gpu.finding." + id, sev);

  std::string out = "# Kubernetes node labels from amdml " + f.amdml_version +
                    " (amdml doctor --format nfd), for Node Feature Discovery's features.d.\n";
  for (const auto& [k, v] : labels) out += k + "=" + v + "\n";
  return out;
}

std::string nfd_error_text(const std::string& message) {
  // The file replaces the last good one: without it the node would keep advertising a
  // usable GPU that amdml could not look at.
  return "# amdml doctor --format nfd could not run: " + text::one_line(message) + "\n" + kPrefix + "gpu.usable=false\n";
}

}  // namespace amdml::render
