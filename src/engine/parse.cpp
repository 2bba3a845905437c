// Text-format parsers; see include/amdml/parse.hpp.
#include "amdml/parse.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace amdml::parse {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto j = s.find('\n', i);
    if (j == std::string_view::npos) j = s.size();
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string shell_word(std::string_view s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-=:,@%") ==
                        std::string_view::npos)
    return std::string(s);
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r')) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    if (j > i) parts.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

std::string join_path(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::optional<std::string> resolve_path(const std::string& path, bool follow_last, int max_hops,
                                        const std::function<PathNode(const std::string& p, bool more)>& lookup) {
  std::vector<std::string> todo = split_path(path);
  std::reverse(todo.begin(), todo.end());
  std::vector<std::string> done;
  int hops = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.back());
    todo.pop_back();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(c);
    const std::string p = join_path(done);
    const PathNode node = lookup(p, !todo.empty());
    if (node.kind == PathNode::Kind::missing) return std::nullopt;
    if (node.kind != PathNode::Kind::symlink) {
      if (!todo.empty() && node.kind != PathNode::Kind::directory) return std::nullopt;
      continue;
    }
    if (todo.empty() && !follow_last) return p;
    if (++hops > max_hops) return std::nullopt;
    done.pop_back();
    if (!node.target.empty() && node.target[0] == '/') done.clear();
    auto parts = split_path(node.target);
    for (auto i = parts.rbegin(); i != parts.rend(); ++i) todo.push_back(*i);
  }
  return join_path(done);
}

std::optional<std::uint64_t> u64(std::string_view s) {
  s = trim(s);
  if (s.empty() || s[0] == '-' || s[0] == '+') return std::nullopt;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> i64(std::string_view s) {
  s = trim(s);
  if (s.empty() || s[0] == '+') return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> hex(std::string_view s) {
  s = trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> KeyValues::get(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

KeyValues kfd_properties(std::string_view text) {
  KeyValues kv;
  for (auto line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) continue;
    auto sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) {
      ++kv.malformed;
      continue;
    }
    auto key = line.substr(0, sp);
    auto v = u64(line.substr(sp + 1));
    if (!v) {
      ++kv.malformed;
      continue;
    }
    kv.values[std::string(key)] = *v;
  }
  return kv;
}

static std::string unquote_shell(std::string_view v) {
  v = trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    char q = v.front();
    v = v.substr(1, v.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (q == '"' && v[i] == '\\' && i + 1 < v.size()) {
        out += v[++i];
        continue;
      }
      out += v[i];
    }
    return out;
  }
  return std::string(v);
}

std::map<std::string, std::string> os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    auto key = trim(line.substr(0, eq));
    bool ok = true;
    for (char c : key)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) ok = false;
    if (!ok) continue;
    out[std::string(key)] = unquote_shell(line.substr(eq + 1));
  }
  return out;
}

