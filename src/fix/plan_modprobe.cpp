// The TTM recipe's steps: the module's options in modprobe.d (the lines modprobe ignores
// that set the same limits commented out), and the initramfs that carries them.
#include <algorithm>
#include <string>
#include <vector>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "fix/plan_internal.hpp"
#include "formats/modprobe_conf.hpp"
#include "platform/host.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

namespace {

// Lines modprobe ignores ("ignoring bad line": a `ttm.pages_limit=N` with no `options`
// keyword) that set a TTM limit: the recipe that sets the limit replaces them, so they
// are commented out, each kept whole after the marker (--undo restores the file's bytes).
std::string comment_out_ignored_limits(const std::string& bytes, std::vector<int>& commented) {
  auto file = formats::modprobe::read(bytes);
  bool any = false;
  for (std::size_t d = 0; d < file.directives.size(); ++d) {
    const auto& dir = file.directives[d];
    if (dir.kind != formats::modprobe::Kind::bad) continue;
    const std::string name = formats::modprobe::name(dir.text);
    if (name.find("pages_limit") == std::string::npos && name.find("page_pool_size") == std::string::npos) continue;
    formats::modprobe::comment_out(file, d, "# amdml fix (ttm-pages-limit): modprobe ignores this line: ");
    commented.push_back(static_cast<int>(dir.first) + 1);
    any = true;
  }
  return any ? formats::modprobe::join(file) : bytes;
}

}  // namespace

using paths::basename;
using paths::dirname;

void plan_modprobe(Ctx& c, const ModprobeOptionStep& step, const TtmLimits& p) {
  std::vector<std::pair<std::string, std::string>> opts = {{"pages_limit", std::to_string(p.pages_limit.value)}};
  if (p.page_pool_size) opts.emplace_back("page_pool_size", std::to_string(p.page_pool_size->value));
  auto names = c.in.tree.list(step.dir);
  if (!names) {
    c.rp.refused = names.error();
    return;
  }
  const std::string want = formats::parse::modprobe_name(p.module);
  std::vector<FileChange> edits;
  std::vector<std::string> found_keys;
  std::string last_file;
  int last_line = 0;
  for (const auto& n : *names) {
    if (!n.ends_with(".conf")) continue;
    std::string path = step.dir + "/" + n;
    auto f = c.state(path);
    if (!f) {
      // A symlinked or unreadable conf: only a problem when it sets our option.
      auto text = c.in.host.read_file(path);
      if (text) {
        for (const auto& o : formats::parse::modprobe_conf(*text).options)
          if (o.module == want && (o.key == "pages_limit" || o.key == "page_pool_size")) {
            c.rp.refused = make_error(path + " sets " + p.module + "." + o.key + " but " + f.error().message);
            return;
          }
      }
      continue;
    }
    if (!f->exists) continue;
    std::vector<int> commented;
    const std::string text = comment_out_ignored_limits(f->bytes, commented);
    auto e = set_modprobe_options(text, p.module, opts);
    if (e.found.empty()) {
      // Another module's option is someone else's business; note the likely mistake.
      for (const auto& o : formats::parse::modprobe_conf(f->bytes).options)
        if (o.key == "pages_limit" && o.module != want && (o.module == "ttm" || o.module == "amdttm"))
          c.rp.notes.push_back(path + " sets " + o.module + ".pages_limit, which does not reach " + p.module +
                               " (the module amdgpu uses); left as it is");
      if (commented.empty()) continue;
    }
    for (const auto& k : e.found)
      if (std::find(found_keys.begin(), found_keys.end(), k) == found_keys.end()) found_keys.push_back(k);
    for (int line : commented)
      c.rp.notes.push_back(path + ":" + std::to_string(line) + " is not a modprobe command (modprobe ignores it): "
                           "commented out, as this recipe sets the limit");
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = e.found.empty() ? text : e.text;
    if (e.found.empty()) {
      fc.why = "comment out the lines modprobe ignores";
      c.rp.files.push_back(std::move(fc));
      continue;
    }
    fc.why = path == step.path ? "amdml's own file" : "edit the line that already sets " + p.module + " options";
    edits.push_back(std::move(fc));
    last_file = path;
    last_line = e.last_line;
  }
  std::string missing;
  for (const auto& [k, v] : opts)
    if (std::find(found_keys.begin(), found_keys.end(), k) == found_keys.end()) missing += (missing.empty() ? "" : " ") + k + "=" + v;
  if (!edits.empty() && !missing.empty()) {
    // Keep the module's options on the line that already sets them.
    for (auto& fc : edits)
      if (fc.path == last_file) fc.after = append_modprobe_options(fc.after, last_line, missing);
    missing.clear();
  }
  if (!missing.empty()) {
    auto own = c.read(step.path);
    if (!own) return;
    FileChange fc;
    fc.path = step.path;
    fc.why = "amdml's own file";
    std::string line = "options " + p.module + " " + missing + "\n";
    if (own->exists) {
      fc.before = own->bytes;
      fc.after = own->bytes + (own->bytes.empty() || own->bytes.back() == '\n' ? "" : "\n") + line;
    } else {
      fc.after = std::string(kOwnMarker) + " (recipe ttm-pages-limit). `amdml fix --undo` removes it.\n"
                 "# " + p.module + ".pages_limit is in 4 KiB pages: " + format_bytes(p.pages_limit.bytes()) +
                 " the GPU may use from system memory.\n" + line;
    }
    edits.push_back(std::move(fc));
  }
  for (const auto& fc : edits)
    if (fc.path != step.path && fc.changes())
      c.rp.notes.push_back(fc.path + " already sets " + p.module + " options: amdml edits that line and keeps the rest of the file");
  for (auto& fc : edits) c.rp.files.push_back(std::move(fc));
}


