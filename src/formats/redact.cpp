// Redaction of a recording: one replacement map, learned from the recording itself,
// applied to every file, path, variable, fact and command output, so a user, a host or
// a serial number becomes the same placeholder everywhere and every cross-reference
// the rules follow (passwd <-> group <-> process identity, KFD <-> DRM unique ids)
// still holds. Group names and every number are kept: findings do not change.
//
// Secrets are a separate, unconditional pass, and the one policy for them is
// formats/secrets.hpp (formats/secrets.cpp): environment variables are kept only when relevant and not
// credential-like, and their dropped values -- together with every secret shape
// scrub_secrets() knows -- are cut from every text, JSON value and key.
#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "base/paths.hpp"
#include "base/text.hpp"
#include "formats/system_files.hpp"
#include "formats/process_environ.hpp"
#include "formats/secrets.hpp"
#include "formats/snapshot.hpp"

namespace amdml::formats {

using nlohmann::json;

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

using text::to_lower;
std::string trim(std::string_view s) { return std::string(text::trim(s)); }

// Every occurrence of from, anywhere.
std::string replace_literal(const std::string& s, const std::string& from, const std::string& to, int* count) {
  if (from.empty() || s.find(from) == std::string::npos) return s;
  std::string out;
  std::size_t pos = 0;
  for (;;) {
    std::size_t hit = s.find(from, pos);
    if (hit == std::string::npos) break;
    out.append(s, pos, hit - pos);
    out += to;
    pos = hit + from.size();
    if (count) ++*count;
  }
  out.append(s, pos, std::string::npos);
  return out;
}

// Occurrences of from that are whole words (not inside a longer name or number).
std::string replace_token(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty() || s.find(from) == std::string::npos) return s;
  std::string out;
  std::size_t pos = 0;
  std::size_t scan = 0;
  for (;;) {
    std::size_t hit = s.find(from, scan);
    if (hit == std::string::npos) break;
    bool left = hit == 0 || !word_char(s[hit - 1]);
    bool right = hit + from.size() >= s.size() || !word_char(s[hit + from.size()]);
    if (!left || !right) {
      scan = hit + 1;
      continue;
    }
    out.append(s, pos, hit - pos);
    out += to;
    pos = scan = hit + from.size();
  }
  out.append(s, pos, std::string::npos);
  return out;
}

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Names that are not personal whoever uses them: distributions, services, the
// placeholders themselves. Replacing these would also rewrite unrelated text.
const std::set<std::string>& generic_names() {
  static const std::set<std::string> names = {
      "root",  "localhost", "localhost.localdomain", "localdomain", "nobody", "nogroup", "daemon", "bin",
      "sys",   "sync",      "games",  "man",    "lp",     "mail",   "news",   "uucp",    "proxy",  "www-data",
      "backup", "list",     "irc",    "systemd", "messagebus", "syslog", "ollama", "render", "video", "audio",
      "input", "users",     "user",   "admin",  "adm",    "sudo",   "wheel",  "docker",  "kvm",    "amdgpu",
      "rocm",  "ubuntu",    "debian", "fedora", "arch",   "archlinux", "centos", "rhel",  "rocky",  "alma",
      "opensuse", "suse",   "linux",  "gpu",    "host",   "none",   "unknown", "default", "test",  "guest"};
  return names;
}

bool valid_name(const std::string& n, const std::set<std::string>& generic) {
  if (n.size() < 2) return false;
  if (n.find_first_not_of("0123456789") == std::string::npos) return false;
  if (n.find_first_of(" \t\n:/") != std::string::npos) return false;
  if (generic.count(to_lower(n))) return false;
  if (n.starts_with("user") && n.find_first_not_of("0123456789", 4) == std::string::npos) return false;
  if (n.starts_with("host") && n.find_first_not_of("0123456789", 4) == std::string::npos) return false;
  return true;
}

const SnapshotNode* file_node(const Recording& r, const std::string& path) {
  auto it = r.tree.find(path);
  if (it == r.tree.end() || it->second.kind != SnapshotNode::Kind::file) return nullptr;
  return &it->second;
}

using paths::basename;

