// Pure text edits for the recipes; see edits.hpp.
#include "fix/edits.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "formats/system_files.hpp"
#include "fix/params.hpp"

#include <nlohmann/json.hpp>

namespace amdml::fix {

namespace {

// Physical lines with their terminators, so joining them gives the input back.
std::vector<std::string> physical_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = s.find('\n', i);
    if (j == std::string::npos) {
      out.push_back(s.substr(i));
      break;
    }
    out.push_back(s.substr(i, j - i + 1));
    i = j + 1;
  }
  return out;
}

// Splits off the terminator ("\n", "\r\n" or nothing) so edits never touch it.
std::pair<std::string, std::string> body_and_end(const std::string& line) {
  std::size_t n = line.size();
  if (n >= 2 && line[n - 2] == '\r' && line[n - 1] == '\n') return {line.substr(0, n - 2), "\r\n"};
  if (n >= 1 && line[n - 1] == '\n') return {line.substr(0, n - 1), "\n"};
  return {line, ""};
}

std::vector<std::string> split_char(const std::string& s, char c) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (;;) {
    std::size_t j = s.find(c, i);
    out.push_back(s.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

}  // namespace

GroupEdit add_group_members(const std::string& text, const std::string& user, const std::vector<std::string>& groups) {
  GroupEdit out;
  auto lines = physical_lines(text);
  std::vector<bool> seen(groups.size(), false);
  for (auto& line : lines) {
    auto [body, end] = body_and_end(line);
    // NIS compat entries (+name, -name) and comments are not group lines.
    if (body.empty() || body[0] == '#' || body[0] == '+' || body[0] == '-') continue;
    auto fields = split_char(body, ':');
    // A line without exactly four fields is malformed and not edited (parse::group_file
    // skips it too); a second line for the same group is left alone: getgrnam sees the
    // first, and the edit must report every change it makes.
    if (fields.size() != 4) continue;
    auto it = std::find(groups.begin(), groups.end(), fields[0]);
    if (it == groups.end()) continue;
    std::size_t gi = static_cast<std::size_t>(it - groups.begin());
    if (seen[gi]) continue;
    seen[gi] = true;
    auto members = fields[3].empty() ? std::vector<std::string>{} : split_char(fields[3], ',');
    if (std::find(members.begin(), members.end(), user) != members.end()) {
      out.already.push_back(fields[0]);
      continue;
    }
    fields[3] += (fields[3].empty() ? "" : ",") + user;
    std::string rebuilt;
    for (std::size_t i = 0; i < fields.size(); ++i) rebuilt += (i ? ":" : "") + fields[i];
    line = rebuilt + end;
    out.added.push_back(fields[0]);
  }
  for (std::size_t i = 0; i < groups.size(); ++i)
    if (!seen[i]) out.missing.push_back(groups[i]);
  out.text = text::join(lines, "");
  return out;
}

ModprobeEdit set_modprobe_options(const std::string& text, const std::string& module,
                                  const std::vector<std::pair<std::string, std::string>>& options) {
  ModprobeEdit out;
  auto lines = physical_lines(text);
  const std::string want = parse::modprobe_name(module);
  bool in_options = false;    // this physical line continues an "options <module>" line
  bool continuing = false;    // the previous physical line ended with '\'
  for (std::size_t li = 0; li < lines.size(); ++li) {
    auto [body, end] = body_and_end(lines[li]);
    bool starts_logical = !continuing;
    continuing = !body.empty() && body.back() == '\\';
    if (starts_logical) {
      in_options = false;
      std::size_t p = 0;
      while (p < body.size() && is_space(body[p])) ++p;
      if (p < body.size() && body[p] == '#') continue;
      std::size_t q = p;
      while (q < body.size() && !is_space(body[q])) ++q;
      if (body.compare(p, q - p, "options") != 0) continue;
      std::size_t r = q;
      while (r < body.size() && is_space(body[r])) ++r;
      std::size_t s = r;
      while (s < body.size() && !is_space(body[s]) && body[s] != '\\') ++s;
      if (parse::modprobe_name(body.substr(r, s - r)) != want) continue;
      in_options = true;
    }
    if (!in_options) continue;
    // Replace the value of every key=value word for a key we set.
    std::string edited;
    std::size_t i = 0;
    bool changed_here = false;
    while (i < body.size()) {
      if (is_space(body[i])) {
        edited += body[i++];
        continue;
      }
      std::size_t j = i;
      while (j < body.size() && !is_space(body[j])) ++j;
      std::string word = body.substr(i, j - i);
      if (word[0] == '#') {  // the rest of the line is a comment
        edited += body.substr(i);
        i = body.size();
        break;
      }
      // Option names compare with '-' and '_' alike, as modprobe and the kernel do
      // (pages-limit is pages_limit); the person's spelling stays.
      auto eq = word.find('=');
      for (const auto& [key, value] : options) {
        if (eq != std::string::npos && parse::modprobe_name(word.substr(0, eq)) == parse::modprobe_name(key)) {
          bool cont = word.back() == '\\';
          word = word.substr(0, eq) + "=" + value + (cont ? "\\" : "");
          if (std::find(out.found.begin(), out.found.end(), key) == out.found.end()) out.found.push_back(key);
          changed_here = true;
        }
      }
      edited += word;
      i = j;
    }
    if (changed_here) {
      lines[li] = edited + end;
      out.last_line = static_cast<int>(li) + 1;
    }
  }
  out.text = text::join(lines, "");
  return out;
}

std::string append_to_line(const std::string& text, int line, const std::string& words) {
  auto lines = physical_lines(text);
  if (line < 1 || static_cast<std::size_t>(line) > lines.size()) return text;
  // A continued line: append to the last physical line of the logical line.
  std::size_t idx = static_cast<std::size_t>(line) - 1;
  while (idx + 1 < lines.size()) {
    auto [b, e] = body_and_end(lines[idx]);
    if (b.empty() || b.back() != '\\') break;
    ++idx;
  }
  auto [body, end] = body_and_end(lines[idx]);
  // Before a trailing comment, if there is one.
  std::size_t hash = std::string::npos;
  for (std::size_t i = 0; i < body.size(); ++i)
    if (body[i] == '#' && (i == 0 || is_space(body[i - 1]))) {
      hash = i;
      break;
    }
  if (hash == std::string::npos) {
    std::size_t e2 = body.size();
    while (e2 > 0 && is_space(body[e2 - 1])) --e2;
    body = body.substr(0, e2) + " " + words + body.substr(e2);
  } else {
    std::size_t e2 = hash;
    while (e2 > 0 && is_space(body[e2 - 1])) --e2;
    body = body.substr(0, e2) + " " + words + body.substr(e2);
  }
  lines[idx] = body + end;
  return text::join(lines, "");
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
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find('\n', i);
    const bool last = j == std::string::npos;
    std::string line = text.substr(i, last ? std::string::npos : j - i);
    ++n;
    if (std::find(lines.begin(), lines.end(), n) != lines.end()) {
      bool cr = !line.empty() && line.back() == '\r';
      if (cr) line.pop_back();
      line = "#" + line + "   # " + why + (cr ? "\r" : "");
    }
    out += line + (last ? "" : "\n");
    if (last) break;
    i = j + 1;
  }
  return out;
}

