// Module options from modprobe.d, in the order modprobe applies them: files sorted by
// name across /etc/modprobe.d, /run/modprobe.d, /usr/lib and /lib (a name in /etc hides
// the same name in the others).
#include <map>

#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

void modprobe(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  std::map<std::string, std::string> by_name;  // file name -> full path (first dir wins)
  for (const char* dir : {"/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
                          "/lib/modprobe.d"}) {
    auto entries = h.list_dir(dir);
    if (!entries) continue;
    for (const auto& e : *entries) {
      if (e.name.size() < 6 || e.name.substr(e.name.size() - 5) != ".conf") {
        // modprobe skips it; what it would have set is kept, so advice can say so.
        if (e.type != FileType::regular || std::string_view(dir) != "/etc/modprobe.d") continue;
        const std::string path = std::string(dir) + "/" + e.name;
        if (auto text = h.read_file(path, 64 << 10))
          for (auto& o : formats::parse::modprobe_conf(*text).options) f.modprobe.unread.push_back({path, o.line, o.module, o.key, o.value});
        continue;
      }
      by_name.emplace(e.name, std::string(dir) + "/" + e.name);
    }
  }
  for (const auto& [name, path] : by_name) {
    // A link to /dev/null masks the file of the same name in the later directories
    // (the kmod/systemd idiom): it sets nothing.
    if (auto target = h.read_link(path); target && *target == "/dev/null") continue;
    auto text = h.read_file(path, 1 << 20);
    if (!text) {
      f.error("modprobe", path, text.error().message);
      continue;
    }
    auto parsed = formats::parse::modprobe_conf(*text);
    for (auto& o : parsed.options) f.modprobe.options.push_back({path, o.line, o.module, o.key, o.value});
    for (auto& o : parsed.blocks) f.modprobe.blocks.push_back({path, o.line, o.module, o.key, o.value});
    for (auto& [line, t] : parsed.bad_lines)
      f.modprobe.unparsable.push_back({"modprobe", path + ":" + std::to_string(line), t});
  }
}

}  // namespace amdml::probes
