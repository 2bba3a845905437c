// Fuzz target: the running ollama server's codec (formats/ollama_api.hpp). The input is
// read as an /api/version body, an /api/ps body, an OLLAMA_HOST value and (when it is
// JSON) a recorded "ollama_server", or a whole amdml-host.json's. Promises: the address
// is always loopback; parsed models have names; a record that reads writes back to one
// that reads the same.
#include <string>

#include <nlohmann/json.hpp>

#include "formats/ollama_api.hpp"
#include "fuzz_check.hpp"

namespace api = amdml::formats::ollama_api;

namespace {

void check_record(const nlohmann::json& doc) {
  auto s = api::parse_server(doc);
  if (!s) {
    FUZZ_CHECK(!s.error().message.empty());
    return;
  }
  const auto once = api::server_json(*s);
  auto again = api::parse_server(once);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(api::server_json(*again) == once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = amdml::fuzz::as_text(data, size);
  if (auto v = api::parse_version(text)) FUZZ_CHECK(!v->empty() && v->find('\n') == std::string::npos);
  if (auto ps = api::parse_ps(text)) {
    FUZZ_CHECK(ps->size() <= 256);
    for (const auto& m : *ps) FUZZ_CHECK(!m.name.empty());
  }
  auto a = api::address(std::string(text));
  FUZZ_CHECK(a.host == "127.0.0.1" || a.host == "::1" || a.host.starts_with("127."));
  FUZZ_CHECK(a.port != 0);
  FUZZ_CHECK(a.host.find_first_of("/[] \r\n") == std::string::npos);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return 0;
  check_record(doc);
  if (doc.is_object() && doc.contains("ollama_server")) check_record(doc["ollama_server"]);  // a whole amdml-host.json
  return 0;
}
