// The secret policy (formats/secrets.hpp): which names hold credentials, which values
// look like one, and the scrub that cuts every secret shape out of a text. Redaction
// (formats/redact.cpp) and the environment probe ask these functions.
#include "formats/secrets.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <vector>

#include "base/text.hpp"

namespace amdml::formats {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

const char* kTokenPrefixes[] = {"hf_",   "ghp_",  "gho_",  "ghs_", "ghu_", "ghr_", "github_pat_", "glpat-",
                                "sk-",   "xoxb-", "xoxp-", "xoxa-", "AKIA", "ASIA", "AIza",        "eyJ"};

bool token_char(char c) { return word_char(c) || c == '-'; }

bool blank(char c) { return c == ' ' || c == '\t'; }
bool quote(char c) { return c == '"' || c == '\''; }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
// Characters of a NAME in NAME=value, NAME: value and --NAME (dotted and dashed too).
bool name_char(char c) { return word_char(c) || c == '-' || c == '.'; }

// The end of a quoted value whose text starts at i (just after the opening quote q):
// the next q that no backslash escapes, or the end of the line.
std::size_t quoted_end(const std::string& s, std::size_t i, char q) {
  while (i < s.size() && s[i] != q && s[i] != '\n') i += s[i] == '\\' && i + 1 < s.size() && s[i + 1] != '\n' ? 2 : 1;
  return std::min(i, s.size());
}

// The end of an unquoted value starting at i.
std::size_t bare_end(const std::string& s, std::size_t i) {
  while (i < s.size() && !space(s[i]) && !quote(s[i]) && s[i] != '\\' && s[i] != '`' && s[i] != ';' && s[i] != '&') ++i;
  return i;
}

// Rebuilds a text while the passes below cut ranges out of it, left to right.
class Cutter {
 public:
  Cutter(const std::string& s, int* count) : s_(s), count_(count) {}
  std::size_t done() const { return pos_; }
  // Replaces [b, e) by REDACTED, unless it already is that (scrubbing twice changes nothing).
  void cut(std::size_t b, std::size_t e) {
    if (b < pos_ || e <= b || s_.compare(b, e - b, kRedacted) == 0) return;
    out_.append(s_, pos_, b - pos_);
    out_ += kRedacted;
    pos_ = e;
    if (count_) ++*count_;
  }
  std::string finish() {
    out_.append(s_, pos_, std::string::npos);
    return std::move(out_);
  }

