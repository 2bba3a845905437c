// Pure text edits for the recipes; see edits.hpp.
#include "fix/edits.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "formats/group_lines.hpp"
#include "formats/grub_defaults.hpp"
#include "formats/kernel_cmdline.hpp"
#include "formats/kernelstub.hpp"
#include "formats/modprobe_conf.hpp"
#include "formats/system_files.hpp"
#include "fix/params.hpp"

namespace amdml::fix {

GroupEdit add_group_members(const std::string& text, const std::string& user, const std::vector<std::string>& groups) {
  GroupEdit out;
  auto lines = formats::group::lines(text);
  std::vector<bool> seen(groups.size(), false);
  for (auto& line : lines) {
    // Only group lines (the codec's four fields); a second line for the same group is left
    // alone: getgrnam sees the first, and the edit must report every change it makes.
    if (line.fields.empty()) continue;
    auto it = std::find(groups.begin(), groups.end(), line.fields[0]);
    if (it == groups.end()) continue;
    std::size_t gi = static_cast<std::size_t>(it - groups.begin());
    if (seen[gi]) continue;
    seen[gi] = true;
    const auto members = formats::group::members(line.fields[3]);
    if (std::find(members.begin(), members.end(), user) != members.end()) {
      out.already.push_back(line.fields[0]);
      continue;
    }
    formats::group::add_member(line, user);
    out.added.push_back(line.fields[0]);
  }
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (!seen[i]) out.missing.push_back(groups[i]);
  out.text = formats::group::join(lines);
  return out;
}

ModprobeEdit set_modprobe_options(const std::string& text, const std::string& module,
                                  const std::vector<std::pair<std::string, std::string>>& options) {
  ModprobeEdit out;
  auto file = formats::modprobe::read(text);
  const std::string want = formats::modprobe::name(module);
  for (std::size_t d = 0; d < file.directives.size(); ++d) {
    const auto& dir = file.directives[d];
    if (dir.kind != formats::modprobe::Kind::options) continue;
    if (formats::modprobe::name(formats::modprobe::word(file, dir.words[1])) != want) continue;
    // Replace the value of every key=value word for a key we set. Option names compare
    // with '-' and '_' alike, as modprobe and the kernel do (pages-limit is pages_limit);
    // the person's spelling of the name stays.
    for (std::size_t i = 2; i < file.directives[d].words.size(); ++i) {
      const auto word = formats::modprobe::word(file, file.directives[d].words[i]);
      if (word.find('=') == std::string_view::npos) continue;
      const auto o = formats::modprobe::option(word);
      for (const auto& [key, value] : options) {
        if (o.key != formats::modprobe::name(key)) continue;
        const std::size_t line = file.directives[d].words[i].line;
        formats::modprobe::replace_word(file, d, i, o.spelling + "=" + value);
        if (std::find(out.found.begin(), out.found.end(), key) == out.found.end()) out.found.push_back(key);
        out.last_line = static_cast<int>(line) + 1;
        break;
      }
    }
  }
  out.text = formats::modprobe::join(file);
  return out;
}

std::string append_modprobe_options(const std::string& text, int line, const std::string& words) {
  auto file = formats::modprobe::read(text);
  const auto at = static_cast<std::size_t>(line) - 1;
  for (std::size_t d = 0; d < file.directives.size(); ++d)
    if (line >= 1 && file.directives[d].first <= at && at <= file.directives[d].last) {
      formats::modprobe::append_words(file, d, words);
      return formats::modprobe::join(file);
    }
  return text;
}

std::string render_env_file(EnvFormat format, const std::string& recipe_id, const EnvSettings& env) {
  std::string out = std::string(kOwnMarker) + " (recipe " + recipe_id + "). `amdml fix --undo` removes it;\n";
  switch (format) {
    case EnvFormat::profile_sh:
      out += "# `amdml fix` rewrites it. Read by login shells.\n";
      for (const auto& [k, v] : env.set) out += "export " + k + "=" + v + "\n";
      for (const auto& k : env.unset) out += "unset " + k + "\n";
      break;
    case EnvFormat::environment_d:
      out += "# `amdml fix` rewrites it. Read by the systemd user manager (environment.d(5)).\n";
      for (const auto& [k, v] : env.set) out += k + "=" + v + "\n";
      break;
    case EnvFormat::systemd_dropin:
      out += "# `amdml fix` rewrites it. Your own settings belong in override.conf (systemctl edit).\n";
      out += "[Service]\n";
      for (const auto& [k, v] : env.set) out += "Environment=\"" + k + "=" + v + "\"\n";
      for (const auto& k : env.unset) out += "UnsetEnvironment=" + k + "\n";
      break;
  }
  return out;
}

std::string comment_out_lines(const std::string& text, const std::vector<int>& lines, const std::string& why) {
  std::string out;
  int n = 0;
  for (const auto& l : text::lines_with_ends(text)) {
    ++n;
    if (std::find(lines.begin(), lines.end(), n) != lines.end())
      out += "#" + std::string(l.body) + "   # " + why;
    else
      out += l.body;
    out += l.end;
  }
  return out;
}

namespace {

using formats::CmdlineWord;

// Edits the kernel's words in place (those before "--"; what follows is init's) and
// returns whether anything changed. A word whose name is an expansion is kept.
bool edit_words(std::vector<CmdlineWord>& words, const KernelCmdlineParams& p, CmdlineEdit& e) {
  bool changed = false;
  std::vector<CmdlineWord> out;
  const std::size_t stop = formats::cmdline_insert_at(words);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const CmdlineWord& w = words[i];
    const auto written = w.name();
    if (i >= stop || !written) {
      out.push_back(w);
      continue;
    }
    const std::string n = cmdline_param_name(*written);
    bool drop = std::any_of(p.remove.begin(), p.remove.end(), [&](const std::string& r) { return cmdline_param_name(r) == n; });
    if (drop) {
      e.removed.push_back(w.text());
      changed = true;
      continue;
    }
    bool replaced = false;
    for (const auto& [k, v] : p.set) {
      if (cmdline_param_name(k) != n) continue;
      const bool first = std::find(e.found.begin(), e.found.end(), k) == e.found.end();
      if (first) {
        // The first word setting it takes the value; later ones would override it.
        auto nw = CmdlineWord::literal(*written + "=" + v);
        if (!(nw == w)) changed = true;
        out.push_back(std::move(nw));
        e.found.push_back(k);
      } else {
        e.removed.push_back(w.text());
        changed = true;
      }
      replaced = true;
    }
    if (!replaced) out.push_back(w);
  }
  words = std::move(out);
  return changed;
}

// The parameters of p.set that no word had, inserted before "--"; whether there were any.
bool insert_missing(std::vector<CmdlineWord>& words, const KernelCmdlineParams& p, const CmdlineEdit& e) {
  std::vector<CmdlineWord> add;
  for (const auto& [k, v] : p.set)
    if (std::find(e.found.begin(), e.found.end(), k) == e.found.end()) add.push_back(CmdlineWord::literal(k + "=" + v));
  const auto at = words.begin() + static_cast<std::ptrdiff_t>(formats::cmdline_insert_at(words));
  words.insert(at, add.begin(), add.end());
  return !add.empty();
}

}  // namespace