// Login environment files (/etc/environment, profile.d, environment.d) hold whatever a
// machine's owner exports -- proxies with passwords, API keys under any name. A snapshot
// keeps only the assignments doctor follows (GPU selection and overrides, never
// credential-like names); every other line becomes empty, so line numbers still match.
std::string keep_followed_assignments(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    const std::string line = text.substr(start, end - start);
    auto a = parse::login_env(line);
    if (a.size() == 1 && parse::login_env_followed(a[0].name) && !is_secret_name(a[0].name)) out += line;
    if (last) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

// Blanks the GECOS (real name, phone) field of the given users' passwd lines.
std::string blank_gecos(const std::string& text, const std::set<std::string>& users) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    std::string line = text.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? text.size() : eol + 1;
    std::size_t c1 = line.find(':');
    if (c1 != std::string::npos && users.count(line.substr(0, c1))) {
      std::size_t c2 = line.find(':', c1 + 1);
      std::size_t c3 = c2 == std::string::npos ? c2 : line.find(':', c2 + 1);
      std::size_t c4 = c3 == std::string::npos ? c3 : line.find(':', c3 + 1);
      std::size_t c5 = c4 == std::string::npos ? c4 : line.find(':', c4 + 1);
      if (c5 != std::string::npos) line = line.substr(0, c4 + 1) + line.substr(c5);
    }
    out += line;
    if (eol != std::string::npos) out += "\n";
  }
  return out;
}

bool is_unique_id_path(const std::string& p) { return basename(p) == "unique_id"; }
bool is_serial_path(const std::string& p) {
  static const char* names[] = {"serial_number", "serial", "product_serial", "board_serial", "chassis_serial"};
  std::string b = basename(p);
  for (const char* n : names)
    if (b == n) return true;
  return false;
}

std::string hex16(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

// A dropped variable's value is cut from every other text too -- when it is specific
// enough that cutting it cannot hit unrelated text (not a path, a number or a word
// like "localhost").
bool cut_everywhere(const std::string& v) {
  if (v.size() < 6 || v[0] == '/' || v.find_first_not_of("0123456789.:-_") == std::string::npos) return false;
  static const std::set<std::string> kPlain = {"localhost", "enabled", "disabled", "default", "always", "never"};
  return !kPlain.count(to_lower(v));
}

// Words that are not personal on this machine: the distribution's own names and every
// directory name outside home directories.
std::set<std::string> generic_words(const Recording& r) {
  std::set<std::string> generic = generic_names();
  for (const char* osr : {"/etc/os-release", "/usr/lib/os-release"})
    if (const auto* n = file_node(r, osr)) {
      std::string w;
      for (char c : n->content + "\n") {
        if (std::isalnum(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!w.empty()) {
          generic.insert(w);
          w.clear();
        }
      }
    }
  for (const auto& [path, node] : r.tree) {
    bool system_tree = false;
    for (const char* top : {"/sys/", "/proc/", "/dev/", "/usr/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/etc/"})
      system_tree = system_tree || path.starts_with(top);
    if (!system_tree) continue;
    std::size_t a = 1;
    while (a < path.size()) {
      std::size_t b = path.find('/', a);
      if (b == std::string::npos) b = path.size();
      generic.insert(to_lower(path.substr(a, b - a)));
      a = b + 1;
    }
  }
  return generic;
}

// Users: who ran amdml, everyone with a login uid, and group members no system account
// explains; in the order they were found.
std::vector<std::string> personal_users(const Recording& r, const std::vector<PasswdEntry>& passwd,
                                        const std::set<std::string>& generic) {
  std::vector<std::string> users;
  auto add_user = [&](const std::string& n) {
    if (valid_name(n, generic) && std::find(users.begin(), users.end(), n) == users.end()) users.push_back(n);
  };
  if (r.identity && r.identity->user) add_user(*r.identity->user);
  if (r.identity && r.identity->sudo_user) add_user(*r.identity->sudo_user);
  for (const char* k : {"SUDO_USER", "USER", "LOGNAME"})
    if (auto it = r.env.find(k); it != r.env.end()) add_user(it->second);
  std::set<std::string> system_accounts;
  for (const auto& p : passwd) {
    bool human = p.uid >= 1000 && p.uid < 60000;
    if (human) add_user(p.name);
    else system_accounts.insert(p.name);
  }
  // /etc/group through the identity probe's codec, so a member is whom the probe sees.
  if (const auto* n = file_node(r, "/etc/group"))
    for (const auto& g : parse::group_file(n->content))
      for (const auto& m : g.members)
        if (!system_accounts.count(m)) add_user(m);
  return users;
}

// Host names: a full name and its first label ("box.lab.example.org", "box") are one
// host. The (name, placeholder) pairs; summary gets each placeholder once.
std::vector<std::pair<std::string, std::string>> host_tokens(const Recording& r, const RedactOptions& o,
                                                             const std::set<std::string>& generic,
                                                             std::vector<std::string>& summary) {
  std::vector<std::pair<std::string, std::string>> tokens;
  std::vector<std::string> host_labels;
  auto add_host = [&](const std::string& text) {
    std::string h = trim(text.substr(0, text.find('\n')));
    if (!valid_name(h, generic)) return;
    std::string label = h.substr(0, h.find('.'));
    auto it = std::find(host_labels.begin(), host_labels.end(), label);
    if (it == host_labels.end()) {
      host_labels.push_back(label);
      summary.push_back("host" + std::to_string(host_labels.size()));
      it = host_labels.end() - 1;
    }
    const std::string fake = "host" + std::to_string(it - host_labels.begin() + 1);
    tokens.push_back({h, fake});
    if (label != h && valid_name(label, generic)) tokens.push_back({label, fake});
  };
  for (const char* hp : {"/etc/hostname", "/proc/sys/kernel/hostname"})
    if (const auto* n = file_node(r, hp)) add_host(n->content);
  for (const auto& h : o.host_names) add_host(h);
  return tokens;
}

}  // namespace

std::string Redactor::scrub_secrets(const std::string& in) const {
  std::string s = in;
  for (const auto& v : secret_values_) s = replace_literal(s, v, kRedacted, &secrets_);
  return amdml::formats::scrub_secrets(s, &secrets_);
}

// ---- Identities -----------------------------------------------------------------------

std::uint64_t Redactor::fake_unique_id(std::uint64_t v) const {
  auto it = unique_id_map_.find(v);
  if (it != unique_id_map_.end()) return it->second;
  std::uint64_t fake = unique_id_map_.size() + 1;
  unique_id_map_[v] = fake;
  return fake;
}

std::string Redactor::replace_ids(const std::string& s) const {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_hex(s[i]) && s[i] != 'G') continue;
    if (is_hex(s[i]) && uuid_at(s, i)) {
      std::string orig = to_lower(s.substr(i, 36));
      auto it = uuid_map_.find(orig);
      if (it == uuid_map_.end()) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "00000000-0000-0000-0000-%012zx", uuid_map_.size() + 1);
        it = uuid_map_.emplace(orig, buf).first;
      }
      out.append(s, pos, i - pos);
      out += it->second;
      pos = i + 36;
      i = pos - 1;
      continue;
    }
    // HSA agent UUIDs: GPU-<16 hex digits>, the same number as the unique_id files.
    if (s.compare(i, 4, "GPU-") == 0 && (i == 0 || !word_char(s[i - 1])) && i + 20 <= s.size()) {
      bool hex = true;
      for (std::size_t k = i + 4; k < i + 20; ++k) hex = hex && is_hex(s[k]);
      if (hex && (i + 20 == s.size() || !is_hex(s[i + 20]))) {
        auto v = text::hex(s.substr(i + 4, 16));
        if (v && *v != 0) {
          out.append(s, pos, i - pos);
          out += "GPU-" + hex16(fake_unique_id(*v));
          pos = i + 20;
          i = pos - 1;
        }
      }
    }
  }
  out.append(s, pos, std::string::npos);
  return out;
}

