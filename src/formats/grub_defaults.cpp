// GRUB's defaults read the way the shell sourcing them reads them; see grub_defaults.hpp.
#include "formats/grub_defaults.hpp"

#include <algorithm>
#include <optional>

namespace amdml::formats {

namespace {

bool name_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }
// Characters that end an unquoted word (sh(1) metacharacters).
bool word_end(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' ||
         c == '>';
}

// Reserved words after which a command (and so an assignment) can start.
bool keeps_command_start(std::string_view w) {
  for (const char* k : {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "export",
                        "readonly"})
    if (w == k) return true;
  return false;
}

void add(CmdlineValue& v, std::string text, bool code) {
  if (text.empty()) return;
  if (!code && !v.empty() && !v.back().code) v.back().text += text;
  else v.push_back({std::move(text), code});
}

class Reader {
 public:
  explicit Reader(std::string_view t) : t_(t) {}

  Result<GrubDefaults> run() {
    GrubDefaults out;
    out.text = std::string(t_);
    bool command_start = true, redirect = false;
    while (p_ < t_.size() && !error_) {
      const char c = t_[p_];
      if (c == ' ' || c == '\t') {
        ++p_;
      } else if (c == '\\' && p_ + 1 < t_.size() && t_[p_ + 1] == '\n') {
        p_ += 2;
      } else if (c == '<' && p_ + 1 < t_.size() && t_[p_ + 1] == '<') {
        fail(p_, "a here-document, which amdml does not read");
      } else if (c == '<' || c == '>') {
        // ">", ">>", ">&", ">|", "<", "<&", "<>": the next word is a file (or descriptor).
        ++p_;
        if (p_ < t_.size() && (t_[p_] == '&' || t_[p_] == '>' || (c == '>' && t_[p_] == '|'))) ++p_;
        if (redirect) fail(p_ - 1, "a redirection without a file name");
        redirect = true;
      } else if (word_end(c)) {
        if (redirect) fail(p_, "a redirection without a file name");
        ++p_;
        command_start = true;
      } else if (c == '#') {
        while (p_ < t_.size() && t_[p_] != '\n') ++p_;
      } else if (command_start && !redirect && assignment(out)) {
        // An assignment keeps the command start: another may follow, or a command.
      } else {
        const std::size_t start = p_;
        CmdlineValue ignored;
        int segments = 0;
        word(ignored, segments);
        if (!redirect && command_start) command_start = keeps_command_start(t_.substr(start, p_ - start));
        redirect = false;
      }
    }
    if (redirect) fail(p_, "a redirection without a file name");
    if (error_) return *error_;
    return out;
  }

 private:
  std::string_view t_;
  std::size_t p_ = 0;
  std::optional<Error> error_;
  std::size_t line_pos_ = 0;
  int line_ = 1;