std::map<std::string, std::string> dropin_environment(const std::string& text) {
  std::map<std::string, std::string> out;
  for (auto& line : physical_lines(text)) {
    auto [body, end] = body_and_end(line);
    std::size_t p = 0;
    while (p < body.size() && is_space(body[p])) ++p;
    body = body.substr(p);
    if (body.rfind("Environment=", 0) == 0) {
      // Words, each optionally double-quoted: KEY=VALUE.
      std::string rest = body.substr(12);
      std::size_t i = 0;
      while (i < rest.size()) {
        while (i < rest.size() && is_space(rest[i])) ++i;
        if (i >= rest.size()) break;
        std::string word;
        if (rest[i] == '"' || rest[i] == '\'') {
          char q = rest[i++];
          while (i < rest.size() && rest[i] != q) word += rest[i++];
          ++i;
        } else {
          while (i < rest.size() && !is_space(rest[i])) word += rest[i++];
        }
        auto eq = word.find('=');
        if (eq != std::string::npos && eq > 0) out[word.substr(0, eq)] = word.substr(eq + 1);
      }
    } else if (body.rfind("UnsetEnvironment=", 0) == 0) {
      std::string rest = body.substr(17);
      std::size_t i = 0;
      while (i < rest.size()) {
        while (i < rest.size() && is_space(rest[i])) ++i;
        std::size_t j = i;
        while (j < rest.size() && !is_space(rest[j])) ++j;
        if (j > i) out[rest.substr(i, j - i)] = "(unset)";
        i = j;
      }
    }
  }
  return out;
}