 private:
  const std::string& s_;
  int* count_;
  std::string out_;
  std::size_t pos_ = 0;
};

// scheme://USERINFO@host: the user info goes, whatever the scheme. It ends at the last
// '@' before a blank, quote or backslash, so a password holding '/' or '@' goes too.
std::string cut_url_user_info(const std::string& s, int* count) {
  Cutter c(s, count);
  auto scheme_char = [](char ch) { return alnum(ch) || ch == '+' || ch == '.' || ch == '-'; };
  for (std::size_t i = s.find("://"); i != std::string::npos; i = s.find("://", i + 3)) {
    std::size_t b = i;
    while (b > 0 && scheme_char(s[b - 1])) --b;
    if (b == i || !std::isalpha(static_cast<unsigned char>(s[b]))) continue;
    const std::size_t a = i + 3;
    std::size_t e = a;
    while (e < s.size() && !space(s[e]) && !quote(s[e]) && s[e] != '\\' && s[e] != '<' && s[e] != '>' && s[e] != '`' &&
           s.compare(e, 3, "://") != 0)
      ++e;
    const std::size_t at = e > a ? s.rfind('@', e - 1) : std::string::npos;
    if (at != std::string::npos && at > a) c.cut(a, at);
  }
  return c.finish();
}

// Every case-blind occurrence of `word` that starts a word.
template <class F>
void each_word(const std::string& s, std::string_view word, F&& f) {
  const std::string low = text::to_lower(s);
  for (std::size_t i = low.find(word); i != std::string::npos; i = low.find(word, i + 1))
    if (i == 0 || !word_char(s[i - 1])) f(i + word.size());
}

// Authorization: <scheme> <credentials> (also Proxy-Authorization, "authorization"=...):
// everything after the scheme word up to the end of the line or the closing quote.
std::string cut_authorization(const std::string& s, int* count) {
  Cutter c(s, count);
  each_word(s, "authorization", [&](std::size_t j) {
    while (j < s.size() && quote(s[j])) ++j;
    while (j < s.size() && blank(s[j])) ++j;
    if (j >= s.size() || (s[j] != ':' && s[j] != '=')) return;
    ++j;
    while (j < s.size() && blank(s[j])) ++j;
    std::size_t e;
    if (j < s.size() && quote(s[j])) {
      e = quoted_end(s, j + 1, s[j]);
      ++j;
    } else {
      e = j;
      while (e < s.size() && s[e] != '\n' && s[e] != '\r' && !quote(s[e]) && s[e] != '\\') ++e;
    }
    while (e > j && blank(s[e - 1])) --e;
    std::size_t k = j;
    while (k < e && std::isalpha(static_cast<unsigned char>(s[k]))) ++k;
    if (k > j && k < e && blank(s[k])) {
      while (k < e && blank(s[k])) ++k;
      j = k;
    }
    c.cut(j, e);
  });
  return c.finish();
}

// "Bearer X", "Basic X", "token X" outside a header: X goes when it looks like a
// credential (Basic: base64 with a digit or + / =; token: 16+ characters with letters
// and digits), so prose like "Basic Linear Algebra" stays.
std::string cut_scheme_credentials(std::string s, int* count) {
  struct Scheme {
    const char* word;
    const char* chars;  // besides letters and digits
    std::size_t min;
    bool needs_digit_or_symbol;
  };
  static const Scheme kSchemes[] = {{"bearer", "._~+/=-", 8, false}, {"basic", "+/=", 8, true}, {"token", "._-", 16, true}};
  for (const auto& sc : kSchemes) {
    Cutter c(s, count);
    each_word(s, sc.word, [&](std::size_t j) {
      if (j >= s.size() || !blank(s[j])) return;
      while (j < s.size() && blank(s[j])) ++j;
      std::size_t e = j;
      bool digit_or_symbol = false, letter = false;
      while (e < s.size() && (alnum(s[e]) || std::strchr(sc.chars, s[e]) != nullptr) && s[e] != '\0') {
        digit_or_symbol = digit_or_symbol || !std::isalpha(static_cast<unsigned char>(s[e]));
        letter = letter || std::isalpha(static_cast<unsigned char>(s[e]));
        ++e;
      }
      if (e - j < sc.min || (e < s.size() && word_char(s[e]))) return;
      if (sc.needs_digit_or_symbol && !digit_or_symbol) return;
      if (std::string_view(sc.word) == "token" && !letter) return;
      c.cut(j, e);
    });
    s = c.finish();
  }
  return s;
}

// NAME=value and NAME: value of a secret NAME: shell and env-file assignments, systemd
// Environment= (also "NAME=value with blanks"), --flag=value, URL queries (?token=X&),
// YAML and HTTP headers (api_key: X, X-Api-Key: X) and JSON members ("token": "X";
// there only string values, so a JSON document stays valid).
std::string cut_assignments(const std::string& s, int* count) {
  Cutter c(s, count);
  for (std::size_t p = 0; p < s.size(); ++p) {
    const char sep = s[p];
    if ((sep != '=' && sep != ':') || p < c.done()) continue;
    std::size_t ne = p;
    const bool quoted_name = ne > 0 && quote(s[ne - 1]);
    if (quoted_name) --ne;
    std::size_t nb = ne;
    while (nb > 0 && name_char(s[nb - 1])) --nb;
    const std::string_view name = std::string_view(s).substr(nb, ne - nb);
    if (nb == ne || !(quoted_name ? is_secret_member(name) : is_secret_name(name))) continue;
    std::size_t v = p + 1;
    if (sep == ':' && (v >= s.size() || !(blank(s[v]) || quote(s[v])))) continue;  // a URL, a time, key:value lists
    if (sep == '=' && v < s.size() && s[v] == '=') continue;                         // a comparison
    while (v < s.size() && blank(s[v])) ++v;
    std::size_t e;
    if (v < s.size() && quote(s[v])) {
      e = quoted_end(s, v + 1, s[v]);
      ++v;
    } else if (quoted_name) {
      continue;  // "name": 12 or "name": [...] -- not a string
    } else if (nb > 0 && quote(s[nb - 1])) {
      e = quoted_end(s, v, s[nb - 1]);  // "NAME=value with blanks"
    } else {
      e = bare_end(s, v);
      // Authorization: Bearer REDACTED -- the credential after the scheme is already cut.
      std::size_t k = e;
      while (k < s.size() && blank(s[k])) ++k;
      if (k > e && s.compare(k, std::strlen(kRedacted), kRedacted) == 0) continue;
    }
    if (std::string_view(s).substr(v, e - v).find(kRedacted) != std::string_view::npos) continue;
    c.cut(v, e);
  }
  return c.finish();
}

// --NAME VALUE and -NAME VALUE (Go-style flags) of a secret NAME, also as neighbours
// in a JSON or Python argv list ("--api-key", "X"). A value starting with '-' is the
// next flag, not a value; the one-letter -p (a port as often as a password) is kept.
std::string cut_flag_values(const std::string& s, int* count) {
  Cutter c(s, count);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '-' || i < c.done()) continue;
    const char before = i > 0 ? s[i - 1] : ' ';
    if (!space(before) && !quote(before) && before != '=' && before != '(' && before != '[' && before != ',') continue;
    std::size_t nb = i + 1;
    if (nb < s.size() && s[nb] == '-') ++nb;
    std::size_t ne = nb;
    while (ne < s.size() && name_char(s[ne])) ++ne;
    if (ne - nb < 2 || !alnum(s[nb]) || !is_secret_name(std::string_view(s).substr(nb, ne - nb))) continue;
    std::size_t v = ne;
    std::optional<char> q;
    if (v < s.size() && quote(s[v]) && s[v] == before) {
      // "--token", "X"
      ++v;
      while (v < s.size() && space(s[v])) ++v;
      if (v >= s.size() || s[v] != ',') continue;
      ++v;
      while (v < s.size() && space(s[v])) ++v;
      if (v >= s.size() || s[v] != before) continue;
      q = s[v++];
    } else {
      if (v >= s.size() || !blank(s[v])) continue;
      while (v < s.size() && blank(s[v])) ++v;
      if (v < s.size() && quote(s[v])) q = s[v++];
    }
    if (v >= s.size() || (!q && (s[v] == '-' || space(s[v])))) continue;
    c.cut(v, q ? quoted_end(s, v, *q) : bare_end(s, v));
  }
  return c.finish();
}