CmdlineEdit edit_cmdline_words(const std::string& words, const KernelCmdlineParams& params) {
  CmdlineEdit e;
  auto w = formats::split_cmdline(words);
  // A word added after an unterminated quote would be read as part of it.
  if (!w) {
    e.text = words;
    e.unbalanced = true;
    return e;
  }
  const bool changed = edit_words(*w, params, e);
  const bool added = insert_missing(*w, params, e);
  e.text = changed || added ? formats::join_cmdline_text(*w) : words;
  return e;
}

Result<GrubEdit> edit_grub_files(const std::vector<std::pair<std::string, std::string>>& files,
                                 const KernelCmdlineParams& params) {
  std::vector<formats::GrubFile> read;
  GrubEdit out;
  for (const auto& [path, text] : files) {
    auto d = formats::read_grub_defaults(text);
    if (!d) return make_error(path + ": " + d.error().message);
    read.push_back({path, std::move(*d)});
    out.texts.push_back(text);
  }
  // Every assignment that makes the value the kernel gets (GRUB_CMDLINE_LINUX first,
  // as grub-mkconfig puts it first), with its words.
  struct Target {
    formats::GrubRef ref;
    std::vector<CmdlineWord> words;
    bool changed = false;
  };
  std::vector<Target> targets;
  for (const char* name : {formats::kGrubLinux, formats::kGrubDefault})
    for (const auto& ref : formats::grub_chain(read, name)) {
      auto words = formats::split_cmdline(read[ref.file].defaults.assignments[ref.index].value);
      if (!words) {
        out.edit.unbalanced = true;
        out.unbalanced_file = read[ref.file].path;
        return out;
      }
      targets.push_back({ref, std::move(*words)});
    }
  for (auto& t : targets) t.changed = edit_words(t.words, params, out.edit);
  // New parameters go into the effective _DEFAULT value; into GRUB_CMDLINE_LINUX when
  // that holds a "--" (the _DEFAULT words follow it, so they would go to init).
  Target* last_linux = nullptr;
  Target* last_default = nullptr;
  for (auto& t : targets)
    (read[t.ref.file].defaults.assignments[t.ref.index].name == formats::kGrubLinux ? last_linux : last_default) = &t;
  Target* into = last_default ? last_default : last_linux;
  if (last_linux && formats::cmdline_insert_at(last_linux->words) < last_linux->words.size()) into = last_linux;
  if (into) {
    if (insert_missing(into->words, params, out.edit)) into->changed = true;
  } else if (!read.empty()) {
    std::vector<CmdlineWord> words;
    if (insert_missing(words, params, out.edit))
      out.texts[0] = formats::append_grub_assignment(out.texts[0], formats::kGrubDefault, formats::join_cmdline(words));
  }
  // Each file's values from its last assignment back, so the earlier offsets hold.
  std::sort(targets.begin(), targets.end(), [](const Target& a, const Target& b) {
    return a.ref.file != b.ref.file ? a.ref.file < b.ref.file : a.ref.index > b.ref.index;
  });
  for (const auto& t : targets) {
    if (!t.changed) continue;
    formats::GrubDefaults d = read[t.ref.file].defaults;
    d.text = out.texts[t.ref.file];
    out.texts[t.ref.file] = formats::write_grub_value(d, t.ref.index, formats::join_cmdline(t.words));
  }
  return out;
}

