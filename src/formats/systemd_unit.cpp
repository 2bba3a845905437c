// systemd unit/drop-in parsing and merging; see systemd_unit.hpp.
#include "formats/systemd_unit.hpp"
#include "base/utf8.hpp"

#include <algorithm>
#include <cerrno>
#include <set>

#include "formats/system_files.hpp"

namespace amdml::formats::systemd_unit {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One C escape after a backslash at s[i] (s[i] is the character after '\'). Appends the
// decoded text and returns how many characters it consumed, or 0 when it is not an
// escape systemd's cunescape_one() accepts.
std::size_t unescape_one(std::string_view s, std::size_t i, std::string& out) {
  char c = s[i];
  switch (c) {
    case 'a': out += '\a'; return 1;
    case 'b': out += '\b'; return 1;
    case 'f': out += '\f'; return 1;
    case 'n': out += '\n'; return 1;
    case 'r': out += '\r'; return 1;
    case 't': out += '\t'; return 1;
    case 'v': out += '\v'; return 1;
    case '\\': out += '\\'; return 1;
    case '"': out += '"'; return 1;
    case '\'': out += '\''; return 1;
    case 's': out += ' '; return 1;
    case 'x': {
      if (i + 2 >= s.size()) return 0;
      int a = hex_digit(s[i + 1]), b = hex_digit(s[i + 2]);
      if (a < 0 || b < 0 || (a == 0 && b == 0)) return 0;  // \x00 is refused
      out += static_cast<char>(a * 16 + b);
      return 3;
    }
    case 'u':
    case 'U': {
      std::size_t n = c == 'u' ? 4 : 8;
      if (i + n >= s.size()) return 0;
      std::uint32_t cp = 0;
      for (std::size_t k = 1; k <= n; ++k) {
        int d = hex_digit(s[i + k]);
        if (d < 0) return 0;
        cp = cp * 16 + static_cast<std::uint32_t>(d);
      }
      if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
      utf8::append(out, cp);
      return n + 1;
    }
    default:
      if (c >= '0' && c <= '7') {  // exactly three octal digits, first 0-3
        if (i + 2 >= s.size()) return 0;
        char b = s[i + 1], d = s[i + 2];
        if (c > '3' || b < '0' || b > '7' || d < '0' || d > '7') return 0;
        int v = (c - '0') * 64 + (b - '0') * 8 + (d - '0');
        if (v == 0) return 0;
        out += static_cast<char>(v);
        return 3;
      }
      return 0;
  }
}

bool value_valid(std::string_view v) {
  for (unsigned char c : v)
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return false;
  return true;
}

// Edit distance, case-insensitive, capped: enough to spot "Enviroment" or "environment".
std::size_t distance(std::string_view a, std::string_view b) {
  auto low = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c); };
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (low(a[i - 1]) == low(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

bool env_name_valid(std::string_view name) {
  if (name.empty()) return false;
  if (name.front() >= '0' && name.front() <= '9') return false;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

ParsedUnit parse_unit_text(std::string_view text, const std::string& file) {
  ParsedUnit out;
  std::string section;
  auto lines = text::split_lines(text);
  std::string pending;   // a continued line being assembled
  int pending_line = 0;  // where it started
  auto finish = [&](const std::string& logical, int line_no) {
    std::string_view l = strip(logical);
    if (l.empty()) return;
    if (l.front() == '[') {
      if (l.back() != ']' || l.size() < 3) {
        out.issues.push_back({UnitIssue::Kind::syntax, file, line_no, std::string(l), "invalid section header"});
        section.clear();
        return;
      }
      section = std::string(l.substr(1, l.size() - 2));
      return;
    }
    auto eq = l.find('=');
    if (eq == std::string_view::npos) {
      out.issues.push_back({UnitIssue::Kind::syntax, file, line_no, std::string(l), "missing '=', line ignored"});
      return;
    }
    if (section.empty()) {
      out.issues.push_back({UnitIssue::Kind::syntax, file, line_no, std::string(l), "assignment outside of any section"});
      return;
    }
    std::string key(strip(l.substr(0, eq)));
    if (key.empty()) {
      out.issues.push_back({UnitIssue::Kind::syntax, file, line_no, std::string(l), "empty key, line ignored"});
      return;
    }
    out.assignments.push_back({section, key, std::string(strip(l.substr(eq + 1))), file, line_no});
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view raw = lines[i];
    int line_no = static_cast<int>(i) + 1;
    std::string_view t = strip(raw);
    bool comment = !t.empty() && (t.front() == '#' || t.front() == ';');
    if (!pending.empty() || pending_line) {
      if (comment) continue;  // systemd skips comment lines inside a continuation
    } else if (comment || t.empty()) {
      continue;
    }
    std::string_view body = raw;
    // strip trailing whitespace only, then look for a continuation backslash
    while (!body.empty() && is_space(body.back())) body.remove_suffix(1);
    bool cont = !body.empty() && body.back() == '\\';
    if (cont) body.remove_suffix(1);
    if (!pending_line) pending_line = line_no;
    pending += std::string(body);
    if (cont) {
      pending += ' ';  // systemd replaces the backslash-newline with a space
      continue;
    }
    finish(pending, pending_line);
    pending.clear();
    pending_line = 0;
  }
  if (pending_line) finish(pending, pending_line);
  return out;
}

EnvWords split_environment(std::string_view s) {
  EnvWords out;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i >= s.size()) break;
    std::string word;
    char quote = 0;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (c == '\\') {
        if (i + 1 >= s.size()) {
          out.error = "trailing backslash";
          return out;
        }
        std::size_t n = unescape_one(s, i + 1, word);
        if (n == 0) {
          out.error = std::string("unknown escape sequence \\") + s[i + 1];
          return out;
        }
        i += n;
        continue;
      }
      if (quote) {
        if (c == quote) quote = 0;
        else word += c;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        continue;
      }
      if (is_space(c)) break;
      word += c;
    }
    if (quote) {
      out.error = std::string("unterminated ") + (quote == '"' ? "double" : "single") + " quote";
      return out;
    }
    out.words.push_back(std::move(word));
  }
  return out;
}

namespace {

// An environment file's value from text[i] to the end of its logical line, as systemd
// reads it: '...' kept as it is, "..." with \" \\ \` \$ and a continued line inside,
// a backslash outside quotes escapes the next byte or continues the line, and blanks at
// the end that no quote keeps are dropped. i and line move past it.
std::string read_env_value(std::string_view text, std::size_t& i, int& line) {
  std::string value;
  std::size_t last_unquoted_nonspace = 0;  // length of value up to its last significant char
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      break;
    }
    if (c == '\'') {
      ++i;
      while (i < text.size() && text[i] != '\'') {
        if (text[i] == '\n') ++line;
        value += text[i++];
      }
      if (i < text.size()) ++i;
      last_unquoted_nonspace = value.size();
      continue;
    }
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < text.size()) {
          char n = text[i + 1];
          if (n == '\n') {
            ++line;
            i += 2;
            continue;
          }
          if (n == '"' || n == '\\' || n == '`' || n == '$') {
            value += n;
            i += 2;
            continue;
          }
        }
        if (text[i] == '\n') ++line;
        value += text[i++];
      }
      if (i < text.size()) ++i;
      last_unquoted_nonspace = value.size();
      continue;
    }
    if (c == '\\') {
      if (i + 1 < text.size()) {
        if (text[i + 1] == '\n') {  // continuation
          ++line;
          i += 2;
          continue;
        }
        value += text[i + 1];
        i += 2;
        last_unquoted_nonspace = value.size();
        continue;
      }
      ++i;
      continue;
    }
    value += c;
    if (c != ' ' && c != '\t' && c != '\r') last_unquoted_nonspace = value.size();
    ++i;
  }
  value.resize(last_unquoted_nonspace);
  return value;
}

}  // namespace

