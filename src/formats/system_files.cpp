// Text-format parsers; see system_files.hpp.
#include "formats/system_files.hpp"

#include "base/enum_names.hpp"
#include "formats/grub_defaults.hpp"
#include "formats/group_lines.hpp"
#include "formats/kernelstub.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

namespace amdml::formats::parse {

using text::hex;
using text::i64;
using text::one_line;
using text::shell_word;
using text::split_lines;
using text::split_ws;
using text::trim;
using text::u64;

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

std::vector<std::string_view> dpkg_stanzas(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = text.find("\n\n", pos);
    out.push_back(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos + 1));
    pos = end == std::string_view::npos ? text.size() : end + 2;
  }
  return out;
}

std::optional<std::string_view> dpkg_field(std::string_view stanza, std::string_view key) {
  std::size_t at = 0;
  for (;;) {
    if (stanza.compare(at, key.size(), key) == 0 && stanza.size() > at + key.size() + 1 &&
        stanza.compare(at + key.size(), 2, ": ") == 0) {
      const std::size_t from = at + key.size() + 2;
      const std::size_t eol = stanza.find('\n', from);
      return stanza.substr(from, eol == std::string_view::npos ? std::string_view::npos : eol - from);
    }
    at = stanza.find('\n', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
}

DpkgState dpkg_state(std::string_view status_field) {
  static constexpr EnumName<DpkgState> kNames[] = {
      {DpkgState::not_installed, "not-installed"},     {DpkgState::config_files, "config-files"},
      {DpkgState::half_installed, "half-installed"},   {DpkgState::unpacked, "unpacked"},
      {DpkgState::half_configured, "half-configured"}, {DpkgState::triggers_awaited, "triggers-awaited"},
      {DpkgState::triggers_pending, "triggers-pending"}, {DpkgState::installed, "installed"},
  };
  // "want flag state", one space each as dpkg writes them.
  const auto words = text::split(status_field, ' ');
  if (words.size() != 3) return DpkgState::unknown;
  return enum_from_name(kNames, words[2]).value_or(DpkgState::unknown);
}

std::vector<DpkgPackage> dpkg_packages(std::string_view status, const std::function<bool(std::string_view)>& want) {
  std::vector<DpkgPackage> out;
  for (std::size_t pos = 0; pos < status.size();) {
    const std::size_t end = status.find("\n\n", pos);
    const std::string_view stanza =
        status.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos + 1);
    pos = end == std::string_view::npos ? status.size() : end + 2;
    const auto name = dpkg_field(stanza, "Package");
    if (!name || name->empty() || !want(*name)) continue;
    DpkgPackage p;
    p.name = std::string(*name);
    p.version = std::string(dpkg_field(stanza, "Version").value_or(""));
    p.state = dpkg_state(dpkg_field(stanza, "Status").value_or(""));
    out.push_back(std::move(p));
  }
  return out;
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
    if (line.starts_with("export") && line.size() > 6 && (line[6] == ' ' || line[6] == '\t')) line = trim(line.substr(7));
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
  if (path == "/etc/environment" || in_dir("/etc/environment.d/", ".conf") || in_dir("/etc/profile.d/", ".sh")) return true;
  // A user's own: ~/.config/environment.d/*.conf (environment.d(5)), under any home.
  constexpr std::string_view user_dir = "/.config/environment.d/";
  const auto at = path.find(user_dir);
  return at != std::string_view::npos && at > 0 && path.ends_with(".conf") &&
         path.size() > at + user_dir.size() + 5 && path.find('/', at + user_dir.size()) == std::string_view::npos;
}

bool is_process_environ(std::string_view path) {
  constexpr std::string_view proc = "/proc/", tail = "/environ";
  if (!path.starts_with(proc) || !path.ends_with(tail) || path.size() <= proc.size() + tail.size()) return false;
  const auto pid = path.substr(proc.size(), path.size() - proc.size() - tail.size());
  return std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; }) || pid == "self";
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
  for (const auto& l : group::lines(text)) {
    if (l.fields.empty()) continue;
    auto gid = u64(l.fields[2]);
    if (!gid || *gid > 0xffffffffULL) continue;
    GroupEntry g;
    g.name = l.fields[0];
    g.gid = static_cast<std::uint32_t>(*gid);
    g.members = group::members(l.fields[3]);
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
  bool in_quote = false, have = false, done = false;
  auto flush = [&] {
    if (!have || done) return;
    // "--" ends the kernel's parameters (kernel/params.c parse_args): the rest is init's.
    if (word == "--") {
      done = true;
      return;
    }
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

std::string grub_cmdline(std::string_view text) {
  auto d = formats::read_grub_defaults(text);
  if (!d) return "";
  return formats::grub_cmdline({{"/etc/default/grub", std::move(*d)}}).words;
}

std::optional<std::string> kernelstub_cmdline(std::string_view text) {
  auto c = formats::read_kernelstub(text);
  if (!c) return std::nullopt;
  return text::join(c->options, " ");
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

}  // namespace amdml::formats::parse