std::string Redactor::text(const std::string& s) const {
  std::string out = scrub_secrets(s);
  if (!options_.identities) return out;
  for (const auto& [from, to] : literal_) out = replace_literal(out, from, to, nullptr);
  out = replace_ids(out);
  for (const auto& [from, to] : tokens_) out = replace_token(out, from, to);
  // Unique ids learned while replacing (GPU-<hex> of ids no sysfs file named).
  for (const auto& [orig, fake] : unique_id_map_) {
    out = replace_token(out, hex16(orig), hex16(fake));
    char bare[24];
    std::snprintf(bare, sizeof bare, "%" PRIx64, orig);
    if (orig >= 0x10000000 && hex16(orig) != bare) out = replace_token(out, bare, hex16(fake));
    if (orig >= 100000) out = replace_token(out, std::to_string(orig), std::to_string(fake));
  }
  return out;
}

json Redactor::json_value(const json& j, bool secret_key) const {
  if (j.is_string()) {
    if (secret_key && !j.get_ref<const std::string&>().empty() && j.get_ref<const std::string&>() != kRedacted) {
      ++secrets_;
      return kRedacted;
    }
    return text(j.get<std::string>());
  }
  if (j.is_array()) {
    json a = json::array();
    for (const auto& v : j) a.push_back(json_value(v, secret_key));
    return a;
  }
  if (j.is_object()) {
    json o = json::object();
    for (const auto& [k, v] : j.items()) o[text(k)] = json_value(v, is_secret_member(k));
    return o;
  }
  return j;
}

