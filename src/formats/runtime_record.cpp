// The runtime facts' recorded form: enum spellings and the JSON codec shared by the
// probe children (which print it), the live probe (which records it for snapshots) and
// replay under --root (which reads it back). The format is documented in docs/runtime.md.
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "amdml/facts_runtime.hpp"
#include "formats/record_reader.hpp"
#include "model/enum_tables.hpp"

namespace amdml::formats {

using nlohmann::json;

using record::opt;
using record::Reader;

namespace {

json attempts_json(const std::vector<LibraryAttempt>& attempts) {
  json a = json::array();
  for (const auto& t : attempts) a.push_back({{"path", t.path}, {"exists", t.exists}, {"error", t.error}});
  return a;
}

bool read_attempts(Reader& r, std::vector<LibraryAttempt>& out) {
  const json* tried = r.array("tried");
  if (r.error) return false;
  if (!tried) return true;
  for (std::size_t i = 0; i < tried->size(); ++i) {
    const json& t = (*tried)[i];
    if (!t.is_object()) {
      r.error = make_error(r.where() + "tried[" + std::to_string(i) + "] must be an object");
      return false;
    }
    Reader tr(t, r.where() + "tried[" + std::to_string(i) + "].");
    LibraryAttempt a;
    std::optional<bool> exists;
    if (!tr.str("path", a.path) || !tr.boolean("exists", exists) || !tr.str("error", a.error)) {
      r.error = tr.error;
      return false;
    }
    a.exists = exists.value_or(a.error.empty());
    out.push_back(std::move(a));
  }
  return true;
}

}  // namespace

json hsa_record_json(const HsaFacts& h) {
  json j;
  j["status"] = to_string(h.outcome);
  if (!h.reason.empty()) j["reason"] = h.reason;
  if (h.library) j["library"] = *h.library;
  if (!h.attempts.empty()) j["tried"] = attempts_json(h.attempts);
  if (h.runtime_version) j["runtime_version"] = *h.runtime_version;
  if (h.failed_call) j["call"] = *h.failed_call;
  if (h.status_code) j["code"] = *h.status_code;
  if (h.status_name) j["code_name"] = *h.status_name;
  if (h.status_text) j["message"] = *h.status_text;
  if (h.signal) j["signal"] = h.signal;
  if (h.exit_code) j["exit_code"] = *h.exit_code;
  if (h.last_step) j["last_step"] = *h.last_step;
  if (!h.stderr_tail.empty()) j["stderr"] = h.stderr_tail;
  if (h.elapsed_ms) j["elapsed_ms"] = *h.elapsed_ms;
  if (h.timeout_ms) j["timeout_ms"] = *h.timeout_ms;
  json agents = json::array();
  for (const auto& a : h.agents) {
    json pools = json::array();
    for (const auto& p : a.pools)
      pools.push_back({{"segment", to_string(p.segment)},
                       {"global_flags", p.global_flags},
                       {"size", opt(p.size)},
                       {"alloc_allowed", p.alloc_allowed},
                       {"alloc_granule", opt(p.alloc_granule)},
                       {"accessible_by_all", opt(p.accessible_by_all)}});
    agents.push_back({{"name", a.name},
                      {"marketing_name", opt(a.marketing_name)},
                      {"vendor", opt(a.vendor)},
                      {"device", to_string(a.device)},
                      {"node", opt(a.node)},
                      {"bdfid", opt(a.bdfid)},
                      {"domain", opt(a.domain)},
                      {"uuid", opt(a.uuid)},
                      {"chip_id", opt(a.chip_id)},
                      {"compute_units", opt(a.compute_units)},
                      {"simds_per_cu", opt(a.simds_per_cu)},
                      {"wavefront_size", opt(a.wavefront_size)},
                      {"apu", opt(a.apu)},
                      {"isas", a.isas},
                      {"pools", pools}});
  }
  if (h.outcome == HsaOutcome::ok || !h.agents.empty()) j["agents"] = agents;
  return j;
}

Result<HsaFacts> parse_hsa_record(const json& j) {
  const std::string where = "hsa.";
  if (!j.is_object()) return make_error("hsa must be an object");
  HsaFacts h;
  Reader r(j, where);
  std::string status;
  if (!r.str("status", status)) return *r.error;
  if (status.empty()) return make_error("hsa.status is missing");
  auto outcome = parse_hsa_outcome(status);
  if (!outcome) return make_error("hsa.status \"" + status + "\" is not one of ok, init-failed, not-installed, crashed, timeout, bad-output, skipped, not-run");
  h.outcome = *outcome;
  // Read as int, the type they are kept in: a larger number would come back negative,
  // which the writer then spells and this reader refuses.
  std::optional<int> sig;
  std::optional<int> exit_code;
  bool ok = r.str("reason", h.reason) && r.str("library", h.library) && r.str("runtime_version", h.runtime_version) &&
            r.str("call", h.failed_call) && r.uint("code", h.status_code) && r.str("code_name", h.status_name) &&
            r.str("message", h.status_text) && r.uint("signal", sig) && r.uint("exit_code", exit_code) &&
            r.str("last_step", h.last_step) && r.str("stderr", h.stderr_tail) && r.uint("elapsed_ms", h.elapsed_ms) &&
            r.uint("timeout_ms", h.timeout_ms) && read_attempts(r, h.attempts);
  if (!ok) return *r.error;
  if (sig) h.signal = *sig;
  if (exit_code) h.exit_code = *exit_code;
  if (h.status_code && !h.status_name) h.status_name = hsa_status_name(*h.status_code);
  const json* agents = r.array("agents");
  if (r.error) return *r.error;
  if (agents) {
    for (std::size_t i = 0; i < agents->size(); ++i) {
      const json& aj = (*agents)[i];
      const std::string aw = where + "agents[" + std::to_string(i) + "].";
      if (!aj.is_object()) return make_error(aw.substr(0, aw.size() - 1) + " must be an object");
      Reader ar(aj, aw);
      HsaAgent a;
      std::string device;
      bool aok = ar.str("name", a.name) && ar.str("marketing_name", a.marketing_name) && ar.str("vendor", a.vendor) &&
                 ar.str("device", device) && ar.uint("node", a.node) && ar.uint("bdfid", a.bdfid) &&
                 ar.uint("domain", a.domain) && ar.str("uuid", a.uuid) && ar.uint("chip_id", a.chip_id) &&
                 ar.uint("compute_units", a.compute_units) && ar.uint("simds_per_cu", a.simds_per_cu) &&
                 ar.uint("wavefront_size", a.wavefront_size) && ar.boolean("apu", a.apu) && ar.strings("isas", a.isas);
      if (!aok) return *ar.error;
      if (auto d = enum_from_name(names::kHsaDeviceType, device)) a.device = *d;
      else if (!device.empty())
        return make_error(aw + "device \"" + device + "\" is not one of cpu, gpu, dsp");
      const json* pools = ar.array("pools");
      if (ar.error) return *ar.error;
      if (pools) {
        for (std::size_t k = 0; k < pools->size(); ++k) {
          const json& pj = (*pools)[k];
          const std::string pw = aw + "pools[" + std::to_string(k) + "].";
          if (!pj.is_object()) return make_error(pw.substr(0, pw.size() - 1) + " must be an object");
          Reader pr(pj, pw);
          HsaPool p;
          std::string seg;
          std::optional<std::uint32_t> flags;
          std::optional<bool> alloc;
          if (!(pr.str("segment", seg) && pr.uint("global_flags", flags) && pr.bytes("size", p.size) &&
                pr.boolean("alloc_allowed", alloc) && pr.bytes("alloc_granule", p.alloc_granule) &&
                pr.boolean("accessible_by_all", p.accessible_by_all)))
            return *pr.error;
          // "unknown" is what the writer spells a segment the runtime did not name, so it reads back.
          if (auto s = enum_from_name(names::kHsaSegment, seg)) p.segment = *s;
          else if (!seg.empty()) return make_error(pw + "segment \"" + seg + "\" is not one of global, readonly, private, group");
          p.global_flags = flags.value_or(0);
          p.alloc_allowed = alloc.value_or(false);
          a.pools.push_back(p);
        }
      }
      h.agents.push_back(std::move(a));
    }
  }
  return h;
}

json libdrm_record_json(const LibdrmFacts& d) {
  json j;
  j["status"] = to_string(d.outcome);
  if (!d.reason.empty()) j["reason"] = d.reason;
  if (d.library) j["library"] = *d.library;
  if (!d.attempts.empty()) j["tried"] = attempts_json(d.attempts);
  json devs = json::array();
  for (const auto& v : d.devices) {
    json dj = {{"render_node", v.render_node},
               {"pci_slot", opt(v.pci_slot)},
               {"opened", v.opened},
               {"drm_major", opt(v.drm_major)},
               {"drm_minor", opt(v.drm_minor)},
               {"marketing_name", opt(v.marketing_name)},
               {"vram_total", opt(v.vram_total)},
               {"vram_usable", opt(v.vram_usable)},
               {"vis_vram_total", opt(v.vis_vram_total)},
               {"vis_vram_usable", opt(v.vis_vram_usable)},
               {"gtt_total", opt(v.gtt_total)},
               {"gtt_usable", opt(v.gtt_usable)}};
    if (!v.error.empty()) dj["error"] = v.error;
    devs.push_back(std::move(dj));
  }
  j["devices"] = devs;
  return j;
}

Result<LibdrmFacts> parse_libdrm_record(const json& j) {
  const std::string where = "libdrm.";
  if (!j.is_object()) return make_error("libdrm must be an object");
  LibdrmFacts d;
  Reader r(j, where);
  std::string status;
  if (!r.str("status", status)) return *r.error;
  auto outcome = parse_hsa_outcome(status);
  if (!outcome) return make_error("libdrm.status \"" + status + "\" is not one of ok, not-installed, crashed, timeout, bad-output, skipped, not-run");
  d.outcome = *outcome;
  if (!(r.str("reason", d.reason) && r.str("library", d.library) && read_attempts(r, d.attempts))) return *r.error;
  const json* devs = r.array("devices");
  if (r.error) return *r.error;
  if (devs) {
    for (std::size_t i = 0; i < devs->size(); ++i) {
      const json& dj = (*devs)[i];
      const std::string dw = where + "devices[" + std::to_string(i) + "].";
      if (!dj.is_object()) return make_error(dw.substr(0, dw.size() - 1) + " must be an object");
      Reader dr(dj, dw);
      DrmDeviceInfo v;
      std::optional<bool> opened;
      if (!(dr.str("render_node", v.render_node) && dr.str("pci_slot", v.pci_slot) && dr.boolean("opened", opened) &&
            dr.str("error", v.error) && dr.uint("drm_major", v.drm_major) && dr.uint("drm_minor", v.drm_minor) &&
            dr.str("marketing_name", v.marketing_name) && dr.bytes("vram_total", v.vram_total) &&
            dr.bytes("vram_usable", v.vram_usable) && dr.bytes("vis_vram_total", v.vis_vram_total) &&
            dr.bytes("vis_vram_usable", v.vis_vram_usable) && dr.bytes("gtt_total", v.gtt_total) &&
            dr.bytes("gtt_usable", v.gtt_usable)))
        return *dr.error;
      if (v.render_node.empty()) return make_error(dw + "render_node is missing");
      v.opened = opened.value_or(false);
      d.devices.push_back(std::move(v));
    }
  }
  return d;
}

}  // namespace amdml::formats