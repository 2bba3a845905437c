// doctor --deep's question to a running ollama (probes/deep_ml.hpp): only when --deep is
// given, only on loopback (formats::ollama_api::address: OLLAMA_HOST when it names a
// loopback address, else 127.0.0.1:11434), two read-only GETs with a short limit each.
// Live, the answer is handed to Host::record_fact("ollama_server") so a snapshot keeps
// it; under --root it is read back and nothing connects.
#include <algorithm>

#include "formats/ml_outputs.hpp"
#include "formats/ollama_api.hpp"
#include "platform/host.hpp"
#include "platform/loopback_http.hpp"
#include "probes/deep_ml.hpp"

namespace amdml::probes {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kRequestLimit{2000};  // one GET on loopback: a live server answers in milliseconds
constexpr milliseconds kMinLeft{200};        // less than this left of the budget: not asked

// OLLAMA_HOST as the server sees it: its service's environment first, then this session's.
std::pair<std::optional<std::string>, std::string> ollama_host(const ProbeContext& ctx, const Facts& f) {
  if (const auto& s = f.ml.ollama.service)
    if (auto it = s->environment.find("OLLAMA_HOST"); it != s->environment.end())
      return {it->second.value, "OLLAMA_HOST in " + it->second.file};
  if (auto v = ctx.host.env("OLLAMA_HOST")) return {*v, "OLLAMA_HOST in the environment"};
  return {std::nullopt, "the default"};
}

Result<std::string> get(const formats::ollama_api::Address& a, const std::string& path, Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  if (left < kMinLeft) return make_error("not asked: the --deep-timeout budget was spent");
  auto r = platform::loopback_get(a.host, a.port, path, std::min(left, kRequestLimit));
  if (!r) return r.error();
  if (r->status != 200) return make_error("GET " + path + " answered HTTP " + std::to_string(r->status));
  return std::move(r->body);
}

OllamaServer ask(const ProbeContext& ctx, const Facts& f, Clock::time_point deadline) {
  auto [value, from] = ollama_host(ctx, f);
  auto a = formats::ollama_api::address(value);
  OllamaServer s;
  s.address = a.text();
  s.address_from = a.note.empty() ? from : a.note;
  auto version = get(a, "/api/version", deadline);
  if (!version) {
    s.error = version.error().message;
    return s;
  }
  auto v = formats::ollama_api::parse_version(*version);
  if (!v) {
    s.error = v.error().message;
    return s;
  }
  s.answered = true;
  s.version = *v;
  auto ps = get(a, "/api/ps", deadline);
  auto models = ps ? formats::ollama_api::parse_ps(*ps) : Result<std::vector<OllamaLoadedModel>>(ps.error());
  if (!models) {
    s.error = models.error().message;
    return s;
  }
  s.ps_answered = true;
  s.models = std::move(*models);
  return s;
}

}  // namespace

void deep_ollama(const ProbeContext& ctx, Facts& f, Clock::time_point deadline) {
  if (ctx.host.live()) {
    OllamaServer s = ask(ctx, f, deadline);
    ctx.host.record_fact("ollama_server", formats::ollama_api::server_json(s));
    f.ml.ollama.server = std::move(s);
    return;
  }
  auto j = ctx.host.recorded("ollama_server");
  if (!j) return;  // recorded without --deep, or before amdml asked ollama: no answer to replay
  auto s = formats::ollama_api::parse_server(*j);
  if (!s) {
    f.error("deep", "amdml-host.json", s.error().message);
    return;
  }
  f.ml.ollama.server = std::move(*s);
}

}  // namespace amdml::probes
