// The deep record's codec (formats/deep_record.hpp): what the deep children print and
// what amdml-host.json keeps under "deep". Documented in docs/deep.md.
#include "formats/deep_record.hpp"

#include "formats/record_reader.hpp"

namespace amdml::formats {

using nlohmann::json;
using record::opt;
using record::Reader;

namespace {

json alloc_json(const DeepAlloc& a) {
  json j = {{"pool", a.pool},
            {"target", a.target.value},
            {"allocated", a.allocated.value},
            {"chunk", a.chunk.value},
            {"stop", to_string(a.stop)},
            {"mem_available", opt(a.mem_available)},
            {"bound", opt(a.bound)}};
  if (a.error) j["error"] = *a.error;
  return j;
}

Result<DeepAlloc> parse_alloc(const json& j, const std::string& where) {
  if (!j.is_object()) return make_error(where.substr(0, where.size() - 1) + " must be an object");
  Reader r(j, where);
  DeepAlloc a;
  std::optional<Bytes> target, allocated, chunk;
  std::string stop = "target";
  if (!(r.str("pool", a.pool) && r.bytes("target", target) && r.bytes("allocated", allocated) &&
        r.bytes("chunk", chunk) && r.str("stop", stop) && r.str("error", a.error) &&
        r.bytes("mem_available", a.mem_available) && r.bytes("bound", a.bound)))
    return *r.error;
  if (a.pool != "vram" && a.pool != "system") return make_error(where + "pool must be \"vram\" or \"system\"");
  auto s = parse_deep_alloc_stop(stop);
  if (!s) return make_error(where + "stop \"" + stop + "\" is not one of target, meminfo, error, deadline, no-pool");
  a.stop = *s;
  a.target = target.value_or(Bytes{0});
  a.allocated = allocated.value_or(Bytes{0});
  a.chunk = chunk.value_or(Bytes{0});
  return a;
}

json link_json(const DeepLink& l) {
  return {{"slot", l.slot},
          {"speed_gts", opt(l.current.gts)},
          {"width", opt(l.current.width)},
          {"max_speed_gts", opt(l.max.gts)},
          {"max_width", opt(l.max.width)},
          {"limited_at", l.limited_at},
          {"links", l.links}};
}

Result<DeepLink> parse_link(const json& j, const std::string& where) {
  if (!j.is_object()) return make_error(where.substr(0, where.size() - 1) + " must be an object");
  Reader r(j, where);
  DeepLink l;
  std::optional<std::uint32_t> links;
  if (!(r.str("slot", l.slot) && r.number("speed_gts", l.current.gts) && r.uint("width", l.current.width) &&
        r.number("max_speed_gts", l.max.gts) && r.uint("max_width", l.max.width) && r.str("limited_at", l.limited_at) &&
        r.uint("links", links)))
    return *r.error;
  for (auto [key, v] : {std::pair{"speed_gts", l.current.gts}, std::pair{"max_speed_gts", l.max.gts}})
    if (v && !(*v > 0 && *v <= 1000)) return make_error(where + key + " must be GT/s above 0, at most 1000");
  for (auto [key, v] : {std::pair{"width", l.current.width}, std::pair{"max_width", l.max.width}})
    if (v && (*v == 0 || *v > 32)) return make_error(where + key + " must be 1 to 32 lanes");
  l.links = links.value_or(0);
  return l;
}

}  // namespace

json deep_step_json(const DeepStep& s) {
  json j = {{"step", to_string(s.kind)}, {"status", to_string(s.outcome)}};
  if (s.call) j["call"] = *s.call;
  if (s.error) j["error"] = *s.error;
  if (!s.message.empty()) j["message"] = s.message;
  if (s.last_step) j["last_step"] = *s.last_step;
  j["elapsed_ms"] = s.elapsed_ms;
  j["timeout_ms"] = s.timeout_ms;
  if (!s.allocs.empty()) {
    json a = json::array();
    for (const auto& x : s.allocs) a.push_back(alloc_json(x));
    j["allocations"] = a;
  }
  if (s.bytes) j["bytes"] = s.bytes->value;
  if (s.h2d_gbps) j["h2d_gbps"] = *s.h2d_gbps;
  if (s.d2h_gbps) j["d2h_gbps"] = *s.d2h_gbps;
  if (s.data_ok) j["data_ok"] = *s.data_ok;
  if (s.mismatch_at) j["mismatch_at"] = *s.mismatch_at;
  return j;
}

Result<DeepStep> parse_deep_step(const json& j, const std::string& where) {
  if (!j.is_object()) return make_error(where.substr(0, where.size() - 1) + " must be an object");
  Reader r(j, where);
  DeepStep s;
  std::string kind, status;
  std::optional<std::uint64_t> elapsed, timeout;
  if (!(r.str("step", kind) && r.str("status", status) && r.str("call", s.call) && r.str("error", s.error) &&
        r.str("message", s.message) && r.str("last_step", s.last_step) && r.uint("elapsed_ms", elapsed) &&
        r.uint("timeout_ms", timeout) && r.bytes("bytes", s.bytes) && r.number("h2d_gbps", s.h2d_gbps) &&
        r.number("d2h_gbps", s.d2h_gbps) && r.boolean("data_ok", s.data_ok) && r.uint("mismatch_at", s.mismatch_at)))
    return *r.error;
  auto k = parse_deep_step_kind(kind);
  if (!k) return make_error(where + "step \"" + kind + "\" is not one of memory, copy, fill");
  auto o = parse_deep_outcome(status);
  if (!o)
    return make_error(where + "status \"" + status +
                      "\" is not one of ok, failed, init-failed, crashed, timeout, bad-output, not-run");
  s.kind = *k;
  s.outcome = *o;
  s.elapsed_ms = elapsed.value_or(0);
  s.timeout_ms = timeout.value_or(0);
  const json* allocs = r.array("allocations");
  if (r.error) return *r.error;
  for (std::size_t i = 0; allocs && i < allocs->size(); ++i) {
    auto a = parse_alloc((*allocs)[i], where + "allocations[" + std::to_string(i) + "].");
    if (!a) return a.error();
    s.allocs.push_back(std::move(*a));
  }
  return s;
}

json deep_record_json(const DeepFacts& d) {
  json gpus = json::array();
  for (const auto& g : d.gpus) {
    json steps = json::array();
    for (const auto& s : g.steps) steps.push_back(deep_step_json(s));
    json gj = {{"agent", g.agent}, {"name", g.name}, {"steps", steps}};
    if (g.link) gj["link"] = link_json(*g.link);
    gpus.push_back(std::move(gj));
  }
  json j = {{"budget_ms", d.budget_ms}, {"elapsed_ms", d.elapsed_ms}, {"budget_spent", d.budget_spent}};
  if (!d.reason.empty()) j["reason"] = d.reason;
  j["gpus"] = gpus;
  return j;
}

Result<DeepFacts> parse_deep_record(const json& j) {
  const std::string where = "deep.";
  if (!j.is_object()) return make_error("deep must be an object");
  DeepFacts d;
  d.asked = true;
  Reader r(j, where);
  std::optional<std::uint64_t> budget, elapsed;
  std::optional<bool> spent;
  if (!(r.uint("budget_ms", budget) && r.uint("elapsed_ms", elapsed) && r.boolean("budget_spent", spent) &&
        r.str("reason", d.reason)))
    return *r.error;
  d.budget_ms = budget.value_or(0);
  d.elapsed_ms = elapsed.value_or(0);
  d.budget_spent = spent.value_or(false);
  const json* gpus = r.array("gpus");
  if (r.error) return *r.error;
  for (std::size_t i = 0; gpus && i < gpus->size(); ++i) {
    const std::string gw = where + "gpus[" + std::to_string(i) + "].";
    const json& gj = (*gpus)[i];
    if (!gj.is_object()) return make_error(gw.substr(0, gw.size() - 1) + " must be an object");
    Reader gr(gj, gw);
    DeepGpu g;
    std::optional<std::uint16_t> agent;
    if (!(gr.uint("agent", agent) && gr.str("name", g.name))) return *gr.error;
    g.agent = agent.value_or(0);
    const json* steps = gr.array("steps");
    if (gr.error) return *gr.error;
    for (std::size_t k = 0; steps && k < steps->size(); ++k) {
      auto s = parse_deep_step((*steps)[k], gw + "steps[" + std::to_string(k) + "].");
      if (!s) return s.error();
      g.steps.push_back(std::move(*s));
    }
    if (gj.contains("link") && !gj["link"].is_null()) {
      auto l = parse_link(gj["link"], gw + "link.");
      if (!l) return l.error();
      g.link = std::move(*l);
    }
    d.gpus.push_back(std::move(g));
  }
  return d;
}

}  // namespace amdml::formats