EnvFile parse_env_file(std::string_view text, const std::string& file) {
  EnvFile out;
  std::size_t i = 0;
  int line = 1;
  auto skip_line = [&] {
    while (i < text.size() && text[i] != '\n') ++i;
    if (i < text.size()) ++i;
    ++line;
  };
  while (i < text.size()) {
    // leading whitespace, blank lines, comments
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    if (i >= text.size()) break;
    if (text[i] == '\n') {
      ++i;
      ++line;
      continue;
    }
    if (text[i] == '#' || text[i] == ';') {
      skip_line();
      continue;
    }
    int start_line = line;
    std::size_t key_start = i;
    while (i < text.size() && text[i] != '=' && text[i] != '\n') ++i;
    std::string key(strip(text.substr(key_start, i - key_start)));
    if (i >= text.size() || text[i] == '\n') {
      out.issues.push_back({UnitIssue::Kind::bad_env_file_line, file, start_line, key, "no '=' on the line, ignored"});
      if (i < text.size()) {
        ++i;
        ++line;
      }
      continue;
    }
    ++i;  // '='
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::string value = read_env_value(text, i, line);
    if (!env_name_valid(key)) {
      out.issues.push_back({UnitIssue::Kind::bad_env_file_line, file, start_line, key, "not a valid variable name, ignored"});
      continue;
    }
    out.vars.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

// UnsetEnvironment= applies after Environment= and the environment files: "NAME"
// removes the variable, "NAME=VALUE" only that exact assignment.
static void apply_unset(ServiceConfig& cfg) {
  for (const auto& w : cfg.unset_environment) {
    auto eq = w.find('=');
    if (eq == std::string::npos) {
      cfg.environment.erase(w);
    } else {
      auto it = cfg.environment.find(w.substr(0, eq));
      if (it != cfg.environment.end() && it->second.value == w.substr(eq + 1)) cfg.environment.erase(it);
    }
  }
}

ServiceConfig merge_service(const std::vector<ParsedUnit>& files) {
  ServiceConfig cfg;
  static const char* watched[] = {"Environment", "EnvironmentFile", "UnsetEnvironment", "User", "Group",
                                  "SupplementaryGroups", "ExecStart", "DynamicUser", "PassEnvironment"};
  for (const auto& pf : files) {
    for (const auto& is : pf.issues) cfg.issues.push_back(is);
    for (const auto& a : pf.assignments) {
      if (a.section != "Service") continue;
      if (a.key == "Environment") {
        if (a.value.empty()) {
          cfg.environment.clear();
          continue;
        }
        auto w = split_environment(a.value);
        for (auto word : w.words) {
          // Specifiers are expanded per word; "%%" is the one that matters for values.
          for (std::size_t p = word.find("%%"); p != std::string::npos; p = word.find("%%", p + 1)) word.erase(p, 1);
          auto eq = word.find('=');
          std::string name = eq == std::string::npos ? word : word.substr(0, eq);
          if (eq == std::string::npos || !env_name_valid(name) || !value_valid(word.substr(eq + 1))) {
            cfg.issues.push_back({UnitIssue::Kind::bad_environment, a.file, a.line, word,
                                  "not a NAME=VALUE assignment, systemd ignores it"});
            continue;
          }
          cfg.environment[name] = EnvValue{word.substr(eq + 1), a.file, a.line, false};
        }
        if (w.error)
          cfg.issues.push_back({UnitIssue::Kind::bad_environment, a.file, a.line, a.value,
                                *w.error + "; systemd ignores the rest of the line"});
      } else if (a.key == "EnvironmentFile") {
        if (a.value.empty()) {
          cfg.env_files.clear();
          continue;
        }
        EnvFileRef ref;
        ref.optional = a.value.front() == '-';
        ref.path = ref.optional ? a.value.substr(1) : a.value;
        if (ref.path.empty() || ref.path.front() != '/') {
          cfg.issues.push_back({UnitIssue::Kind::env_file_relative, a.file, a.line, a.value,
                                "EnvironmentFile= needs an absolute path, systemd ignores it"});
          continue;
        }
        cfg.env_files.push_back(std::move(ref));
      } else if (a.key == "UnsetEnvironment") {
        if (a.value.empty()) {
          cfg.unset_environment.clear();
          continue;
        }
        auto w = split_environment(a.value);
        for (auto& word : w.words) cfg.unset_environment.push_back(std::move(word));
      } else if (a.key == "User") {
        if (a.value.empty()) cfg.user.reset();
        else cfg.user = a.value;
      } else if (a.key == "Group") {
        if (a.value.empty()) cfg.group.reset();
        else cfg.group = a.value;
      } else if (a.key == "SupplementaryGroups") {
        if (a.value.empty()) {
          cfg.supplementary_groups.clear();
          continue;
        }
        for (auto& g : text::split_ws(a.value))
          if (std::find(cfg.supplementary_groups.begin(), cfg.supplementary_groups.end(), g) ==
              cfg.supplementary_groups.end())
            cfg.supplementary_groups.push_back(g);
      } else if (a.key == "DynamicUser") {
        cfg.dynamic_user = a.value == "yes" || a.value == "true" || a.value == "1" || a.value == "on";
      } else {
        // Not a key amdml interprets. If it is a near miss of one (a typo such as
        // "Enviroment=" or "environment="), systemd ignores the line: record it.
        for (const char* w : watched) {
          if (distance(a.key, w) <= 2 && a.key != w) {
            cfg.unknown_keys.push_back(a);
            cfg.issues.push_back({UnitIssue::Kind::unknown_key, a.file, a.line, a.key,
                                  "unknown key '" + a.key + "' (did you mean " + w + "=?), systemd ignores the line"});
            break;
          }
        }
      }
    }
  }
  apply_unset(cfg);
  return cfg;
}

void apply_env_files(ServiceConfig& cfg, const void* ctx, FileReader reader) {
  for (auto& ref : cfg.env_files) {
    auto text = reader(ctx, ref.path);
    if (!text) {
      if (!ref.optional)
        cfg.issues.push_back({UnitIssue::Kind::env_file_missing, ref.path, 0, ref.path,
                              "EnvironmentFile= " + ref.path + " cannot be read (" + text.error().message +
                                  "); systemd refuses to start the service"});
      continue;
    }
    ref.read = true;
    auto parsed = parse_env_file(*text, ref.path);
    for (auto& is : parsed.issues) cfg.issues.push_back(std::move(is));
    for (auto& [k, v] : parsed.vars) {
      if (!value_valid(v)) {
        cfg.issues.push_back({UnitIssue::Kind::bad_env_file_line, ref.path, 0, k, "value has control characters, ignored"});
        continue;
      }
      cfg.environment[k] = EnvValue{v, ref.path, 0, true};
    }
  }
  apply_unset(cfg);
}

const std::vector<std::string>& system_unit_dirs() {
  static const std::vector<std::string> dirs = {"/etc/systemd/system", "/run/systemd/system",
                                                "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",
                                                "/lib/systemd/system"};
  return dirs;
}

}  // namespace amdml::formats::systemd_unit