void plan_initramfs(Ctx& c, const TtmLimits& p) {
  const platform::Host& host = c.in.host;
  auto release = host.uname().release.value_or(c.in.facts.os.kernel_release.value_or(""));
  struct Gen {
    std::vector<const char*> paths;
    std::vector<std::string> argv;
    const char* lister;
  };
  std::vector<Gen> gens = {
      {{"/usr/sbin/update-initramfs", "/sbin/update-initramfs"}, {"update-initramfs", "-u", "-k", release}, "lsinitramfs"},
      {{"/usr/bin/dracut", "/usr/sbin/dracut", "/sbin/dracut"}, {"dracut", "-f", "--kver", release}, "lsinitrd"},
      {{"/usr/bin/mkinitcpio", "/usr/sbin/mkinitcpio"}, {"mkinitcpio", "-P"}, "lsinitcpio"},
  };
  const Gen* gen = nullptr;
  for (const auto& g : gens) {
    for (const char* path : g.paths)
      if (host.exists(path)) gen = &g;
    if (gen) break;
  }
  std::optional<std::string> image;
  for (const std::string& cand : {"/boot/initrd.img-" + release, "/boot/initramfs-" + release + ".img",
                                  std::string("/boot/initramfs-linux.img")})
    if (!release.empty() && host.exists(cand)) {
      image = cand;
      break;
    }
  if (!image) {
    c.rp.notes.push_back("no initramfs image for kernel " + (release.empty() ? std::string("?") : release) +
                         " in /boot: nothing to regenerate");
    return;
  }
  if (!gen) {
    c.rp.notes.push_back(*image + " exists but no initramfs generator (update-initramfs, dracut, mkinitcpio) was found: "
                         "regenerate it by hand so the new option is in it");
    return;
  }
  // Only regenerate when the module is in the image; when the image cannot be listed,
  // regenerate anyway -- a stale modprobe.d copy inside the initramfs would win at boot.
  auto listed = c.in.list_initramfs ? host.run({gen->lister, *image}, std::chrono::seconds(60))
                                     : Result<CommandResult>(make_error("not listed"));
  if (listed && listed->exit_code == 0 && !listed->timed_out) {
    if (listed->out.find("/" + p.module + ".ko") == std::string::npos) {
      c.rp.notes.push_back(p.module + " is not in " + *image + " (" + gen->lister + "): no initramfs rebuild needed");
      return;
    }
    c.rp.notes.push_back(p.module + ".ko is in " + *image + ": the initramfs is regenerated so it carries the new option");
  } else {
    c.rp.notes.push_back("could not list " + *image + " (" + gen->lister + "); regenerating it to be safe");
  }
  c.rp.commands.push_back({gen->argv, "put the new option into the initramfs", std::chrono::minutes(10)});
}

}  // namespace amdml::fix