  int line_of(std::size_t pos) {
    // Positions asked for only grow (errors aside), so count newlines once.
    if (pos < line_pos_) {
      line_pos_ = 0;
      line_ = 1;
    }
    line_ += static_cast<int>(std::count(t_.begin() + static_cast<std::ptrdiff_t>(line_pos_),
                                         t_.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
    line_pos_ = pos;
    return line_;
  }
  void fail(std::size_t at, const std::string& what) {
    if (!error_) error_ = make_error("line " + std::to_string(line_of(at)) + ": " + what);
    p_ = t_.size();
  }

  // NAME=value at p_: recorded when NAME is one of GRUB's command line variables.
  bool assignment(GrubDefaults& out) {
    if (!name_start(t_[p_])) return false;
    std::size_t q = p_;
    while (q < t_.size() && name_char(t_[q])) ++q;
    if (q >= t_.size() || t_[q] != '=') return false;
    GrubAssignment a;
    a.name = std::string(t_.substr(p_, q - p_));
    a.line = line_of(p_);
    p_ = q + 1;
    a.value_begin = p_;
    int segments = 0;
    char first = 0;
    if (p_ < t_.size() && (t_[p_] == '\'' || t_[p_] == '"')) first = t_[p_];
    word(a.value, segments);
    a.value_end = p_;
    if (segments == 1 && first && p_ - a.value_begin >= 2 && t_[p_ - 1] == first) a.quote = first;
    if (!error_ && (a.name == kGrubLinux || a.name == kGrubDefault)) out.assignments.push_back(std::move(a));
    return true;
  }

  // One shell word from p_: its value into v; segments counts its quoted and unquoted stretches.
  void word(CmdlineValue& v, int& segments) {
    bool in_plain = false;
    while (p_ < t_.size() && !error_) {
      const char c = t_[p_];
      if (word_end(c)) break;
      if (c == '\'' || c == '"') {
        ++segments;
        in_plain = false;
        c == '\'' ? single_quoted(v) : double_quoted(v);
        continue;
      }
      if (!in_plain) ++segments, in_plain = true;
      if (c == '\\') {
        if (p_ + 1 >= t_.size()) {
          add(v, "\\", false);
          ++p_;
        } else {
          if (t_[p_ + 1] != '\n') add(v, std::string(1, t_[p_ + 1]), false);
          p_ += 2;
        }
      } else if (c == '$' || c == '`') {
        expansion(v);
      } else {
        add(v, std::string(1, c), false);
        ++p_;
      }
    }
  }

  void single_quoted(CmdlineValue& v) {
    const std::size_t end = t_.find('\'', p_ + 1);
    if (end == std::string_view::npos) return fail(p_, "a quote (') that is not closed");
    add(v, std::string(t_.substr(p_ + 1, end - p_ - 1)), false);
    p_ = end + 1;
  }

  void double_quoted(CmdlineValue& v) {
    const std::size_t open = p_++;
    while (p_ < t_.size() && t_[p_] != '"' && !error_) {
      const char c = t_[p_];
      if (c == '\\' && p_ + 1 < t_.size() && std::string_view("$`\"\\\n").find(t_[p_ + 1]) != std::string_view::npos) {
        if (t_[p_ + 1] != '\n') add(v, std::string(1, t_[p_ + 1]), false);
        p_ += 2;
      } else if (c == '$' || c == '`') {
        expansion(v);
      } else {
        add(v, std::string(1, c), false);
        ++p_;
      }
    }
    if (error_) return;
    if (p_ >= t_.size()) return fail(open, "a quote (\") that is not closed");
    ++p_;
  }

  // `$...` or a backtick at p_: its source as one code piece ('$' before nothing it
  // expands is a literal '$').
  void expansion(CmdlineValue& v) {
    const std::size_t start = p_;
    if (t_[p_] == '`') {
      p_ = skip_backticks(p_);
    } else if (p_ + 1 < t_.size() && t_[p_ + 1] == '(') {
      p_ = skip_nested(p_ + 2, '(', ')');
    } else if (p_ + 1 < t_.size() && t_[p_ + 1] == '{') {
      p_ = skip_nested(p_ + 2, '{', '}');
    } else if (p_ + 1 < t_.size() && name_start(t_[p_ + 1])) {
      p_ += 2;
      while (p_ < t_.size() && name_char(t_[p_])) ++p_;
    } else if (p_ + 1 < t_.size() && std::string_view("0123456789@*#?$!-").find(t_[p_ + 1]) != std::string_view::npos) {
      p_ += 2;
    } else {
      add(v, "$", false);
      ++p_;
      return;
    }
    if (!error_) add(v, std::string(t_.substr(start, p_ - start)), true);
  }

  // Past the backtick that closes the one at `at`.
  std::size_t skip_backticks(std::size_t at) {
    for (std::size_t q = at + 1; q < t_.size(); ++q) {
      if (t_[q] == '\\') ++q;
      else if (t_[q] == '`') return q + 1;
    }
    fail(at, "a backtick (`) that is not closed");
    return t_.size();
  }

  // Past the `close` that matches an opening one just before `from`; quotes, escapes
  // and backticks inside are skipped whole.
  std::size_t skip_nested(std::size_t from, char open, char close) {
    int depth = 1;
    std::size_t q = from;
    while (q < t_.size()) {
      const char c = t_[q];
      if (c == '\\') {
        q += 2;
      } else if (c == '\'') {
        const std::size_t end = t_.find('\'', q + 1);
        if (end == std::string_view::npos) break;
        q = end + 1;
      } else if (c == '"') {
        std::size_t e = q + 1;
        while (e < t_.size() && t_[e] != '"') e += t_[e] == '\\' ? 2 : 1;
        if (e >= t_.size()) break;
        q = e + 1;
      } else if (c == '`') {
        q = skip_backticks(q);
        if (error_) return t_.size();
      } else {
        if (c == open) ++depth;
        if (c == close && --depth == 0) return q + 1;
        ++q;
      }
    }
    fail(from - 2, std::string("a '$") + open + "' that is not closed");
    return t_.size();
  }
};

bool safe_unquoted(char c) {
  return name_char(c) || std::string_view(".,:/+-=@%^").find(c) != std::string_view::npos;
}

}  // namespace

Result<GrubDefaults> read_grub_defaults(std::string_view text) { return Reader(text).run(); }

std::string grub_value_source(const CmdlineValue& value, char quote) {
  const bool literal = std::none_of(value.begin(), value.end(), [](const CmdlinePiece& p) { return p.code; });
  std::string all;
  for (const auto& p : value) all += p.text;
  if (literal && quote == '\'' && all.find('\'') == std::string::npos) return "'" + all + "'";
  if (literal && quote == 0 && !all.empty() && std::all_of(all.begin(), all.end(), safe_unquoted)) return all;
  std::string out = "\"";
  for (std::size_t i = 0; i < value.size(); ++i) {
    const CmdlinePiece& p = value[i];
    if (p.code) {
      // "$A" then "b" would read as "$Ab": the name gets its braces.
      const bool bare = p.text.size() > 1 && p.text[0] == '$' && name_start(p.text[1]) &&
                        std::all_of(p.text.begin() + 1, p.text.end(), name_char);
      if (bare && i + 1 < value.size() && !value[i + 1].code && name_char(value[i + 1].text[0]))
        out += "${" + p.text.substr(1) + "}";
      else
        out += p.text;
      continue;
    }
    for (char c : p.text) {
      if (c == '\\' || c == '"' || c == '$' || c == '`') out += '\\';
      out += c;
    }
  }
  return out + "\"";
}

std::string write_grub_value(const GrubDefaults& file, std::size_t index, const CmdlineValue& value) {
  const GrubAssignment& a = file.assignments.at(index);
  if (value == a.value) return file.text;
  return file.text.substr(0, a.value_begin) + grub_value_source(value, a.quote) + file.text.substr(a.value_end);
}

std::string append_grub_assignment(const std::string& text, const std::string& name, const CmdlineValue& value) {
  std::string out = text;
  std::size_t slashes = 0;
  while (slashes < out.size() && out[out.size() - 1 - slashes] == '\\') ++slashes;
  // A backslash at the very end is a word "\\" to the shell: it stays one ("\\\\"),
  // rather than becoming a continuation that would swallow the new line.
  if (slashes % 2 == 1) out += '\\';
  if (!out.empty() && out.back() != '\n') out += '\n';
  // A last line continued by a backslash would swallow the new one: end it first.
  if (out.size() >= 2 && out[out.size() - 2] == '\\') out += '\n';
  return out + name + "=" + grub_value_source(value, '"') + "\n";
}

std::vector<GrubRef> grub_chain(const std::vector<GrubFile>& files, const std::string& name) {
  std::vector<GrubRef> all;
  for (std::size_t f = 0; f < files.size(); ++f)
    for (std::size_t i = 0; i < files[f].defaults.assignments.size(); ++i)
      if (files[f].defaults.assignments[i].name == name) all.push_back({f, i});
  std::vector<GrubRef> chain;
  const std::string plain = "$" + name, braced = "${" + name + "}";
  for (std::size_t k = all.size(); k-- > 0;) {
    chain.insert(chain.begin(), all[k]);
    const auto& v = files[all[k].file].defaults.assignments[all[k].index].value;
    if (std::none_of(v.begin(), v.end(), [&](const CmdlinePiece& p) { return p.code && (p.text == plain || p.text == braced); }))
      break;
  }
  return chain;
}

CmdlineValue grub_value(const std::vector<GrubFile>& files, const std::string& name) {
  // A value that doubles itself ("$X $X") thirty times would not fit in memory: past
  // this many bytes a reference stays as its source.
  constexpr std::size_t kMaxExpanded = 1 << 20;
  const std::string plain = "$" + name, braced = "${" + name + "}";
  CmdlineValue value;
  std::size_t size = 0;
  for (const auto& ref : grub_chain(files, name)) {
    CmdlineValue next;
    std::size_t next_size = 0;
    for (const auto& p : files[ref.file].defaults.assignments[ref.index].value) {
      if (p.code && (p.text == plain || p.text == braced) && next_size + size <= kMaxExpanded) {
        for (const auto& q : value) add(next, q.text, q.code);
        next_size += size;
      } else {
        add(next, p.text, p.code);
        next_size += p.text.size();
      }
    }
    value = std::move(next);
    size = next_size;
  }
  return value;
}

GrubCmdline grub_cmdline(const std::vector<GrubFile>& files) {
  GrubCmdline out;
  auto text = [&](const char* name) {
    std::string s;
    for (const auto& p : grub_value(files, name)) s += p.text;
    return s;
  };
  const std::string linux_words = text(kGrubLinux), default_words = text(kGrubDefault);
  out.words = linux_words.empty() ? default_words : default_words.empty() ? linux_words : linux_words + " " + default_words;
  auto chain = grub_chain(files, kGrubDefault);
  if (chain.empty()) chain = grub_chain(files, kGrubLinux);
  if (!chain.empty()) out.file = files[chain.back().file].path;
  else if (!files.empty()) out.file = files[0].path;
  return out;
}

}  // namespace amdml::formats
