// modprobe.d's line model and reader (formats/modprobe_conf.hpp).
#include "formats/modprobe_conf.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace amdml::formats::modprobe {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The body's end before a continuing '\'; whether there is one.
std::pair<std::size_t, bool> content_end(const std::string& body) {
  if (!body.empty() && body.back() == '\\') return {body.size() - 1, true};
  return {body.size(), false};
}

bool is_false_program(std::string_view w) {
  return w == "/bin/false" || w == "/bin/true" || w == "/usr/bin/false" || w == "/usr/bin/true";
}

Kind classify(const std::vector<std::string_view>& w) {
  if (w.empty() || w[0].starts_with('#')) return Kind::blank;
  const std::string_view cmd = w[0];
  if (cmd == "options") return w.size() >= 2 ? Kind::options : Kind::bad;
  if ((cmd == "blacklist" && w.size() >= 2) || (cmd == "install" && w.size() >= 3 && is_false_program(w[2])))
    return Kind::block;
  if (cmd == "alias" || cmd == "blacklist" || cmd == "install" || cmd == "remove" || cmd == "softdep" ||
      cmd == "include" || cmd == "weakdep")
    return Kind::other;
  return Kind::bad;
}

// Fills a directive's words, text, kind and remark from its lines.
void read_directive(const File& f, Directive& d) {
  d.words.clear();
  std::string logical;
  for (std::size_t li = d.first; li <= d.last; ++li) {
    const std::string& body = f.lines[li].body;
    const auto [end, continued] = content_end(body);
    std::size_t i = 0;
    while (i < end) {
      if (is_blank(body[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < end && !is_blank(body[j])) ++j;
      d.words.push_back({li, i, j - i});
      i = j;
    }
    logical.append(body, 0, end);
    if (continued) logical += ' ';
  }
  d.text = std::string(text::trim(logical));
  std::vector<std::string_view> w;
  for (const auto& x : d.words) w.push_back(word(f, x));
  d.kind = classify(w);
  d.remark = d.words.size();
  for (std::size_t i = 2; i < w.size(); ++i)
    if (w[i].starts_with('#')) {
      d.remark = i;
      break;
    }
}

}  // namespace

File read(std::string_view text) {
  File f;
  for (const auto& pl : text::lines_with_ends(text)) f.lines.push_back({std::string(pl.body), std::string(pl.end)});
  for (std::size_t li = 0; li < f.lines.size();) {
    Directive d;
    d.first = li;
    while (li + 1 < f.lines.size() && content_end(f.lines[li].body).second) ++li;
    d.last = li++;
    read_directive(f, d);
    f.directives.push_back(std::move(d));
  }
  return f;
}

std::string join(const File& file) {
  std::string out;
  for (const auto& l : file.lines) out += l.body + l.end;
  return out;
}

std::string_view word(const File& file, const Word& w) {
  return std::string_view(file.lines[w.line].body).substr(w.pos, w.size);
}

std::string name(std::string_view n) {
  std::string out(n);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

Option option(std::string_view w) {
  if (w.size() >= 2 && w.front() == '"' && w.back() == '"') w = w.substr(1, w.size() - 2);
  Option o;
  const auto eq = w.find('=');
  o.spelling = std::string(w.substr(0, eq));
  o.key = name(o.spelling);
  if (eq != std::string_view::npos) {
    std::string_view v = w.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    o.value = std::string(v);
  }
  return o;
}

void replace_word(File& file, std::size_t d, std::size_t index, std::string_view text) {
  auto& dir = file.directives[d];
  const Word w = dir.words[index];
  file.lines[w.line].body.replace(w.pos, w.size, text);
  read_directive(file, dir);
}

void append_words(File& file, std::size_t d, std::string_view words) {
  auto& dir = file.directives[d];
  std::size_t li = dir.last;
  std::size_t at = content_end(file.lines[li].body).first;
  if (dir.remark < dir.words.size()) {
    li = dir.words[dir.remark].line;
    at = dir.words[dir.remark].pos;
  }
  std::string& body = file.lines[li].body;
  const std::size_t before = at;
  while (at > 0 && is_blank(body[at - 1])) --at;
  // A remark at the very start of a continued line keeps a blank before it.
  const bool blank_after = at == before && at < body.size() && body[at] == '#';
  body.insert(at, " " + std::string(words) + (blank_after ? " " : ""));
  read_directive(file, dir);
}

void comment_out(File& file, std::size_t d, std::string_view prefix) {
  auto& dir = file.directives[d];
  file.lines[dir.first].body.insert(0, prefix);
  read_directive(file, dir);
}

}  // namespace amdml::formats::modprobe

namespace amdml::formats::parse {

ModprobeFile modprobe_conf(std::string_view text) { return modprobe_conf(modprobe::read(text)); }

ModprobeFile modprobe_conf(const modprobe::File& file) {
  ModprobeFile out;
  for (const auto& d : file.directives) {
    const int line = static_cast<int>(d.first) + 1;
    switch (d.kind) {
      case modprobe::Kind::options: {
        const std::string module = modprobe::name(modprobe::word(file, d.words[1]));
        for (std::size_t i = 2; i < d.words.size(); ++i) {
          const auto w = modprobe::word(file, d.words[i]);
          // A remark's prose ("#", "was") reaches the kernel too, which skips it as
          // parameters it does not know; only its assignments can set anything.
          if (i >= d.remark && w.find('=') == std::string_view::npos) continue;
          auto o = modprobe::option(w);
          out.options.push_back({line, module, std::move(o.key), std::move(o.value)});
        }
        break;
      }
      case modprobe::Kind::block:
        out.blocks.push_back({line, modprobe::name(modprobe::word(file, d.words[1])),
                              std::string(modprobe::word(file, d.words[0])), d.text});
        break;
      case modprobe::Kind::bad:
        out.bad_lines.emplace_back(line, d.text);
        break;
      case modprobe::Kind::blank:
      case modprobe::Kind::other:
        break;
    }
  }
  return out;
}

}  // namespace amdml::formats::parse