namespace {

// Whitespace-separated words; a double-quoted stretch belongs to its word.
std::vector<std::string> cmdline_words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool quoted = false;
  for (char c : text) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
      continue;
    }
    word += c;
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

std::string word_name(const std::string& word) { return cmdline_param_name(word.substr(0, word.find('='))); }

// Edits a word list in place; returns whether anything changed.
bool edit_words(std::vector<std::string>& words, const KernelCmdlineParams& p, CmdlineEdit& e) {
  bool changed = false;
  std::vector<std::string> out;
  for (const auto& w : words) {
    const std::string n = word_name(w);
    bool drop = std::any_of(p.remove.begin(), p.remove.end(), [&](const std::string& r) { return cmdline_param_name(r) == n; });
    if (drop) {
      e.removed.push_back(w);
      changed = true;
      continue;
    }
    bool replaced = false;
    for (const auto& [k, v] : p.set) {
      if (cmdline_param_name(k) != n) continue;
      const bool first = std::find(e.found.begin(), e.found.end(), k) == e.found.end();
      if (first) {
        // The first word setting it takes the value; later ones would override it.
        const std::string nw = w.substr(0, w.find('=')) + "=" + v;
        if (nw != w) changed = true;
        out.push_back(nw);
        e.found.push_back(k);
      } else {
        e.removed.push_back(w);
        changed = true;
      }
      replaced = true;
    }
    if (!replaced) out.push_back(w);
  }
  words = std::move(out);
  return changed;
}

void append_missing(std::vector<std::string>& words, const KernelCmdlineParams& p, const CmdlineEdit& e) {
  for (const auto& [k, v] : p.set)
    if (std::find(e.found.begin(), e.found.end(), k) == e.found.end()) words.push_back(k + "=" + v);
}

bool odd_quotes(std::string_view s) { return std::count(s.begin(), s.end(), '"') % 2 != 0; }

}  // namespace

CmdlineEdit edit_cmdline_words(const std::string& words, const KernelCmdlineParams& params) {
  CmdlineEdit e;
  // A word appended after an unterminated quote would be read as part of it.
  if (odd_quotes(words)) {
    e.text = words;
    e.unbalanced = true;
    return e;
  }
  auto w = cmdline_words(words);
  bool changed = edit_words(w, params, e);
  const std::size_t before = w.size();
  append_missing(w, params, e);
  e.text = changed || w.size() != before ? text::join(w, " ") : words;
  return e;
}

