// kernelstub's configuration; see kernelstub.hpp.
#include "formats/kernelstub.hpp"

#include "formats/json.hpp"

namespace amdml::formats {

namespace {

// Byte positions in a document parse_json accepted (so well formed, at most
// kMaxJsonDepth deep: the recursion below is bounded by it).
class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}
  std::size_t ws(std::size_t p) const {
    while (p < t_.size() && (t_[p] == ' ' || t_[p] == '\t' || t_[p] == '\n' || t_[p] == '\r')) ++p;
    return p;
  }
  std::size_t string_end(std::size_t p) const {
    for (++p; p < t_.size() && t_[p] != '"'; ++p)
      if (t_[p] == '\\') ++p;
    return p + 1;
  }
  std::size_t value_end(std::size_t p) const {
    if (p >= t_.size()) return p;
    if (t_[p] == '"') return string_end(p);
    if (t_[p] == '{' || t_[p] == '[') {
      const char close = t_[p] == '{' ? '}' : ']';
      p = ws(p + 1);
      while (p < t_.size() && t_[p] != close) {
        if (close == '}') p = ws(ws(string_end(p)) + 1);  // past the key and its ':'
        p = ws(value_end(p));
        if (p < t_.size() && t_[p] == ',') p = ws(p + 1);
      }
      return p + 1;
    }
    while (p < t_.size() && t_[p] != ',' && t_[p] != ']' && t_[p] != '}' && t_[p] != ' ' && t_[p] != '\t' &&
           t_[p] != '\n' && t_[p] != '\r')
      ++p;
    return p;
  }
  // The value of the last member named `key` of the object at p: its begin, or npos.
  std::size_t member(std::size_t p, std::string_view key) const {
    std::size_t found = std::string_view::npos;
    if (p >= t_.size() || t_[p] != '{') return found;
    p = ws(p + 1);
    while (p < t_.size() && t_[p] != '}') {
      const std::size_t key_end = string_end(p);
      const auto name = parse_json(t_.substr(p, key_end - p));  // a string: escapes decoded
      p = ws(ws(key_end) + 1);
      if (name && name->is_string() && name->get<std::string>() == key) found = p;
      p = ws(value_end(p));
      if (p < t_.size() && t_[p] == ',') p = ws(p + 1);
    }
    return found;
  }

 private:
  std::string_view t_;
};

}  // namespace

Result<KernelstubConfig> read_kernelstub(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return doc.error();
  const nlohmann::json& j = *doc;
  if (!j.is_object() || !j.contains("user") || !j["user"].is_object() || !j["user"].contains("kernel_options") ||
      !j["user"]["kernel_options"].is_array())
    return make_error("no user.kernel_options list");
  KernelstubConfig c;
  c.text = std::string(text);
  for (const auto& w : j["user"]["kernel_options"]) {
    if (!w.is_string()) return make_error("user.kernel_options holds something that is not a string");
    c.options.push_back(w.get<std::string>());
  }
  const Scanner s(text);
  const std::size_t user = s.member(s.ws(0), "user");
  const std::size_t list = user == std::string_view::npos ? user : s.member(user, "kernel_options");
  if (list == std::string_view::npos || text[list] != '[') return make_error("no user.kernel_options list");
  c.begin = list;
  c.end = s.value_end(list);
  std::size_t p = list + 1;
  for (std::size_t i = 0; i < c.options.size(); ++i) {
    const std::size_t start = s.ws(p);
    (i == 0 ? c.open : c.between) = std::string(text.substr(p, start - p));
    const std::size_t end = s.string_end(start);
    c.sources.emplace_back(text.substr(start, end - start));
    const std::size_t after = s.ws(end);
    if (i + 1 == c.options.size()) c.close = std::string(text.substr(end, after - end));
    p = after + 1;  // past ',' (or ']')
  }
  if (c.options.size() == 1) c.between = c.open.empty() ? " " : c.open;
  return c;
}

namespace {

// A new option as a JSON string token, written here rather than through a JSON library's
// dump: the rest of the list keeps its own bytes. Kernel parameters are ASCII words; a
// byte outside ASCII (never valid in one) becomes U+FFFD, a control byte \u00XX.
std::string json_string_token(const std::string& word) {
  std::string out = "\"";
  for (unsigned char ch : word) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch < 0x20 || ch == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[ch >> 4];
      out += hex[ch & 15];
    } else if (ch >= 0x80) {
      out += "\xef\xbf\xbd";
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

}  // namespace

std::string write_kernelstub(const KernelstubConfig& c, const std::vector<std::string>& options) {
  if (options == c.options) return c.text;
  std::string list = "[";
  for (std::size_t i = 0; i < options.size(); ++i) {
    list += i == 0 ? c.open : "," + c.between;
    std::string source;
    for (std::size_t k = 0; k < c.options.size() && source.empty(); ++k)
      if (c.options[k] == options[i]) source = c.sources[k];
    if (source.empty())
      source = json_string_token(options[i]);
    list += source;
  }
  list += (options.empty() ? "" : c.close) + "]";
  return c.text.substr(0, c.begin) + list + c.text.substr(c.end);
}

}  // namespace amdml::formats
