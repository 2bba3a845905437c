#include "formats/error_catalog_toml.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "base/text.hpp"
#include "formats/toml.hpp"
#include "formats/toml_fields.hpp"

namespace amdml::formats {

namespace {

// Bounds that keep a hostile catalogue (--recipes DIR) from costing time: the matcher
// tries every pattern on every line.
constexpr std::size_t kMaxEntries = 1000;
constexpr std::size_t kMaxPatterns = 32;
constexpr std::size_t kMaxPatternBytes = 400;
constexpr std::size_t kMaxCauses = 16;

using toml_fields::known_keys;
using toml_fields::where;

Result<std::string> string_field(const std::string& file, const toml::table& t, const char* key, bool required) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) return make_error(where(file, t) + ": missing string '" + key + "'");
    return std::string();
  }
  auto s = n->value<std::string>();
  if (!s) return make_error(where(file, *n) + ": '" + key + "' must be a string");
  if (required && text::trim(*s).empty()) return make_error(where(file, *n) + ": '" + key + "' is empty");
  return *s;
}

Result<std::vector<std::string>> string_list(const std::string& file, const toml::table& t, const char* key,
                                             std::size_t max) {
  std::vector<std::string> out;
  const toml::node* n = t.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a) return make_error(where(file, *n) + ": '" + key + "' must be a list of strings");
  if (a->size() > max) return make_error(where(file, *n) + ": '" + key + "' has more than " + std::to_string(max) + " items");
  for (const auto& item : *a) {
    auto s = item.value<std::string>();
    if (!s) return make_error(where(file, item) + ": '" + key + "' must be a list of strings");
    out.push_back(*s);
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<ErrorCause> parse_cause(const std::string& file, const toml::table& t) {
  AMDML_TRY_STATUS(known_keys(file, t, {"text", "findings", "checks", "fix"}, "[[error.cause]]"));
  ErrorCause c;
  AMDML_TRY(c.text, string_field(file, t, "text", true));
  AMDML_TRY(c.fix, string_field(file, t, "fix", false));
  AMDML_TRY(auto ids, string_list(file, t, "findings", 16));
  for (const auto& id : ids) {
    auto f = parse_finding_id(id);
    if (!f) return make_error(where(file, t) + ": '" + text::one_line(id) + "' is not a finding id");
    c.findings.push_back(*f);
  }
  AMDML_TRY(auto checks, string_list(file, t, "checks", 8));
  for (const auto& name : checks) {
    const bool negate = !name.empty() && name[0] == '!';
    auto k = parse_error_check(negate ? std::string_view(name).substr(1) : std::string_view(name));
    if (!k) return make_error(where(file, t) + ": '" + text::one_line(name) + "' is not a check (amd-gpu, driver-loaded, ...)");
    c.checks.push_back({*k, negate});
  }
  return c;
}

Result<ErrorEntry> parse_entry(const std::string& file, const toml::table& t) {
  AMDML_TRY_STATUS(
      known_keys(file, t, {"id", "title", "meaning", "patterns", "kernel", "ollama", "sample", "cause"}, "[[error]]"));
  ErrorEntry e;
  AMDML_TRY(e.id, string_field(file, t, "id", true));
  const bool clean = e.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") == std::string::npos;
  if (!clean) return make_error(where(file, t) + ": id '" + text::one_line(e.id) + "' must be lower-case letters, digits, . and -");
  AMDML_TRY(e.title, string_field(file, t, "title", true));
  AMDML_TRY(e.meaning, string_field(file, t, "meaning", true));
  AMDML_TRY(e.sample, string_field(file, t, "sample", true));
  AMDML_TRY(auto patterns, string_list(file, t, "patterns", kMaxPatterns));
  for (const auto& p : patterns) {
    auto parsed = parse_error_pattern(p);
    if (!parsed) return make_error(where(file, t) + ": " + e.id + ": " + parsed.error().message);
    e.patterns.push_back(std::move(*parsed));
  }
  AMDML_TRY(auto kernel, string_field(file, t, "kernel", false));
  if (!kernel.empty()) {
    e.kernel = parse_kernel_event_kind(kernel);
    if (!e.kernel) return make_error(where(file, t) + ": kernel '" + text::one_line(kernel) + "' is not a kernel event kind");
  }
  AMDML_TRY(auto ollama, string_field(file, t, "ollama", false));
  if (!ollama.empty()) {
    e.ollama = parse_ollama_reason(ollama);
    if (!e.ollama) return make_error(where(file, t) + ": ollama '" + text::one_line(ollama) + "' is not an ollama reason");
  }
  if (e.patterns.empty() && !e.kernel && !e.ollama)
    return make_error(where(file, t) + ": " + e.id + " has no 'patterns', 'kernel' or 'ollama': it would match nothing");
  if (const toml::node* n = t.get("cause")) {
    const toml::array* a = n->as_array();
    if (!a || !a->is_array_of_tables()) return make_error(where(file, *n) + ": 'cause' must be [[error.cause]] tables");
    if (a->size() > kMaxCauses) return make_error(where(file, *n) + ": more than " + std::to_string(kMaxCauses) + " causes");
    for (const auto& item : *a) {
      AMDML_TRY(auto c, parse_cause(file, *item.as_table()));
      e.causes.push_back(std::move(c));
    }
  }
  if (e.causes.empty()) return make_error(where(file, t) + ": " + e.id + " has no [[error.cause]]");
  return e;
}

std::string pattern_text(const ErrorPattern& p) { return p.source; }

}  // namespace

