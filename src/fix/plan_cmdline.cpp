// The kernel-cmdline recipe's step: the boot loader's own file (kernelstub, GRUB's
// defaults and DIR.d, /etc/kernel/cmdline) and the command that makes it the next boot's.
#include <algorithm>
#include <string>
#include <vector>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "fix/plan_internal.hpp"
#include "formats/system_files.hpp"
#include "platform/host.hpp"
#include "platform/safe_tree.hpp"

namespace amdml::fix {

using paths::basename;
using paths::dirname;


namespace {

// GRUB's defaults as grub-mkconfig sources them: the file, then DIR.d/*.cfg by name;
// nullopt (the recipe refused) when one cannot be read.
std::optional<std::vector<std::pair<std::string, std::string>>> grub_files(Ctx& c, const std::string& grub,
                                                                            const std::string& bytes) {
  std::vector<std::pair<std::string, std::string>> files{{grub, bytes}};
  auto names = c.in.tree.list(grub + ".d");
  if (!names) {
    c.rp.refused = names.error();
    return std::nullopt;
  }
  std::vector<std::string> sorted(names->begin(), names->end());
  std::sort(sorted.begin(), sorted.end());
  for (const auto& n : sorted) {
    if (n.size() <= 4 || !n.ends_with(".cfg")) continue;
    auto f = c.read(grub + ".d/" + n);
    if (!f) return std::nullopt;
    if (f->exists) files.emplace_back(grub + ".d/" + n, f->bytes);
  }
  return files;
}

// The GRUB files the edit changes (/etc/default/grub still when none does) into fcs, the
// edit's words into e; false when the recipe is refused.
bool plan_grub_edit(Ctx& c, const std::string& grub, const std::string& bytes, const KernelCmdlineParams& p,
                    std::vector<FileChange>& fcs, CmdlineEdit& e) {
  auto files = grub_files(c, grub, bytes);
  if (!files) return false;
  auto edited = edit_grub_files(*files, p);
  if (!edited) {
    c.rp.refused = make_error(edited.error().message + "; amdml does not edit it -- fix it by hand");
    return false;
  }
  e = std::move(edited->edit);
  fcs.clear();
  for (std::size_t i = 0; i < files->size(); ++i)
    if (i == 0 || edited->texts[i] != (*files)[i].second) {
      FileChange fc;
      fc.path = (*files)[i].first;
      fc.before = (*files)[i].second;
      fc.after = edited->texts[i];
      fcs.push_back(std::move(fc));
    }
  if (!edited->unbalanced_file.empty()) fcs[0].path = edited->unbalanced_file;
  if (!fcs[0].changes() && fcs.size() > 1) fcs.erase(fcs.begin());
  e.text = fcs[0].after;
  return true;
}

}  // namespace

// The boot loader's own file gets the parameters; the command that turns it into what
// the firmware boots follows. The first configuration that exists is the one in use.
void plan_kernel_cmdline(Ctx& c, const KernelCmdlineStep& step, const KernelCmdlineParams& p) {
  const platform::Host& host = c.in.host;
  auto first_of = [&](std::initializer_list<const char*> paths) -> std::optional<std::string> {
    for (const char* path : paths)
      if (host.exists(path)) return std::string(path);
    return std::nullopt;
  };
  std::vector<FileChange> fcs(1);
  CmdlineEdit e;
  std::optional<Command> cmd;
  std::string where;
  if (auto ks = c.state(step.kernelstub); ks && ks->exists) {
    auto edit = edit_kernelstub_config(ks->bytes, p);
    if (!edit) {
      c.rp.refused = make_error(step.kernelstub + ": " + edit.error().message + "; change the options with kernelstub -a / -d");
      return;
    }
    e = std::move(*edit);
    fcs[0].path = step.kernelstub;
    fcs[0].before = ks->bytes;
    where = "kernelstub's configuration";
    cmd = Command{{"kernelstub"}, "write the boot entry from kernelstub's configuration", std::chrono::minutes(5)};
  } else if (auto grub = c.read(step.grub); grub && grub->exists) {
    if (!plan_grub_edit(c, step.grub, grub->bytes, p, fcs, e)) return;
    where = "GRUB's defaults";
    if (auto u = first_of({"/usr/sbin/update-grub", "/sbin/update-grub"}))
      cmd = Command{{"update-grub"}, "regenerate grub.cfg from " + step.grub, std::chrono::minutes(5)};
    else if (auto g2 = first_of({"/usr/sbin/grub2-mkconfig", "/sbin/grub2-mkconfig"}))
      cmd = Command{{"grub2-mkconfig", "-o", "/boot/grub2/grub.cfg"}, "regenerate grub.cfg from " + step.grub, std::chrono::minutes(5)};
    else if (auto g = first_of({"/usr/sbin/grub-mkconfig", "/sbin/grub-mkconfig"}))
      cmd = Command{{"grub-mkconfig", "-o", "/boot/grub/grub.cfg"}, "regenerate grub.cfg from " + step.grub, std::chrono::minutes(5)};
    else
      c.rp.notes.push_back("no update-grub or grub-mkconfig found: regenerate grub.cfg by hand after this change");
  } else if (!grub) {
    return;
  } else if (auto ki = c.read(step.kernel_install); ki && ki->exists) {
    e = edit_kernel_cmdline_file(ki->bytes, p);
    fcs[0].path = step.kernel_install;
    fcs[0].before = ki->bytes;
    where = "kernel-install's command line";
    const auto release = host.uname().release.value_or(c.in.facts.os.kernel_release.value_or(""));
    std::optional<std::string> image;
    for (const std::string& cand : {"/usr/lib/modules/" + release + "/vmlinuz", "/boot/vmlinuz-" + release})
      if (!release.empty() && host.exists(cand)) {
        image = cand;
        break;
      }
    if (image)
      cmd = Command{{"kernel-install", "add", release, *image}, "write the boot entry with the new command line", std::chrono::minutes(5)};
    else
      c.rp.notes.push_back("no kernel image for " + (release.empty() ? std::string("?") : release) +
                           ": the next kernel installed gets the new command line");
  } else {
    if (!ki) return;
    c.rp.refused = make_error("no boot loader configuration amdml knows (" + step.grub + ", " + step.kernel_install + ", " +
                              step.kernelstub + "): change the kernel command line by hand");
    return;
  }
  if (e.unbalanced) {
    c.rp.refused = make_error(fcs[0].path + " holds a command line with an unterminated '\"'; amdml does not edit it -- fix the quotes by hand");
    return;
  }
  if (fcs.size() == 1) fcs[0].after = e.text;
  std::string what;
  for (const auto& [k, v] : p.set) what += (what.empty() ? "set " : ", set ") + k + "=" + v;
  for (const auto& w : e.removed) what += (what.empty() ? "remove " : ", remove ") + w;
  for (auto& f : fcs) f.why = what.empty() ? where : what + " in " + where;
  // A parameter on the running command line that the file does not hold comes from
  // elsewhere (a boot entry edited by hand, the firmware): say so rather than pretend.
  if (c.in.facts.os.cmdline)
    for (const auto& [k, v] : formats::parse::cmdline(*c.in.facts.os.cmdline)) {
      const std::string n = cmdline_param_name(k);
      for (const auto& r : p.remove)
        if (cmdline_param_name(r) == n &&
            std::none_of(e.removed.begin(), e.removed.end(), [&](const std::string& w) { return cmdline_param_name(w.substr(0, w.find('='))) == n; }))
          c.rp.notes.push_back(k + "=" + v + " is on the running command line but not in " + fcs[0].path +
                               ": remove it where it is set (the boot entry) by hand");
    }
  const bool changes = std::any_of(fcs.begin(), fcs.end(), [](const FileChange& f) { return f.changes(); });
  for (auto& f : fcs) c.rp.files.push_back(std::move(f));
  if (changes && cmd) c.rp.commands.push_back(std::move(*cmd));
}


}  // namespace amdml::fix