std::vector<Assignment> login_env(std::string_view text) {
  std::vector<Assignment> out;
  int n = 0;
  for (auto line : split_lines(text)) {
    ++n;
    line = trim(line);
    if (line.rfind("export", 0) == 0 && line.size() > 6 && (line[6] == ' ' || line[6] == '\t')) line = trim(line.substr(7));
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    auto key = line.substr(0, eq);
    bool ok = !std::isdigit(static_cast<unsigned char>(key[0]));
    for (char c : key)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) ok = false;
    if (!ok) continue;
    auto raw = trim(line.substr(eq + 1));
    // Only plain values: a quoted string, or a word without expansions or commands.
    const bool quoted = raw.size() >= 2 && (raw.front() == '"' || raw.front() == '\'') && raw.back() == raw.front();
    bool plain = true;
    for (char c : quoted ? raw.substr(1, raw.size() - 2) : raw)
      if (c == '$' || c == '`' || (!quoted && (c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|' || c == '"' || c == '\''))) plain = false;
    if (!plain) continue;
    out.push_back({n, std::string(key), unquote_shell(raw)});
  }
  return out;
}

std::string one_line(std::string message) {
  for (auto& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return message;
}

bool login_env_followed(std::string_view name) {
  for (std::string_view p : {"HSA_", "ROCR_", "HIP_", "ROCM_", "GPU_DEVICE_ORDINAL", "OLLAMA_", "GGML_"})
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

bool is_login_env_file(std::string_view path) {
  auto in_dir = [&](std::string_view dir, std::string_view suffix) {
    return path.size() > dir.size() + suffix.size() && path.substr(0, dir.size()) == dir &&
           path.find('/', dir.size()) == std::string_view::npos && path.substr(path.size() - suffix.size()) == suffix;
  };
  return path == "/etc/environment" || in_dir("/etc/environment.d/", ".conf") || in_dir("/etc/profile.d/", ".sh");
}

std::map<std::string, std::uint64_t> meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for (auto line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto key = trim(line.substr(0, colon));
    auto words = split_ws(line.substr(colon + 1));
    if (words.empty()) continue;
    auto v = u64(words[0]);
    if (!v) continue;
    std::uint64_t mult = 1;
    if (words.size() >= 2) {
      if (words[1] == "kB") mult = 1024;
      else continue;
    }
    if (*v > std::numeric_limits<std::uint64_t>::max() / mult) continue;
    out[std::string(key)] = *v * mult;
  }
  return out;
}

static std::vector<std::string_view> split_char(std::string_view s, char c) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  for (;;) {
    auto j = s.find(c, i);
    if (j == std::string_view::npos) {
      out.push_back(s.substr(i));
      break;
    }
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<GroupEntry> group_file(std::string_view text) {
  std::vector<GroupEntry> out;
  for (auto line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    auto f = split_char(line, ':');
    if (f.size() != 4 || f[0].empty()) continue;
    auto gid = u64(f[2]);
    if (!gid || *gid > 0xffffffffULL) continue;
    GroupEntry g;
    g.name = std::string(f[0]);
    g.gid = static_cast<std::uint32_t>(*gid);
    if (!f[3].empty())
      for (auto m : split_char(f[3], ','))
        if (!trim(m).empty()) g.members.emplace_back(trim(m));
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<PasswdEntry> passwd_file(std::string_view text) {
  std::vector<PasswdEntry> out;
  for (auto line : split_lines(text)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    auto f = split_char(line, ':');
    if (f.size() != 7 || f[0].empty()) continue;
    auto uid = u64(f[2]);
    auto gid = u64(f[3]);
    if (!uid || !gid || *uid > 0xffffffffULL || *gid > 0xffffffffULL) continue;
    PasswdEntry p;
    p.name = std::string(f[0]);
    p.uid = static_cast<std::uint32_t>(*uid);
    p.gid = static_cast<std::uint32_t>(*gid);
    p.home = std::string(f[5]);
    p.shell = std::string(f[6]);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> cmdline(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string word;
  bool in_quote = false, have = false;
  auto flush = [&] {
    if (!have) return;
    auto eq = word.find('=');
    if (eq == std::string::npos) out.emplace_back(word, "");
    else out.emplace_back(word.substr(0, eq), word.substr(eq + 1));
    word.clear();
    have = false;
  };
  for (char c : text) {
    if (c == '"') {
      in_quote = !in_quote;
      have = true;
      continue;
    }
    if (!in_quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0')) {
      flush();
      continue;
    }
    word += c;
    have = true;
  }
  flush();
  return out;
}

std::string modprobe_name(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

ModprobeFile modprobe_conf(std::string_view text) {
  ModprobeFile out;
  auto lines = split_lines(text);
  std::string logical;
  int start = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view raw = lines[i];
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (logical.empty()) start = static_cast<int>(i) + 1;
    if (!raw.empty() && raw.back() == '\\') {
      logical.append(raw.substr(0, raw.size() - 1));
      logical += ' ';
      if (i + 1 < lines.size()) continue;
    } else {
      logical.append(raw);
    }
    std::string_view l = trim(logical);
    if (!l.empty() && l[0] != '#') {
      auto words = split_ws(l);
      const std::string& cmd = words[0];
      if (cmd == "options") {
        if (words.size() < 2) {
          out.bad_lines.emplace_back(start, std::string(l));
        } else {
          for (std::size_t w = 2; w < words.size(); ++w) {
            if (words[w][0] == '#') break;
            auto eq = words[w].find('=');
            ModprobeLine ml;
            ml.line = start;
            ml.module = modprobe_name(words[1]);
            ml.key = modprobe_name(eq == std::string::npos ? words[w] : words[w].substr(0, eq));
            ml.value = eq == std::string::npos ? "" : words[w].substr(eq + 1);
            if (ml.value.size() >= 2 && ml.value.front() == '"' && ml.value.back() == '"')
              ml.value = ml.value.substr(1, ml.value.size() - 2);
            out.options.push_back(std::move(ml));
          }
        }
      } else if (cmd != "alias" && cmd != "blacklist" && cmd != "install" && cmd != "remove" &&
                 cmd != "softdep" && cmd != "include" && cmd != "weakdep") {
        out.bad_lines.emplace_back(start, std::string(l));
      }
    }
    logical.clear();
  }
  return out;
}

std::map<std::string, std::string> uevent(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    line = trim(line);
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
  }
  return out;
}

}  // namespace amdml::parse