Result<ErrorPattern> parse_error_pattern(std::string_view source) {
  if (source.size() > kMaxPatternBytes)
    return make_error("pattern longer than " + std::to_string(kMaxPatternBytes) + " bytes");
  ErrorPattern p;
  p.source = std::string(source);
  std::string literal;
  auto flush = [&] {
    if (literal.empty()) return;
    p.literal_size += literal.size();
    p.parts.push_back({false, lower(literal), CaptureKind::text});
    literal.clear();
  };
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    if (c == '{' && i + 1 < source.size() && source[i + 1] == '{') {
      literal += '{';
      ++i;
    } else if (c == '}' && i + 1 < source.size() && source[i + 1] == '}') {
      literal += '}';
      ++i;
    } else if (c == '{') {
      const auto end = source.find('}', i);
      if (end == std::string_view::npos) return make_error("pattern '" + text::one_line(p.source) + "': '{' without '}'");
      const auto name = source.substr(i + 1, end - i - 1);
      std::optional<CaptureKind> kind;
      for (CaptureKind k : {CaptureKind::gfx, CaptureKind::num, CaptureKind::word, CaptureKind::text})
        if (name == to_string(k)) kind = k;
      if (!kind)
        return make_error("pattern '" + text::one_line(p.source) + "': unknown capture {" + text::one_line(std::string(name)) +
                          "} (gfx, num, word, text)");
      if (!p.parts.empty() && p.parts.back().capture && literal.empty())
        return make_error("pattern '" + text::one_line(p.source) + "': two captures need text between them");
      flush();
      p.parts.push_back({true, "", *kind});
      i = end;
    } else if (c == '}') {
      return make_error("pattern '" + text::one_line(p.source) + "': '}' without '{' (write '}}')");
    } else {
      literal += c;
    }
  }
  flush();
  if (p.literal_size < 4)
    return make_error("pattern '" + text::one_line(p.source) + "': needs at least 4 bytes of literal text");
  return p;
}

Result<ErrorCatalog> parse_error_catalog(std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& err) {
    return make_error(path + ":" + std::to_string(err.source().begin.line) + ": " + std::string(err.description()));
  }
  AMDML_TRY_STATUS(known_keys(path, root, {"error"}, "an error catalogue"));
  ErrorCatalog cat;
  const toml::node* n = root.get("error");
  if (!n) return cat;
  const toml::array* a = n->as_array();
  if (!a || (!a->empty() && !a->is_array_of_tables())) return make_error(where(path, *n) + ": 'error' must be [[error]] tables");
  if (a->size() > kMaxEntries) return make_error(where(path, *n) + ": more than " + std::to_string(kMaxEntries) + " entries");
  for (const auto& item : *a) {
    AMDML_TRY(auto e, parse_entry(path, *item.as_table()));
    if (cat.find(e.id)) return make_error(where(path, item) + ": id '" + e.id + "' twice");
    cat.entries.push_back(std::move(e));
  }
  return cat;
}

Result<ErrorCatalog> load_error_catalog(const std::vector<RecipeFile>& files) {
  ErrorCatalog all;
  bool any = false;
  for (const auto& f : files) {
    if (!f.path.starts_with("errors/")) continue;
    any = true;
    AMDML_TRY(auto cat, parse_error_catalog(f.text, "recipes/" + f.path));
    for (auto& e : cat.entries) {
      if (all.find(e.id)) return make_error("recipes/" + f.path + ": id '" + e.id + "' is in another errors/ file too");
      all.entries.push_back(std::move(e));
    }
  }
  if (!any) return make_error("the recipes hold no errors/*.toml: explain has no error catalogue");
  return all;
}

std::string write_error_catalog(const ErrorCatalog& catalog) {
  toml::array entries;
  for (const auto& e : catalog.entries) {
    toml::table t;
    t.insert("id", e.id);
    t.insert("title", e.title);
    t.insert("meaning", e.meaning);
    toml::array patterns;
    for (const auto& p : e.patterns) patterns.push_back(pattern_text(p));
    t.insert("patterns", std::move(patterns));
    if (e.kernel) t.insert("kernel", std::string(to_string(*e.kernel)));
    if (e.ollama) t.insert("ollama", std::string(to_string(*e.ollama)));
    t.insert("sample", e.sample);
    toml::array causes;
    for (const auto& c : e.causes) {
      toml::table ct;
      ct.insert("text", c.text);
      toml::array ids, checks;
      for (auto id : c.findings) ids.push_back(std::string(to_string(id)));
      for (const auto& k : c.checks) checks.push_back(std::string(k.negate ? "!" : "") + to_string(k.check));
      ct.insert("findings", std::move(ids));
      ct.insert("checks", std::move(checks));
      if (!c.fix.empty()) ct.insert("fix", c.fix);
      causes.push_back(std::move(ct));
    }
    t.insert("cause", std::move(causes));
    entries.push_back(std::move(t));
  }
  toml::table root;
  if (!entries.empty()) root.insert("error", std::move(entries));
  std::ostringstream out;
  out << root << "\n";
  return out.str();
}

}  // namespace amdml::formats