CmdlineEdit edit_grub_defaults(const std::string& text, const KernelCmdlineParams& params) {
  struct Line {
    std::string text;
    bool nl = false;
    std::string key;    // GRUB_CMDLINE_LINUX or GRUB_CMDLINE_LINUX_DEFAULT ("" otherwise)
    std::string lead;   // bytes before the value: indentation and KEY=
    char quote = 0;     // '"', '\'' or 0
    std::string value;  // between the quotes
    std::string tail;   // after the closing quote (a comment)
  };
  std::vector<Line> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    Line l;
    l.text = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    l.nl = nl != std::string::npos;
    pos = nl == std::string::npos ? text.size() : nl + 1;
    std::size_t i = 0;
    while (i < l.text.size() && (l.text[i] == ' ' || l.text[i] == '\t')) ++i;
    if (l.text.compare(i, 7, "export ") == 0) i += 7;
    for (const char* key : {"GRUB_CMDLINE_LINUX_DEFAULT=", "GRUB_CMDLINE_LINUX="}) {
      const std::size_t n = std::string_view(key).size();
      if (l.text.compare(i, n, key) != 0) continue;
      std::size_t v = i + n;
      char q = v < l.text.size() && (l.text[v] == '"' || l.text[v] == '\'') ? l.text[v] : 0;
      std::size_t end = q ? l.text.find(q, v + 1) : l.text.find_first_of(" \t#", v);
      if (q && end == std::string::npos) break;  // an unterminated quote: not ours to touch
      l.key = std::string(key, n - 1);
      l.lead = l.text.substr(0, v);
      l.quote = q;
      l.value = q ? l.text.substr(v + 1, end - v - 1) : l.text.substr(v, end == std::string::npos ? std::string::npos : end - v);
      l.tail = end == std::string::npos ? "" : l.text.substr(q ? end + 1 : end);
      break;
    }
    lines.push_back(std::move(l));
  }
  CmdlineEdit e;
  auto render = [](Line& l, const std::vector<std::string>& words) {
    const std::string v = text::join(words, " ");
    l.value = v;
    const char q = l.quote ? l.quote : (v.find_first_of(" \t") != std::string::npos ? '"' : 0);
    l.text = l.lead + (q ? std::string(1, q) : "") + v + (q ? std::string(1, q) : "") + l.tail;
  };
  Line* last_default = nullptr;
  Line* last_linux = nullptr;
  for (auto& l : lines)
    if (!l.key.empty() && odd_quotes(l.value)) {
      e.text = text;
      e.unbalanced = true;
      return e;
    }
  for (auto& l : lines) {
    if (l.key.empty()) continue;
    (l.key == "GRUB_CMDLINE_LINUX_DEFAULT" ? last_default : last_linux) = &l;
    auto words = cmdline_words(l.value);
    if (edit_words(words, params, e)) render(l, words);
  }
  KernelCmdlineParams missing;
  for (const auto& [k, v] : params.set)
    if (std::find(e.found.begin(), e.found.end(), k) == e.found.end()) missing.set[k] = v;
  std::string out;
  if (!missing.set.empty()) {
    if (Line* target = last_default ? last_default : last_linux) {
      auto words = cmdline_words(target->value);
      append_missing(words, missing, CmdlineEdit{});
      render(*target, words);
    } else {
      std::vector<std::string> words;
      append_missing(words, missing, CmdlineEdit{});
      if (!lines.empty() && !lines.back().nl) lines.back().nl = true;
      Line added;
      added.text = "GRUB_CMDLINE_LINUX_DEFAULT=\"" + text::join(words, " ") + "\"";
      added.nl = true;
      lines.push_back(std::move(added));
    }
  }
  for (const auto& l : lines) out += l.text + (l.nl ? "\n" : "");
  e.text = out;
  return e;
}

CmdlineEdit edit_kernel_cmdline_file(const std::string& text, const KernelCmdlineParams& params) {
  std::string body = text;
  std::string trail;
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) {
    trail.insert(trail.begin(), body.back());
    body.pop_back();
  }
  auto e = edit_cmdline_words(body, params);
  if (e.unbalanced) {
    e.text = text;
    return e;
  }
  e.text += trail.empty() ? "\n" : trail;
  if (text.empty()) e.text = e.text == "\n" ? "" : e.text;
  return e;
}

Result<CmdlineEdit> edit_kernelstub_config(const std::string& text, const KernelCmdlineParams& params) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return make_error("not JSON");
  }
  if (!j.is_object() || !j["user"].is_object() || !j["user"]["kernel_options"].is_array())
    return make_error("no user.kernel_options list");
  std::vector<std::string> words;
  for (const auto& w : j["user"]["kernel_options"]) {
    if (!w.is_string()) return make_error("user.kernel_options holds something that is not a string");
    words.push_back(w.get<std::string>());
  }
  CmdlineEdit e;
  for (const auto& w : words)
    if (odd_quotes(w)) {
      e.text = text;
      e.unbalanced = true;
      return e;
    }
  const auto before = words;
  edit_words(words, params, e);
  append_missing(words, params, e);
  if (words == before) {
    e.text = text;
    return e;
  }
  j["user"]["kernel_options"] = words;
  e.text = j.dump(4) + "\n";
  return e;
}

std::optional<std::pair<std::string, std::string>> dir_pattern(const std::string& entry) {
  const auto star = entry.find("/*");
  if (star == std::string::npos) return std::nullopt;
  return std::pair{entry.substr(0, star), entry.substr(star + 2)};
}

}  // namespace amdml::fix
