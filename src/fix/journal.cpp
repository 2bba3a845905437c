// journal.json: bytes in JSON, and the checks that make a damaged journal one error;
// see journal.hpp.
#include "fix/journal.hpp"

#include <cstdint>
#include <functional>

namespace amdml::fix {

using nlohmann::json;

namespace {

constexpr const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::string& in) {
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    std::uint32_t v = (std::uint32_t(std::uint8_t(in[i])) << 16) | (std::uint32_t(std::uint8_t(in[i + 1])) << 8) |
                      std::uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kB64[(v >> s) & 63];
  }
  if (i < in.size()) {
    std::uint32_t v = std::uint32_t(std::uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= std::uint32_t(std::uint8_t(in[i + 1])) << 8;
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> unbase64(const std::string& in) {
  if (in.size() % 4) return std::nullopt;
  std::string out;
  std::uint32_t v = 0;
  int bits = 0, pad = 0;
  for (char c : in) {
    int d;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    else if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    else if (c >= '0' && c <= '9') d = c - '0' + 52;
    else if (c == '+') d = 62;
    else if (c == '/') d = 63;
    else if (c == '=') d = 0, ++pad;
    else return std::nullopt;
    if (c != '=' && pad) return std::nullopt;
    v = (v << 6) | std::uint32_t(d);
    bits += 6;
    if (bits == 24) {
      out += char((v >> 16) & 0xff);
      out += char((v >> 8) & 0xff);
      out += char(v & 0xff);
      v = 0;
      bits = 0;
    }
  }
  if (pad > 2) return std::nullopt;
  out.resize(out.size() - static_cast<std::size_t>(pad));
  return out;
}

bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    std::uint32_t cp;
    if (c < 0x80) n = 1, cp = c;
    else if ((c & 0xe0) == 0xc0) n = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0) n = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0) n = 4, cp = c & 0x07;
    else return false;
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8 (nlohmann rejects them too).
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n;
  }
  return true;
}

// A file name inside the transaction directory ("3.before"), never a path.
bool is_copy_name(const json& j) {
  if (!j.is_string()) return false;
  const auto& s = j.get_ref<const std::string&>();
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos && s.find('\0') == std::string::npos;
}

bool is_uint32(const json& j) { return j.is_number_unsigned() && j.get<std::uint64_t>() <= 0xffffffffu; }

Status bad(const std::string& what) { return make_error(what); }

}  // namespace

json bytes_json(const std::string& bytes) {
  if (valid_utf8(bytes)) return bytes;
  return json{{"base64", base64(bytes)}};
}

std::optional<std::string> json_bytes(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.size() == 1 && j.contains("base64") && j["base64"].is_string())
    return unbase64(j["base64"].get<std::string>());
  return std::nullopt;
}

namespace {

// The journal's one walk over a document: `leaf` answers for the values it rewrites,
// arrays and objects are rebuilt around its answers, everything else is kept.
json map_values(const json& j, const std::function<std::optional<json>(const json&)>& leaf) {
  if (auto r = leaf(j)) return *r;
  if (j.is_array()) {
    json out = json::array();
    for (const auto& e : j) out.push_back(map_values(e, leaf));
    return out;
  }
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : j.items()) out[k] = map_values(v, leaf);
    return out;
  }
  return j;
}

}  // namespace

json encode_strings(const json& j) {
  return map_values(j, [](const json& v) -> std::optional<json> {
    if (v.is_string()) return bytes_json(v.get<std::string>());
    return std::nullopt;
  });
}

json decode_strings(const json& j) {
  return map_values(j, [](const json& v) -> std::optional<json> {
    if (v.is_string()) return std::nullopt;
    if (auto b = json_bytes(v)) return json(*b);
    return std::nullopt;
  });
}

Status check_journal(const json& doc) {
  if (!doc.is_object()) return bad("not a JSON object");
  if (doc.contains("format") && !(doc["format"] == 1 || doc["format"] == 2))
    return bad("format " + doc["format"].dump() + " is not one this amdml knows");
  if (!doc.contains("state") || !doc["state"].is_string()) return bad("no state");
  if (!doc.contains("changes") || !doc["changes"].is_array()) return bad("no changes list");
  std::size_t i = 0;
  for (const auto& ch : doc["changes"]) {
    std::string at = "changes[" + std::to_string(i++) + "]";
    if (!ch.is_object()) return bad(at + " is not an object");
    if (!ch.contains("path") || !json_bytes(ch["path"])) return bad(at + ".path is not a path");
    if (!ch.contains("existed") || !ch["existed"].is_boolean()) return bad(at + ".existed is not true or false");
    if (!ch.contains("after") || !is_copy_name(ch["after"])) return bad(at + ".after is not a file name");
    if (ch["existed"].get<bool>() && (!ch.contains("before") || !is_copy_name(ch["before"])))
      return bad(at + ".before is not a file name");
    for (const char* k : {"mode", "uid", "gid"})
      if (ch.contains(k) && !is_uint32(ch[k])) return bad(at + "." + k + " is not a number");
    if (ch.contains("state") && !ch["state"].is_string()) return bad(at + ".state is not a string");
    if (ch.contains("created_dirs")) {
      if (!ch["created_dirs"].is_array()) return bad(at + ".created_dirs is not a list");
      for (const auto& d : ch["created_dirs"])
        if (!json_bytes(d)) return bad(at + ".created_dirs holds something that is not a path");
    }
  }
  if (doc.contains("commands")) {
    if (!doc["commands"].is_array()) return bad("commands is not a list");
    i = 0;
    for (const auto& c : doc["commands"]) {
      std::string at = "commands[" + std::to_string(i++) + "]";
      if (!c.is_object() || !c.contains("argv") || !c["argv"].is_array()) return bad(at + " has no argv");
      for (const auto& a : c["argv"])
        if (!json_bytes(a)) return bad(at + ".argv holds something that is not a word");
      if (c.contains("rollback") && !c["rollback"].is_boolean()) return bad(at + ".rollback is not true or false");
      if (c.contains("rename") && !c["rename"].is_boolean()) return bad(at + ".rename is not true or false");
      if (c.contains("undo")) {
        if (!c["undo"].is_array()) return bad(at + ".undo is not a list");
        for (const auto& a : c["undo"])
          if (!json_bytes(a)) return bad(at + ".undo holds something that is not a word");
      }
    }
  }
  if (doc.contains("requests")) {
    if (!doc["requests"].is_array()) return bad("requests is not a list");
    for (const auto& r : doc["requests"])
      if (!r.is_object() || !r.contains("recipe") || !r["recipe"].is_string()) return bad("requests holds something that is not a request");
  }
  if (doc.contains("resumed_by") && !doc["resumed_by"].is_string()) return bad("resumed_by is not a string");
  return {};
}

Result<std::optional<json>> load_journal(platform::JournalStore& store, const std::string& id) {
  std::string file = store.real_path(id, "journal.json");
  auto text = store.get(id, "journal.json");
  if (!text) return text.error();
  if (!*text) return std::optional<json>();
  auto doc = json::parse(**text, nullptr, false);
  if (doc.is_discarded()) return make_error(file + " is damaged (not JSON); nothing was changed");
  if (auto st = check_journal(doc); !st) return make_error(file + " is damaged (" + st.error().message + "); nothing was changed");
  return std::optional<json>(std::move(doc));
}

std::string output_tail(const std::string& out) {
  constexpr std::size_t kKeep = 8192;
  return out.size() <= kKeep ? out : "[...]" + out.substr(out.size() - kKeep);
}

}  // namespace amdml::fix
