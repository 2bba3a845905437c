// apt's source lists; see apt_sources.hpp.
#include "formats/apt_sources.hpp"

#include <algorithm>
#include <cctype>

namespace amdml::formats::apt {

namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !blank(s[i])) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

std::vector<std::string> split_lines_kept(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out.emplace_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// "deb [a=b c=d] uri suite comp..." -> an entry; nullopt for anything else.
std::optional<Entry> one_line_entry(std::string_view line) {
  line = strip(line);
  if (line.empty() || line[0] == '#') return std::nullopt;
  if (auto hash = line.find('#'); hash != std::string_view::npos) line = strip(line.substr(0, hash));
  std::size_t sp = 0;
  while (sp < line.size() && !blank(line[sp])) ++sp;
  std::string type(line.substr(0, sp));
  if (type != "deb" && type != "deb-src") return std::nullopt;
  Entry e;
  e.types = {type};
  std::string_view rest = strip(line.substr(sp));
  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    for (const auto& opt : words(rest.substr(1, close - 1))) {
      auto eq = opt.find('=');
      if (eq == std::string::npos || eq == 0) return std::nullopt;
      std::string key = lower(opt.substr(0, eq));
      if (!key.empty() && (key.back() == '+' || key.back() == '-')) key.pop_back();  // arch+=..., arch-=...
      e.options[key] = opt.substr(eq + 1);
    }
    rest = strip(rest.substr(close + 1));
  }
  auto w = words(rest);
  if (w.size() < 2) return std::nullopt;
  e.uris = {w[0]};
  e.suites = {w[1]};
  e.components.assign(w.begin() + 2, w.end());
  return e;
}

bool is_blank_line(const std::string& l) { return strip(l).empty(); }
bool is_comment(const std::string& l) {
  auto s = strip(l);
  return !s.empty() && s[0] == '#';
}

// The fields of one deb822 stanza, lines [first, last): continuation lines (indented)
// join their field's value with newlines.
void fill_deb822(Entry& e, const std::vector<std::string>& lines) {
  std::map<std::string, std::string> fields;
  std::string current;
  for (std::size_t i = e.first; i < e.last; ++i) {
    const std::string& l = lines[i];
    if (is_comment(l)) continue;
    if (!l.empty() && (l[0] == ' ' || l[0] == '\t')) {
      if (!current.empty()) fields[current] += "\n" + std::string(strip(l));
      continue;
    }
    auto colon = l.find(':');
    if (colon == std::string::npos) {
      current.clear();
      continue;
    }
    current = lower(strip(std::string_view(l).substr(0, colon)));
    fields[current] = std::string(strip(std::string_view(l).substr(colon + 1)));
  }
  e.types = words(fields["types"]);
  e.uris = words(fields["uris"]);
  e.suites = words(fields["suites"]);
  e.components = words(fields["components"]);
  for (const auto& [k, v] : fields)
    if (k != "types" && k != "uris" && k != "suites" && k != "components") e.options[k] = v;
  if (auto en = e.options.find("enabled"); en != e.options.end()) e.enabled = lower(en->second) != "no";
}

}  // namespace

std::string SourcesFile::text() const {
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

SourcesFile parse_one_line(std::string_view text) {
  SourcesFile f;
  f.style = Style::one_line;
  f.lines = split_lines_kept(text);
  for (std::size_t i = 0; i < f.lines.size(); ++i)
    if (auto e = one_line_entry(f.lines[i])) {
      e->first = i;
      e->last = i + 1;
      f.entries.push_back(std::move(*e));
    }
  return f;
}

SourcesFile parse_deb822(std::string_view text) {
  SourcesFile f;
  f.style = Style::deb822;
  f.lines = split_lines_kept(text);
  std::size_t i = 0;
  while (i < f.lines.size()) {
    while (i < f.lines.size() && (is_blank_line(f.lines[i]) || is_comment(f.lines[i]))) ++i;
    if (i >= f.lines.size()) break;
    Entry e;
    e.first = i;
    while (i < f.lines.size() && !is_blank_line(f.lines[i])) ++i;
    e.last = i;
    fill_deb822(e, f.lines);
    if (!e.types.empty() && !e.uris.empty() && !e.suites.empty()) f.entries.push_back(std::move(e));
  }
  return f;
}

SourcesFile parse_sources(const std::string& path, std::string_view text) {
  const std::string ext = ".sources";
  if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return parse_deb822(text);
  return parse_one_line(text);
}

std::string normalized_uri(std::string_view uri) {
  while (uri.size() > 1 && uri.back() == '/') uri.remove_suffix(1);
  return std::string(uri);
}

bool configures(const Entry& e, const std::string& uri, const std::string& suite) {
  if (!e.enabled || std::find(e.types.begin(), e.types.end(), "deb") == e.types.end()) return false;
  const std::string want = normalized_uri(uri);
  const bool same_uri = std::any_of(e.uris.begin(), e.uris.end(), [&](const std::string& u) { return normalized_uri(u) == want; });
  return same_uri && std::find(e.suites.begin(), e.suites.end(), suite) != e.suites.end();
}

std::string disable(const SourcesFile& f, const Entry& e, const std::string& why) {
  std::vector<std::string> out(f.lines.begin(), f.lines.end());
  if (e.first >= out.size() || e.last > out.size() || e.first >= e.last) return f.text();
  // The line ending the file uses (a last line without one gets it when lines follow).
  const std::string eol = f.lines[e.first].size() >= 2 && f.lines[e.first].compare(f.lines[e.first].size() - 2, 2, "\r\n") == 0
                              ? "\r\n"
                              : "\n";
  auto ended = [&](std::string l) {
    if (l.empty() || l.back() != '\n') l += eol;
    return l;
  };
  std::string note = "# " + why + eol;
  if (f.style == Style::one_line) {
    out[e.first] = note + "# " + ended(out[e.first]);
    if (e.first + 1 == f.lines.size() && f.lines[e.first].back() != '\n') out[e.first].resize(out[e.first].size() - eol.size());
  } else {
    bool replaced = false;
    for (std::size_t i = e.first; i < e.last; ++i) {
      auto colon = out[i].find(':');
      if (!out[i].empty() && out[i][0] != ' ' && out[i][0] != '\t' && colon != std::string::npos &&
          lower(strip(std::string_view(out[i]).substr(0, colon))) == "enabled") {
        const bool had_eol = !out[i].empty() && out[i].back() == '\n';
        out[i] = "Enabled: no" + (had_eol ? eol : std::string());
        replaced = true;
      }
    }
    out[e.first] = note + (replaced ? "" : "Enabled: no" + eol) + out[e.first];
  }
  std::string text;
  for (const auto& l : out) text += l;
  return text;
}

}  // namespace amdml::formats::apt
