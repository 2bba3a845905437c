// plan_fixes(): from the findings' fix references to the exact bytes and commands.
//
// Everything the apply will do is decided here, from files read through SafeTree
// (which refuses symlinks), so the plan a person reads is the plan that runs: apply
// re-checks every file against the bytes the plan saw before it writes.
#include <algorithm>
#include <variant>

#include "base/text.hpp"
#include "base/paths.hpp"
#include "fix/fix.hpp"
#include "platform/host.hpp"
#include "formats/system_files.hpp"
#include "fix/edits.hpp"
#include "fix/params.hpp"
#include "formats/fix_params_json.hpp"
#include "platform/safe_tree.hpp"
#include "fix/plan_internal.hpp"

namespace amdml::fix {

const Recipe* find_recipe(const std::vector<Recipe>& recipes, const std::string& id) {
  for (const auto& r : recipes)
    if (r.id == id) return &r;
  return nullptr;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

using paths::basename;
using paths::dirname;

void plan_group_members(Ctx& c, const GroupMembersStep& step, const GroupsParams& p) {
  for (const auto& path : step.files) {
    auto f = c.state(path);
    bool shadow = path.find("shadow") != std::string::npos;
    if (!f) {
      if (shadow && f.error().code == EACCES) {
        c.rp.notes.push_back(path + " is readable by root only; --apply adds " + p.user + " there too");
        continue;
      }
      c.rp.refused = f.error();
      return;
    }
    if (!f->exists) {
      if (shadow) continue;  // no shadow group file on this system: nothing to keep in step
      c.rp.refused = make_error(path + " does not exist");
      return;
    }
    auto e = add_group_members(f->bytes, p.user, p.groups);
    if (!e.missing.empty()) {
      std::string names;
      for (const auto& m : e.missing) names += (names.empty() ? "" : ", ") + m;
      if (!shadow) {
        // A directory group (sssd, LDAP): a local line would be a second group of that name.
        const auto& nss = c.in.facts.identity.nss_groups;
        bool directory = nss && std::any_of(e.missing.begin(), e.missing.end(), [&](const std::string& m) {
          return std::any_of(nss->begin(), nss->end(), [&](const GroupEntry& g) { return g.name == m; });
        });
        c.rp.refused = make_error("group " + names + " does not exist in " + path +
                                  (directory ? ": it comes from the directory service (NSS: sssd, LDAP), and amdml does "
                                               "not create a local duplicate; add the user there"
                                             : ""));
        return;
      }
      c.rp.notes.push_back(path + " has no line for " + names + "; left as it is (grpck can add it)");
    }
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = e.text;
    std::string added;
    for (const auto& g : e.added) added += (added.empty() ? "" : ",") + g;
    fc.why = added.empty() ? p.user + " is already a member" : "add " + p.user + " to " + added;
    c.rp.files.push_back(std::move(fc));
  }
}

void plan_modprobe(Ctx& c, const ModprobeOptionStep& step, const TtmParams& p) {
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
    if (!ends_with(n, ".conf")) continue;
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
    auto e = set_modprobe_options(f->bytes, p.module, opts);
    if (e.found.empty()) {
      // Another module's option is someone else's business; note the likely mistake.
      for (const auto& o : formats::parse::modprobe_conf(f->bytes).options)
        if (o.key == "pages_limit" && o.module != want && (o.module == "ttm" || o.module == "amdttm"))
          c.rp.notes.push_back(path + " sets " + o.module + ".pages_limit, which does not reach " + p.module +
                               " (the module amdgpu uses); left as it is");
      continue;
    }
    for (const auto& k : e.found)
      if (std::find(found_keys.begin(), found_keys.end(), k) == found_keys.end()) found_keys.push_back(k);
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = e.text;
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
      if (fc.path == last_file) fc.after = append_to_line(fc.after, last_line, missing);
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

void plan_env_file(Ctx& c, const EnvFileStep& step, const EnvSettings& env) {
  auto f = c.read(step.path);
  if (!f) return;
  if (f->exists && f->bytes.rfind(kOwnMarker, 0) != 0) {
    c.rp.refused = make_error(step.path + " exists and was not written by amdml; move it away or merge it by hand");
    return;
  }
  FileChange fc;
  fc.path = step.path;
  if (f->exists) fc.before = f->bytes;
  fc.after = render_env_file(step.format, c.rp.recipe->id, env);
  fc.why = step.format == EnvFormat::systemd_dropin ? "amdml's own drop-in for " + step.unit : "amdml's own file";
  c.rp.files.push_back(std::move(fc));

  if (step.format == EnvFormat::systemd_dropin) {
    // Drop-ins are applied in file-name order; a later one that sets the same name wins.
    auto names = c.in.tree.list(dirname(step.path));
    if (names)
      for (const auto& n : *names) {
        if (!ends_with(n, ".conf") || n <= basename(step.path)) continue;
        auto other = c.in.host.read_file(dirname(step.path) + "/" + n);
        if (!other) continue;
        auto set = dropin_environment(*other);
        for (const auto& [k, v] : env.set)
          if (set.count(k) && set[k] != v)
            c.rp.notes.push_back(dirname(step.path) + "/" + n + " sets " + k + "=" + set[k] +
                                 " and is read after amdml's drop-in, so it wins; amdml does not edit it -- change it by hand");
      }
    bool unit_known = false;
    for (const char* d : {"/etc/systemd/system/", "/usr/lib/systemd/system/", "/lib/systemd/system/", "/usr/local/lib/systemd/system/"})
      if (c.in.host.exists(d + step.unit)) unit_known = true;
    if (!unit_known) c.rp.notes.push_back(step.unit + " is not installed; the drop-in takes effect once it is");
  }
}

// The files a login_env_clear step names: paths, and "DIR/*.SUFFIX" expanded in name order.
std::vector<std::string> login_files(Ctx& c, const LoginEnvClearStep& step) {
  std::vector<std::string> out;
  for (const auto& f : step.files) {
    auto pattern = dir_pattern(f);
    if (!pattern) {
      out.push_back(f);
      continue;
    }
    const auto& [dir, suffix] = *pattern;
    auto names = c.in.tree.list(dir);
    if (!names) continue;  // no such directory: nothing there sets anything
    std::vector<std::string> sorted(names->begin(), names->end());
    std::sort(sorted.begin(), sorted.end());
    for (const auto& n : sorted)
      if (n.size() > suffix.size() && ends_with(n, suffix)) out.push_back(dir + "/" + n);
  }
  return out;
}

void plan_login_env_clear(Ctx& c, const LoginEnvClearStep& step, const EnvSettings& env) {
  if (env.clear.empty()) return;
  // A line is in the way when it sets a cleared name to a value the recipe does not set.
  auto in_the_way = [&](const formats::parse::Assignment& a) {
    if (std::find(env.clear.begin(), env.clear.end(), a.name) == env.clear.end()) return false;
    for (const auto& [k, v] : env.set)
      if (k == a.name && v == a.value) return false;
    return true;
  };
  const std::string why = "turned off by amdml fix (" + c.rp.recipe->id + "); amdml fix --undo restores it";
  for (const auto& path : login_files(c, step)) {
    auto f = c.state(path);
    if (!f) {
      // A symlinked or unreadable file: only a problem when it sets one of ours.
      if (auto text = c.in.host.read_file(path))
        for (const auto& a : formats::parse::login_env(*text))
          if (in_the_way(a)) {
            c.rp.refused = make_error(path + ":" + std::to_string(a.line) + " sets " + a.name + "=" + a.value + " but " +
                                      f.error().message + "; turn that line off by hand");
            return;
          }
      continue;
    }
    if (!f->exists || f->bytes.rfind(kOwnMarker, 0) == 0) continue;  // amdml's own files are rewritten whole
    std::vector<int> lines;
    std::string what;
    for (const auto& a : formats::parse::login_env(f->bytes))
      if (in_the_way(a)) {
        lines.push_back(a.line);
        what += (what.empty() ? "" : ", ") + a.name + "=" + a.value + " (line " + std::to_string(a.line) + ")";
      }
    if (lines.empty()) continue;
    FileChange fc;
    fc.path = path;
    fc.before = f->bytes;
    fc.after = comment_out_lines(f->bytes, lines, why);
    fc.why = "turn off " + what;
    c.rp.notes.push_back(path + " sets " + what + " for every login: amdml comments that line out so the values it "
                         "writes are the ones new logins get");
    c.rp.files.push_back(std::move(fc));
  }
}

// Parameters on one line, as the report's JSON spells them (bytes that are not UTF-8
// become U+FFFD instead of an exception).
std::string params_text(const FixParams& p) {
  return formats::fix_params_json(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

bool systemd_running(const platform::Host& host) { return !host.live() || host.exists("/run/systemd/system"); }

void plan_initramfs(Ctx& c, const TtmParams& p) {
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
    if (n.size() <= 4 || !ends_with(n, ".cfg")) continue;
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

void build(Ctx& c) {
  const Recipe& r = *c.rp.recipe;
  if (auto st = check_params(r, c.rp.ref.params, c.in.facts); !st) {
    c.rp.refused = st.error();
    return;
  }
  std::optional<GroupsParams> groups;
  std::optional<TtmParams> ttm;
  std::optional<EnvSettings> env;
  std::optional<KernelCmdlineParams> cmdline;
  std::optional<RocmInstallParams> rocm;
  const AptSourceStep* source = nullptr;
  switch (r.params) {
    case ParamSchema::groups: groups = *parse_groups_params(c.rp.ref.params, c.in.facts); break;
    case ParamSchema::ttm: ttm = *parse_ttm_params(c.rp.ref.params, c.in.facts); break;
    case ParamSchema::hsa: env = *parse_hsa_params(c.rp.ref.params); break;
    case ParamSchema::env: env = *parse_env_params(r.id, c.rp.ref.params); break;
    case ParamSchema::cmdline: cmdline = *parse_cmdline_params(c.rp.ref.params, c.in.facts); break;
    case ParamSchema::rocm:
      rocm = *parse_rocm_params(c.rp.ref.params, c.in.facts);
      // Its group-members and follow-up steps add the user named, when there is one.
      if (!rocm->user.empty()) groups = *parse_groups_params(GroupsParams{rocm->user, rocm->groups}, c.in.facts);
      // Why this release, these packages, DKMS or not: the rule's reasons, said once.
      for (const auto& fd : c.rp.findings)
        for (const auto& n : fd.notes)
          if (std::find(c.rp.notes.begin(), c.rp.notes.end(), n) == c.rp.notes.end()) c.rp.notes.push_back(n);
      break;
  }
  for (const auto& step : r.steps) {
    if (c.rp.refused) return;
    switch (kind_of(step)) {
      case StepKind::group_members:
        if (rocm && !groups) break;  // nobody to add
        if (!groups) c.rp.refused = make_error(r.file + ": group-members needs params = \"groups\"");
        else plan_group_members(c, std::get<GroupMembersStep>(step), *groups);
        break;
      case StepKind::modprobe_option:
        if (!ttm) c.rp.refused = make_error(r.file + ": modprobe-option needs params = \"ttm\"");
        else plan_modprobe(c, std::get<ModprobeOptionStep>(step), *ttm);
        break;
      case StepKind::env_file:
        if (!env) c.rp.refused = make_error(r.file + ": env-file needs params = \"hsa\" or \"env\"");
        else plan_env_file(c, std::get<EnvFileStep>(step), *env);
        break;
      case StepKind::daemon_reload:
        if (systemd_running(c.in.host)) c.rp.commands.push_back({{"systemctl", "daemon-reload"}, "make systemd read the drop-in"});
        else c.rp.notes.push_back("systemd is not running here: no daemon-reload");
        break;
      case StepKind::restart_if_running: {
        const auto& unit = std::get<RestartIfRunningStep>(step).unit;
        if (systemd_running(c.in.host))
          c.rp.commands.push_back({{"systemctl", "try-restart", unit}, "restart " + unit + " if it is running"});
        break;
      }
      case StepKind::initramfs:
        if (!ttm) c.rp.refused = make_error(r.file + ": initramfs needs params = \"ttm\"");
        else plan_initramfs(c, *ttm);
        break;
      case StepKind::login_env_clear:
        if (!env) c.rp.refused = make_error(r.file + ": login-env-clear needs params = \"hsa\" or \"env\"");
        else plan_login_env_clear(c, std::get<LoginEnvClearStep>(step), *env);
        break;
      case StepKind::apt_source:
        if (!rocm) c.rp.refused = make_error(r.file + ": apt-source needs params = \"rocm\"");
        else plan_apt_source(c, *(source = &std::get<AptSourceStep>(step)), *rocm);
        break;
      case StepKind::apt_install:
        if (!rocm) c.rp.refused = make_error(r.file + ": apt-install needs params = \"rocm\"");
        else plan_apt_install(c, source, *rocm);
        break;
      case StepKind::follow_up: {
        const auto& f = std::get<FollowUpStep>(step);
        if (rocm && !groups) break;  // its follow-ups are about the group
        std::string text = f.text;
        if (groups && !f.service_text.empty())
          for (const auto& pw : c.in.facts.identity.passwd)
            if (pw.name == groups->user && pw.uid < 1000) text = f.service_text;
        if (groups) {
          text = text::replace_all(text, "{user}", groups->user);
          text = text::replace_all(text, "{group}", groups->groups.front());
        }
        c.rp.follow_ups.push_back(f.need);
        c.rp.follow_up_text.push_back(text);
        break;
      }
      case StepKind::kernel_cmdline:
        if (!cmdline) c.rp.refused = make_error(r.file + ": kernel-cmdline needs params = \"cmdline\"");
        else plan_kernel_cmdline(c, std::get<KernelCmdlineStep>(step), *cmdline);
        break;
    }
  }
}

// Two findings asking the same recipe: merge what can be merged (more groups for the
// same user, more environment names), otherwise keep the first and say so.
bool merge_params(ParamSchema schema, FixParams& into, const FixParams& more) {
  if (into == more) return true;
  auto* groups = std::get_if<GroupsParams>(&into);
  const auto* more_groups = std::get_if<GroupsParams>(&more);
  if (schema == ParamSchema::groups && groups && more_groups && !groups->user.empty() && groups->user == more_groups->user) {
    for (const auto& g : more_groups->groups)
      if (std::find(groups->groups.begin(), groups->groups.end(), g) == groups->groups.end()) groups->groups.push_back(g);
    return true;
  }
  // The same module and limit, one of them also naming page_pool_size: one change.
  auto* ttm = std::get_if<TtmLimitParams>(&into);
  const auto* more_ttm = std::get_if<TtmLimitParams>(&more);
  if (schema == ParamSchema::ttm && ttm && more_ttm && !ttm->module.empty() && ttm->module == more_ttm->module &&
      ttm->pages_limit && ttm->pages_limit == more_ttm->pages_limit) {
    if (ttm->page_pool_size && more_ttm->page_pool_size && ttm->page_pool_size != more_ttm->page_pool_size) return false;
    if (more_ttm->page_pool_size) ttm->page_pool_size = more_ttm->page_pool_size;
    return true;
  }
  // Kernel parameters: one set of words, as long as no name is asked two ways.
  auto* cl = std::get_if<KernelCmdlineParams>(&into);
  const auto* more_cl = std::get_if<KernelCmdlineParams>(&more);
  if (schema == ParamSchema::cmdline && cl && more_cl) {
    KernelCmdlineParams merged = *cl;
    for (const auto& [k, v] : more_cl->set) {
      if (merged.set.count(k) && merged.set[k] != v) return false;
      if (std::find(merged.remove.begin(), merged.remove.end(), k) != merged.remove.end()) return false;
      merged.set[k] = v;
    }
    for (const auto& n : more_cl->remove) {
      if (merged.set.count(n)) return false;
      if (std::find(merged.remove.begin(), merged.remove.end(), n) == merged.remove.end()) merged.remove.push_back(n);
    }
    into = std::move(merged);
    return true;
  }
  const auto* env = std::get_if<EnvParams>(&into);
  const auto* more_env = std::get_if<EnvParams>(&more);
  if (schema == ParamSchema::env && env && more_env) {
    EnvParams merged = *env;
    for (const auto& [k, v] : more_env->env) {
      if (merged.env.count(k) && merged.env[k] != v) return false;
      merged.env[k] = v;
    }
    for (const auto& n : more_env->unset)
      if (std::find(merged.unset.begin(), merged.unset.end(), n) == merged.unset.end()) merged.unset.push_back(n);
    into = std::move(merged);
    return true;
  }
  return false;
}

}  // namespace

Plan plan_fixes(const PlanInputs& in) {
  Plan plan;
  std::vector<std::pair<const Finding*, std::string>> conflicts;
  for (const auto& f : in.findings) {
    if (!f.fix) continue;
    if (in.only && f.fix->recipe != *in.only) continue;
    bool placed = false;
    for (auto& rp : plan.recipes) {
      if (rp.ref.recipe != f.fix->recipe || !rp.recipe) continue;
      if (merge_params(rp.recipe->params, rp.ref.params, f.fix->params)) {
        rp.findings.push_back(f);
        placed = true;
        break;
      }
    }
    if (placed) continue;
    auto it = std::find_if(plan.recipes.begin(), plan.recipes.end(),
                           [&](const RecipePlan& rp) { return rp.ref.recipe == f.fix->recipe; });
    // Group memberships of different users go together; two different page limits or
    // overrides cannot both be right: the first one wins and the plan says so.
    if (it != plan.recipes.end() && (!it->recipe || it->recipe->params != ParamSchema::groups)) {
      it->notes.push_back(std::string(to_string(f.id)) + " asks for different parameters (" + params_text(f.fix->params) +
                          "); run `amdml fix` again after this one");
      it->deferred.push_back(f);
      continue;
    }
    RecipePlan rp;
    rp.ref = *f.fix;
    rp.findings.push_back(f);
    rp.recipe = find_recipe(in.recipes, f.fix->recipe);
    if (!rp.recipe) rp.refused = make_error("no recipe named \"" + f.fix->recipe + "\" (amdml fix --list)");
    plan.recipes.push_back(std::move(rp));
  }
  // What a killed run had started is planned again, so this run finishes it. A
  // request for the same recipe (for groups: the same user) already judges every file.
  for (const auto& [txn, ref] : in.resume_interrupted ? interrupted_requests(in.tree)
                                                     : std::vector<std::pair<std::string, FixRef>>{}) {
    if (ref.recipe.empty() || (in.only && ref.recipe != *in.only)) continue;
    const Recipe* r = find_recipe(in.recipes, ref.recipe);
    if (!r || !check_params(*r, ref.params, in.facts)) continue;
    auto user = [](const FixParams& p) {
      const auto* g = std::get_if<GroupsParams>(&p);
      return g ? g->user : std::string();
    };
    RecipePlan* same = nullptr;
    for (auto& rp : plan.recipes)
      if (rp.ref.recipe == ref.recipe && (r->params != ParamSchema::groups || user(rp.ref.params) == user(ref.params))) same = &rp;
    if (same) {
      if (r->params == ParamSchema::groups) merge_params(r->params, same->ref.params, ref.params);
      if (std::find(same->resumes.begin(), same->resumes.end(), txn) == same->resumes.end()) same->resumes.push_back(txn);
      continue;
    }
    RecipePlan rp;
    rp.ref = ref;
    rp.recipe = r;
    rp.resumes.push_back(txn);
    rp.notes.push_back("finishes transaction " + txn + ", which was interrupted before it finished");
    plan.recipes.push_back(std::move(rp));
  }
  // --only RECIPE when no finding asks for it, but a finding it is meant for has no fix
  // (rocm.missing on a GPU no ROCm release runs): the plan says why, not "nothing to do".
  if (in.only && plan.recipes.empty())
    if (const Recipe* r = find_recipe(in.recipes, *in.only); r && r->params == ParamSchema::rocm)
      for (const auto& f : in.findings) {
        if (f.fix || std::find(r->resolves.begin(), r->resolves.end(), to_string(f.id)) == r->resolves.end()) continue;
        RecipePlan rp;
        rp.recipe = r;
        rp.ref.recipe = r->id;
        rp.findings.push_back(f);
        std::string why;
        for (const auto& n : f.notes) why += (why.empty() ? "" : " ") + n;
        rp.refused = make_error(std::string(to_string(f.id)) + " has no plan here: " + (why.empty() ? f.title : why));
        plan.recipes.push_back(std::move(rp));
        return plan;
      }
  std::vector<RecipePlan> done;
  for (auto& rp : plan.recipes) {
    if (rp.recipe) {
      Ctx c{in, done, rp};
      build(c);
      add_owed_commands(rp, in.tree);
    }
    done.push_back(rp);
  }
  return plan;
}

}  // namespace amdml::fix