Redactor Redactor::learn(const Recording& r, const RedactOptions& o) {
  Redactor red;
  red.options_ = o;
  RedactionSummary& sum = red.summary_;

  // The environment: relevant names only, never credentials.
  for (const auto& [k, v] : r.env) {
    // A value that is a secret only in part (OLLAMA_HOST=http://u:pw@host) is kept
    // with that part cut (apply() runs it through text()).
    bool secret = is_secret_name(k) || looks_like_secret(amdml::formats::scrub_secrets(v));
    if (secret) {
      sum.env_dropped.push_back(k);
      if (cut_everywhere(v)) red.secret_values_.insert(v);
      continue;
    }
    bool relevant = r.env_asked.count(k) || !o.relevant_env || o.relevant_env(k);
    if (relevant) sum.env_kept.push_back(k);
  }
  if (!o.identities) return red;

  const std::set<std::string> generic = generic_words(r);

  std::vector<PasswdEntry> passwd;
  if (const auto* n = file_node(r, "/etc/passwd")) passwd = parse::passwd_file(n->content);
  const std::vector<std::string> users = personal_users(r, passwd, generic);
  std::map<std::string, std::string> user_map;
  for (std::size_t i = 0; i < users.size(); ++i) {
    std::string fake = "user" + std::to_string(i + 1);
    user_map[users[i]] = fake;
    red.tokens_.push_back({users[i], fake});
    red.redacted_users_.insert(users[i]);
    sum.users.push_back(fake);
  }
  // Home directories of those users, wherever they are.
  static const std::set<std::string> kNotHomes = {"/", "/root", "/nonexistent", "/var/empty", "/dev/null", "/tmp",
                                                  "/usr", "/var", "/opt", "/srv", "/home", "/run", "/etc"};
  std::set<std::string> homes;
  for (const auto& p : passwd)
    if (auto it = user_map.find(p.name); it != user_map.end() && !kNotHomes.count(p.home) && p.home.size() > 1 &&
                                         p.home[0] == '/')
      if (homes.insert(p.home).second) red.literal_.push_back({p.home, "/home/" + it->second});
  if (auto h = r.env.find("HOME"); h != r.env.end() && r.identity && r.identity->user &&
                                   user_map.count(*r.identity->user) && !kNotHomes.count(h->second) &&
                                   h->second.size() > 1 && h->second[0] == '/')
    if (homes.insert(h->second).second) red.literal_.push_back({h->second, "/home/" + user_map[*r.identity->user]});
  sum.homes = static_cast<int>(homes.size());

  for (auto& [name, fake] : host_tokens(r, o, generic, sum.hosts)) red.tokens_.push_back({std::move(name), std::move(fake)});

  // Serial numbers and unique ids.
  int serial_index = 0;
  for (const auto& [path, node] : r.tree) {
    if (node.kind != SnapshotNode::Kind::file) continue;
    if (is_serial_path(path)) {
      std::string v = trim(node.content);
      static const std::set<std::string> kNoSerial = {"", "0", "N/A", "None", "Not Specified", "Default string",
                                                      "To Be Filled By O.E.M.", "0000000000000000"};
      if (v.size() < 4 || kNoSerial.count(v)) continue;
      red.tokens_.push_back({v, "serial" + std::to_string(++serial_index)});
    } else if (is_unique_id_path(path)) {
      std::string v = trim(node.content);
      if (v.starts_with("0x")) v = v.substr(2);
      if (auto n = text::hex(v); n && *n != 0) red.fake_unique_id(*n);
    } else if (basename(path) == "properties") {
      // KFD node properties: "unique_id <decimal>".
      std::size_t at = node.content.find("unique_id ");
      if (at != std::string::npos && (at == 0 || node.content[at - 1] == '\n')) {
        std::size_t e = node.content.find('\n', at);
        auto n = text::u64(trim(node.content.substr(at + 10, e == std::string::npos ? e : e - at - 10)));
        if (n && *n != 0) red.fake_unique_id(*n);
      }
    }
  }
  sum.serials = serial_index;

  auto longest_first = [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); };
  std::stable_sort(red.literal_.begin(), red.literal_.end(), longest_first);
  std::stable_sort(red.tokens_.begin(), red.tokens_.end(), longest_first);
  return red;
}

namespace {

// Under a home directory, the Python environment search lists whole directories; the
// names of documents there are personal and no probe uses them. A listed-only file is
// kept when a probe looks for it by name (pyvenv.cfg) or when it sits in a software
// tree (lib, bin, site-packages, rocBLAS's library, ...), where names are the facts.
bool keep_listed_home_file(const std::string& path) {
  const std::string name = basename(path);
  if (name == "pyvenv.cfg") return true;
  static const char* kSoftwareDirs[] = {"lib", "lib64", "bin", "site-packages", "dist-packages", "library", "envs",
                                        "conda-meta", "include", "share"};
  std::size_t a = 1;
  const std::string dir = path.substr(0, path.rfind('/'));
  while (a < dir.size()) {
    std::size_t b = dir.find('/', a);
    if (b == std::string::npos) b = dir.size();
    const std::string c = dir.substr(a, b - a);
    for (const char* sd : kSoftwareDirs)
      if (c == sd) return true;
    a = b + 1;
  }
  return false;
}

}  // namespace

