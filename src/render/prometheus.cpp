// The doctor's answer in the Prometheus text exposition format, for node_exporter's
// textfile collector (--collector.textfile.directory). Every family is a gauge with
// HELP and TYPE lines; facts that are strings (gfx target, names, versions, outcomes)
// are labels of "info" series whose value is 1, numbers are gauges of their own. The
// textfile collector rejects sample timestamps, so the run time is a gauge too.
// Unknown values are left out, never written as 0.
#include <map>
#include <utility>
#include <vector>

#include "render/fleet.hpp"
#include "base/utf8.hpp"
#include "render/format.hpp"

namespace amdml::render {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: HELP, TYPE and its samples, in the order added.
struct Family {
  std::string name;
  std::string help;
  std::vector<std::pair<Labels, std::string>> samples;

  void add(Labels labels, std::string value) { samples.emplace_back(std::move(labels), std::move(value)); }
  void add(Labels labels, std::uint64_t value) { add(std::move(labels), std::to_string(value)); }
};

std::string help_text(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string render_families(const std::vector<Family>& families) {
  std::string out;
  for (const auto& f : families) {
    if (f.samples.empty()) continue;  // a family without samples says nothing
    out += "# HELP " + f.name + " " + help_text(f.help) + "\n";
    out += "# TYPE " + f.name + " gauge\n";
    for (const auto& [labels, value] : f.samples) {
      out += f.name;
      if (!labels.empty()) {
        out += "{";
        for (std::size_t i = 0; i < labels.size(); ++i) {
          if (i) out += ",";
          out += labels[i].first + "=\"" + prometheus_label_value(labels[i].second) + "\"";
        }
        out += "}";
      }
      out += " " + value + "\n";
    }
  }
  return out;
}

// The two families every file has, also one from a run that could not start.
void add_run_families(std::vector<Family>& fams, std::int64_t unix_time, bool success) {
  Family t{"amdml_last_run_timestamp_seconds", "Unix time at which amdml doctor wrote this file.", {}};
  t.add({}, std::to_string(unix_time));
  fams.push_back(std::move(t));
  Family s{"amdml_run_success", "1 when amdml could examine the machine, 0 when the run could not start.", {}};
  s.add({}, success ? "1" : "0");
  fams.push_back(std::move(s));
}

std::string bool_label(std::optional<bool> b) { return !b ? "" : (*b ? "true" : "false"); }

}  // namespace

std::string prometheus_label_value(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    std::size_t n = utf8::decode(text, i, cp);
    if (n == 0) {  // bytes from a broken machine's files: the format requires UTF-8
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (cp == '\\') out += "\\\\";
    else if (cp == '"') out += "\\\"";
    else if (cp == '\n') out += "\\n";
    else out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string prometheus_text(const Report& r, std::int64_t unix_time) {
  const Facts& facts = r.facts;
  std::vector<Family> fams;

  Family info{"amdml_info", "The amdml version that wrote this file; always 1.", {}};
  info.add({{"version", facts.amdml_version}}, "1");
  fams.push_back(std::move(info));
  add_run_families(fams, unix_time, true);

  Family count{"amdml_gpus", "AMD GPUs seen by any layer (PCI, DRM, KFD).", {}};
  count.add({}, static_cast<std::uint64_t>(facts.gpus.size()));
  fams.push_back(std::move(count));

  // Per GPU: the identity as labels of one info series, memory as gauges. "gpu" (the
  // index in the JSON document's gpus) is on every series so they join.
  Family gpu_info{"amdml_gpu_info", "One series per AMD GPU; labels say what it is. Always 1.", {}};
  Family vram{"amdml_gpu_vram_bytes", "Dedicated VRAM, or on an APU the BIOS carve-out (mem_info_vram_total).", {}};
  Family gtt{"amdml_gpu_gtt_bytes", "The GTT limit of the GPU (mem_info_gtt_total).", {}};
  Family kfd_mem{"amdml_gpu_kfd_memory_bytes", "Memory ROCm allocates from (the KFD memory banks).", {}};
  Family cus{"amdml_gpu_compute_units", "Compute units of the GPU.", {}};
  for (std::size_t i = 0; i < facts.gpus.size(); ++i) {
    const Gpu& g = facts.gpus[i];
    std::string idx = std::to_string(i);
    Labels l{{"gpu", idx},
             {"gfx", g.gfx ? g.gfx->name() : ""},
             {"name", g.marketing_name.value_or("")},
             {"pci_id", g.pci_id()},
             {"pci_slot", g.pci_slot.value_or("")},
             {"kfd_node", g.kfd_node ? std::to_string(*g.kfd_node) : ""},
             {"apu", bool_label(g.apu)},
             {"render_node", g.render_node.value_or("")}};
    gpu_info.add(std::move(l), "1");
    Labels id{{"gpu", idx}, {"pci_slot", g.pci_slot.value_or("")}};
    if (g.vram) vram.add(id, g.vram->value);
    if (g.gtt) gtt.add(id, g.gtt->value);
    if (g.kfd_memory) kfd_mem.add(id, g.kfd_memory->value);
    if (g.compute_units) cus.add(id, static_cast<std::uint64_t>(*g.compute_units));
  }
  for (auto* f : {&gpu_info, &vram, &gtt, &kfd_mem, &cus}) fams.push_back(std::move(*f));

  Family ttm{"amdml_ttm_pages_limit_bytes",
             "The TTM pages_limit in bytes per TTM module; in_use marks the one amdgpu uses. It caps GTT on APUs.", {}};
  auto add_ttm = [&](TtmModule m, const TtmModuleState& p) {
    if (!p.pages_limit) return;
    ttm.add({{"module", to_string(m)}, {"in_use", facts.driver.ttm_in_use == m ? "true" : "false"}},
            p.pages_limit->bytes().value);
  };
  add_ttm(TtmModule::ttm, facts.driver.ttm);
  add_ttm(TtmModule::amdttm, facts.driver.amdttm);
  fams.push_back(std::move(ttm));

  Family mem{"amdml_host_memory_bytes", "System RAM (MemTotal).", {}};
  if (facts.memory.total) mem.add({}, facts.memory.total->value);
  fams.push_back(std::move(mem));

  Family rocm{"amdml_rocm_info", "The ROCm user space amdml found; absent when there is none. Always 1.", {}};
  if (facts.rocm.source != RocmSource::none)
    rocm.add({{"version", facts.rocm.version ? facts.rocm.version->str() : ""},
              {"path", facts.rocm.path.value_or("")},
              {"source", to_string(facts.rocm.source)}},
             "1");
  fams.push_back(std::move(rocm));

  const HsaFacts& hsa = facts.runtime.hsa;
  Family runtime{"amdml_runtime_probe_info",
                 "How the HSA runtime probe ended: ok, not-run, not-installed, init-failed, crashed, ... (docs/runtime.md). Always 1.",
                 {}};
  runtime.add({{"outcome", to_string(hsa.outcome)}, {"recorded", hsa.recorded ? "true" : "false"}}, "1");
  fams.push_back(std::move(runtime));
  Family agents{"amdml_runtime_gpu_agents", "GPU agents the HSA runtime enumerated (only when it initialised).", {}};
  if (hsa.outcome == HsaOutcome::ok) agents.add({}, static_cast<std::uint64_t>(hsa.gpu_agents()));
  fams.push_back(std::move(agents));

  // Findings: one series per (id, severity); the value counts the findings with both
  // (one id can be reported per GPU or per setting).
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_id;
  for (const auto& f : r.findings) ++by_id[{std::string(to_string(f.id)), std::string(to_string(f.severity))}];
  Family finding{"amdml_finding",
                 "Findings of the run by id and severity; the value is how many were reported. See docs/findings/<id>.md.", {}};
  for (const auto& [key, n] : by_id) finding.add({{"id", key.first}, {"severity", key.second}}, n);
  fams.push_back(std::move(finding));
  Family summary{"amdml_findings", "Findings of the run by severity.", {}};
  summary.add({{"severity", "error"}}, static_cast<std::uint64_t>(r.summary.errors));
  summary.add({{"severity", "warning"}}, static_cast<std::uint64_t>(r.summary.warnings));
  summary.add({{"severity", "info"}}, static_cast<std::uint64_t>(r.summary.infos));
  fams.push_back(std::move(summary));
  return render_families(fams);
}

std::string prometheus_error_text(const std::string& message, std::int64_t unix_time) {
  std::vector<Family> fams;
  add_run_families(fams, unix_time, false);
  Family error{"amdml_run_error_info", "Why the run could not start. Always 1.", {}};
  error.add({{"message", message}}, "1");
  fams.push_back(std::move(error));
  return render_families(fams);
}

}  // namespace amdml::render
