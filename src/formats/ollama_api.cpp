// The running ollama server's answers and their record; see ollama_api.hpp.
#include "formats/ollama_api.hpp"

#include "base/text.hpp"
#include "formats/json.hpp"

namespace amdml::formats::ollama_api {
namespace {

constexpr std::size_t kMaxModels = 256;
constexpr std::size_t kMaxText = 256;

// At most kMaxText bytes, "..." ending a cut one (so bounding twice changes nothing).
std::string bounded(std::string s) {
  if (s.size() > kMaxText) s = s.substr(0, kMaxText - 3) + "...";
  return s;
}

bool loopback_v4(std::string_view h) {
  auto parts = text::split(h, '.');
  if (parts.size() != 4) return false;
  for (auto p : parts) {
    // Plain decimal octets as inet_pton reads them: 1-3 digits, no leading zero.
    if (p.empty() || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    for (char c : p)
      if (c < '0' || c > '9') return false;
    if (*text::u64(p) > 255) return false;
  }
  return text::u64(parts[0]) == 127u;
}

std::optional<std::uint64_t> size_of(const nlohmann::json& m, const char* key) {
  if (!m.contains(key)) return std::nullopt;
  const auto& v = m[key];
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  return std::nullopt;
}

}  // namespace

std::string Address::text() const {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Address address(const std::optional<std::string>& ollama_host) {
  Address a;
  if (!ollama_host) return a;
  std::string_view v = text::trim(*ollama_host);
  std::uint16_t port = kDefaultPort;
  if (auto p = v.find("://"); p != std::string_view::npos) {
    if (v.substr(0, p) == "https") port = 443;
    v = v.substr(p + 3);
  }
  if (auto slash = v.find('/'); slash != std::string_view::npos) v = v.substr(0, slash);
  std::string_view host = v, port_text;
  if (!v.empty() && v.front() == '[') {
    auto close = v.find(']');
    if (close == std::string_view::npos) {
      a.note = "OLLAMA_HOST=" + *ollama_host + " is not host[:port]; asked the default " + a.text();
      return a;
    }
    host = v.substr(1, close - 1);
    if (v.size() > close + 1) {
      if (v[close + 1] != ':') {
        a.note = "OLLAMA_HOST=" + *ollama_host + " is not host[:port]; asked the default " + a.text();
        return a;
      }
      port_text = v.substr(close + 2);
    }
  } else if (auto colon = v.rfind(':'); colon != std::string_view::npos && v.find(':') == colon) {
    host = v.substr(0, colon);
    port_text = v.substr(colon + 1);
  }
  if (!port_text.empty()) {
    auto p = text::u64(port_text);
    if (!p || *p == 0 || *p > 65535) {
      a.note = "OLLAMA_HOST=" + *ollama_host + " has no valid port; asked the default " + a.text();
      return a;
    }
    port = static_cast<std::uint16_t>(*p);
  }
  std::string h = text::to_lower(host);
  if (h.empty() || h == "0.0.0.0" || h == "localhost" || loopback_v4(h)) {
    a.host = h.empty() || h == "0.0.0.0" || h == "localhost" ? "127.0.0.1" : h;
  } else if (h == "::" || h == "::1") {
    a.host = "::1";
  } else {
    a.note = "OLLAMA_HOST=" + *ollama_host + " names an address that is not loopback; amdml asks loopback only (" +
             a.text() + ")";
    return a;
  }
  a.port = port;
  return a;
}

Result<std::string> parse_version(std::string_view body) {
  auto doc = parse_json(body);
  if (!doc) return make_error("/api/version: " + doc.error().message);
  if (!doc->is_object() || !doc->contains("version") || !(*doc)["version"].is_string())
    return make_error("/api/version: no \"version\" string in the answer");
  auto v = (*doc)["version"].get<std::string>();
  if (v.empty()) return make_error("/api/version: the version is empty");
  return text::one_line(bounded(v));
}

Result<std::vector<OllamaLoadedModel>> parse_ps(std::string_view body) {
  auto doc = parse_json(body);
  if (!doc) return make_error("/api/ps: " + doc.error().message);
  if (!doc->is_object() || !doc->contains("models")) return make_error("/api/ps: no \"models\" in the answer");
  const auto& models = (*doc)["models"];
  std::vector<OllamaLoadedModel> out;
  if (models.is_null()) return out;  // Go's encoder writes a nil slice as null
  if (!models.is_array()) return make_error("/api/ps: \"models\" is not a list");
  for (const auto& m : models) {
    if (out.size() >= kMaxModels) break;
    if (!m.is_object()) continue;
    std::string name;
    for (const char* key : {"name", "model"})
      if (name.empty() && m.contains(key) && m[key].is_string()) name = m[key].get<std::string>();
    if (name.empty()) continue;
    OllamaLoadedModel lm;
    lm.name = text::one_line(bounded(name));
    lm.size = size_of(m, "size");
    lm.size_vram = size_of(m, "size_vram");
    out.push_back(std::move(lm));
  }
  return out;
}

nlohmann::json server_json(const OllamaServer& s) {
  auto models = nlohmann::json::array();
  for (const auto& m : s.models)
    models.push_back({{"name", m.name},
                      {"size", m.size ? nlohmann::json(*m.size) : nlohmann::json(nullptr)},
                      {"size_vram", m.size_vram ? nlohmann::json(*m.size_vram) : nlohmann::json(nullptr)}});
  return {{"address", s.address},
          {"address_from", s.address_from},
          {"answered", s.answered},
          {"version", s.version ? nlohmann::json(*s.version) : nlohmann::json(nullptr)},
          {"ps_answered", s.ps_answered},
          {"models", models},
          {"error", s.error ? nlohmann::json(*s.error) : nlohmann::json(nullptr)}};
}

Result<OllamaServer> parse_server(const nlohmann::json& j) {
  const std::string where = "ollama_server";
  if (!j.is_object()) return make_error(where + " must be an object");
  OllamaServer s;
  auto str = [&](const char* key, std::string& into) -> Status {
    if (!j.contains(key)) return make_error(where + "." + key + " is missing");
    if (!j[key].is_string()) return make_error(where + "." + key + " must be a string");
    into = text::one_line(bounded(j[key].get<std::string>()));
    return {};
  };
  auto opt_str = [&](const char* key, std::optional<std::string>& into) -> Status {
    if (!j.contains(key) || j[key].is_null()) return {};
    if (!j[key].is_string()) return make_error(where + "." + key + " must be a string or null");
    into = text::one_line(bounded(j[key].get<std::string>()));
    return {};
  };
  auto flag = [&](const char* key, bool& into) -> Status {
    if (!j.contains(key)) return {};
    if (!j[key].is_boolean()) return make_error(where + "." + key + " must be true or false");
    into = j[key].get<bool>();
    return {};
  };
  AMDML_TRY_STATUS(str("address", s.address));
  if (j.contains("address_from")) AMDML_TRY_STATUS(str("address_from", s.address_from));
  AMDML_TRY_STATUS(flag("answered", s.answered));
  AMDML_TRY_STATUS(flag("ps_answered", s.ps_answered));
  AMDML_TRY_STATUS(opt_str("version", s.version));
  AMDML_TRY_STATUS(opt_str("error", s.error));
  if (j.contains("models") && !j["models"].is_null()) {
    if (!j["models"].is_array()) return make_error(where + ".models must be a list");
    for (const auto& m : j["models"]) {
      if (s.models.size() >= kMaxModels) break;
      if (!m.is_object() || !m.contains("name") || !m["name"].is_string())
        return make_error(where + ".models: each needs a \"name\" string");
      OllamaLoadedModel lm;
      lm.name = text::one_line(bounded(m["name"].get<std::string>()));
      for (const char* key : {"size", "size_vram"}) {
        if (!m.contains(key) || m[key].is_null()) continue;
        auto v = size_of(m, key);
        if (!v) return make_error(where + ".models." + key + " must be a non-negative integer or null");
        (std::string_view(key) == "size" ? lm.size : lm.size_vram) = v;
      }
      s.models.push_back(std::move(lm));
    }
  }
  return s;
}

}  // namespace amdml::formats::ollama_api