void Redactor::apply(Recording& r) {
  if (options_.identities) {
    for (auto it = r.tree.begin(); it != r.tree.end();) {
      const auto& [path, node] = *it;
      bool in_home = path.starts_with("/home/") || path.starts_with("/root/");
      for (const auto& [home, fake] : literal_) in_home = in_home || path.starts_with(home + "/");
      if (in_home && node.listed_only && node.kind == SnapshotNode::Kind::placeholder && !keep_listed_home_file(path)) {
        ++summary_.home_files_pruned;
        it = r.tree.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Environment first: filtered whether or not identities are redacted.
  std::map<std::string, std::string> env;
  for (const auto& k : summary_.env_kept) env[text(k)] = text(r.env.at(k));
  r.env = std::move(env);
  std::set<std::string> asked;
  for (const auto& k : r.env_asked) asked.insert(text(k));
  r.env_asked = std::move(asked);

  std::map<std::string, SnapshotNode> tree;
  for (auto& [path, node] : r.tree) {
    SnapshotNode n = node;
    if (n.kind == SnapshotNode::Kind::file) {
      if (options_.identities && path == "/etc/passwd") n.content = blank_gecos(n.content, redacted_users_);
      if (parse::is_login_env_file(path)) n.content = keep_followed_assignments(n.content);
      if (parse::is_process_environ(path)) n.content = write_environ(followed_environ(n.content));
      n.content = text(n.content);
    }
    if (n.kind == SnapshotNode::Kind::symlink) n.target = text(n.target);
    tree[text(path)] = std::move(n);
  }
  r.tree = std::move(tree);

  std::map<std::string, std::map<std::string, RecordedError>> errors;
  for (const auto& [op, paths] : r.errors)
    for (const auto& [path, e] : paths) errors[op][text(path)] = RecordedError{e.code, text(e.message)};
  r.errors = std::move(errors);

  if (r.identity) {
    if (r.identity->user) r.identity->user = text(*r.identity->user);
    if (r.identity->sudo_user) r.identity->sudo_user = text(*r.identity->sudo_user);
  }
  if (r.uname) {
    if (r.uname->release) r.uname->release = text(*r.uname->release);
    if (r.uname->machine) r.uname->machine = text(*r.uname->machine);
  }
  for (auto& [k, v] : r.facts) v = json_value(v);
  std::map<std::string, RecordedCommand> commands;
  for (const auto& [key, c] : r.commands) {
    RecordedCommand n = c;
    if (n.result) {
      n.result->out = text(n.result->out);
      n.result->err = text(n.result->err);
    }
    if (n.error) n.error->message = text(n.error->message);
    commands[text(key)] = std::move(n);
  }
  r.commands = std::move(commands);

  summary_.serials += static_cast<int>(unique_id_map_.size());
  summary_.uuids = static_cast<int>(uuid_map_.size());
  summary_.secrets_scrubbed = secrets_;
}

std::vector<std::string> RedactionSummary::lines() const {
  auto join = [](const std::vector<std::string>& v) { return text::join(v, ", "); };
  std::vector<std::string> out;
  if (!users.empty()) out.push_back("user names: " + std::to_string(users.size()) + " replaced (" + join(users) + ")");
  if (homes) out.push_back("home directories: " + std::to_string(homes) + " replaced");
  if (!hosts.empty()) out.push_back("host names: " + std::to_string(hosts.size()) + " replaced (" + join(hosts) + ")");
  if (serials) out.push_back("serial numbers and unique ids: " + std::to_string(serials) + " replaced");
  if (uuids) out.push_back("UUIDs: " + std::to_string(uuids) + " replaced");
  out.push_back("environment: kept " + std::to_string(env_kept.size()) +
                (env_kept.empty() ? "" : " (" + join(env_kept) + ")"));
  if (!env_dropped.empty()) out.push_back("environment: dropped as secrets: " + join(env_dropped));
  if (home_files_pruned)
    out.push_back("file names seen only in home-directory listings: " + std::to_string(home_files_pruned) + " left out");
  if (secrets_scrubbed)
    out.push_back("secret-looking values cut from files and command output: " + std::to_string(secrets_scrubbed));
  return out;
}

}  // namespace amdml::formats