CmdlineEdit edit_grub_defaults(const std::string& text, const KernelCmdlineParams& params) {
  auto g = edit_grub_files({{"/etc/default/grub", text}}, params);
  if (!g || g->edit.unbalanced) {
    CmdlineEdit e;
    e.text = text;
    e.unbalanced = true;
    return e;
  }
  g->edit.text = g->texts[0];
  return g->edit;
}

CmdlineEdit edit_kernel_cmdline_file(const std::string& text, const KernelCmdlineParams& params) {
  CmdlineEdit e;
  auto file = formats::read_kernel_cmdline(text);
  if (!file) {
    e.text = text;
    e.unbalanced = true;
    return e;
  }
  auto words = file->words;
  edit_words(words, params, e);
  insert_missing(words, params, e);
  e.text = formats::write_kernel_cmdline(*file, words);
  return e;
}

Result<CmdlineEdit> edit_kernelstub_config(const std::string& text, const KernelCmdlineParams& params) {
  auto config = formats::read_kernelstub(text);
  if (!config) return config.error();
  CmdlineEdit e;
  std::vector<CmdlineWord> words;
  for (const auto& o : config->options) {
    auto w = formats::split_cmdline(o);
    if (!w) {
      e.text = text;
      e.unbalanced = true;
      return e;
    }
    words.push_back(CmdlineWord::literal(o));
  }
  edit_words(words, params, e);
  insert_missing(words, params, e);
  std::vector<std::string> options;
  for (const auto& w : words) options.push_back(w.text());
  e.text = formats::write_kernelstub(*config, options);
  return e;
}

std::optional<std::pair<std::string, std::string>> dir_pattern(const std::string& entry) {
  const auto star = entry.find("/*");
  if (star == std::string::npos) return std::nullopt;
  return std::pair{entry.substr(0, star), entry.substr(star + 2)};
}

}  // namespace amdml::fix