// Well-known token shapes anywhere.
std::string cut_token_shapes(std::string s, int* count) {
  for (const char* p : kTokenPrefixes) {
    const std::string prefix = p;
    std::size_t at = 0;
    while ((at = s.find(prefix, at)) != std::string::npos) {
      if (at > 0 && token_char(s[at - 1])) {
        at += prefix.size();
        continue;
      }
      std::size_t e = at + prefix.size();
      while (e < s.size() && (token_char(s[e]) || (prefix == "eyJ" && s[e] == '.'))) ++e;
      if (e - at - prefix.size() >= 16) {
        s.replace(at, e - at, kRedacted);
        if (count) ++*count;
        at += std::strlen(kRedacted);
      } else {
        at = e;
      }
    }
  }
  return s;
}

}  // namespace

bool uuid_at(std::string_view s, std::size_t i) {
  static const int groups[] = {8, 4, 4, 4, 12};
  std::size_t p = i;
  for (int g = 0; g < 5; ++g) {
    for (int k = 0; k < groups[g]; ++k, ++p)
      if (p >= s.size() || !is_hex(s[p])) return false;
    if (g < 4) {
      if (p >= s.size() || s[p] != '-') return false;
      ++p;
    }
  }
  return (i == 0 || !is_hex(s[i - 1])) && (p >= s.size() || !is_hex(s[p]));
}

bool is_secret_name(std::string_view name) {
  const std::string whole = text::to_upper(name);
  if (whole == "PWD" || whole == "OLDPWD") return false;
  std::vector<std::string> words(1);
  for (char c : whole) {
    if (alnum(c)) words.back() += c;
    else if (!words.back().empty()) words.emplace_back();
  }
  static const char* kAnywhere[] = {"PASSWORD", "PASSWD", "SECRET", "CREDENTIAL"};
  static const char* kEnds[] = {"PASS",   "PASSPHRASE", "TOKEN",  "KEY",       "AUTH",        "COOKIE", "PWD",
                                "TOKENS", "COOKIES",    "CREDS",  "PASSPHRASES"};
  static const std::set<std::string> kNot = {"BYPASS", "COMPASS", "AUTHOR", "AUTHORS", "AUTHORITY"};
  for (const auto& w : words) {
    if (w.empty() || kNot.count(w)) continue;
    for (const char* a : kAnywhere)
      if (w.find(a) != std::string::npos) return true;
    for (const char* e : kEnds)
      if (std::string_view(w).ends_with(e)) return true;
    if (w.starts_with("AUTH")) return true;
  }
  return false;
}

bool is_secret_member(std::string_view name) { return is_secret_name(name) && text::to_lower(name) != "key"; }

bool looks_like_secret(const std::string& v) {
  if (v.size() < 12) return false;
  for (const char* p : kTokenPrefixes)
    if (v.starts_with(p) && v.size() >= std::string(p).size() + 12) return true;
  // A URL carrying a password: scheme://user:password@host
  if (auto s = v.find("://"); s != std::string::npos) {
    auto at = v.find('@', s + 3);
    auto colon = v.find(':', s + 3);
    auto slash = v.find('/', s + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at && (slash == std::string::npos || at < slash))
      return true;
  }
  // A long run of letters and digits with no structure a path, list or version has.
  if (v.size() >= 32 && v[0] != '/' && !uuid_at(v, 0)) {
    bool letters = false, digits = false;
    for (char c : v) {
      if (std::isalpha(static_cast<unsigned char>(c))) letters = true;
      else if (std::isdigit(static_cast<unsigned char>(c))) digits = true;
      else if (c != '+' && c != '/' && c != '=' && c != '_' && c != '-') return false;
    }
    return letters && digits;
  }
  return false;
}

std::string scrub_secrets(const std::string& text, int* count) {
  std::string s = cut_url_user_info(text, count);
  s = cut_authorization(s, count);
  s = cut_scheme_credentials(std::move(s), count);
  s = cut_assignments(s, count);
  s = cut_flag_values(s, count);
  return cut_token_shapes(std::move(s), count);
}

}  // namespace amdml::formats