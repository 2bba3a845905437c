// `amdml info` as text and JSON; see info.hpp.
#include "render/info.hpp"
#include "formats/runtime_record.hpp"
#include "render/facts_json.hpp"

#include <algorithm>
#include <cstdio>

namespace amdml::render {
namespace {

using nlohmann::json;

bool runtime_asked(const HsaFacts& h) {
  return h.outcome == HsaOutcome::ok;
}

// Runtime outcomes after which sysfs is the only view, but not because something broke.
bool runtime_not_asked(const HsaFacts& h) {
  return h.outcome == HsaOutcome::not_run || h.outcome == HsaOutcome::skipped || h.outcome == HsaOutcome::not_installed;
}

bool kfd_usable(const Facts& f) {
  if (!f.identity.devices_known) return f.kfd.present;
  for (const auto& d : f.identity.devices)
    if (d.path == "/dev/kfd") return d.exists && d.open != OpenCheck::failed;
  return false;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string runtime_line(const HsaFacts& h) {
  std::string s;
  switch (h.outcome) {
    case HsaOutcome::ok:
      s = "ok, " + std::to_string(h.gpu_agents()) + " GPU agent(s)";
      break;
    case HsaOutcome::init_failed:
      s = h.failed_call.value_or("hsa_init") + " failed: " + h.status_name.value_or(h.status_text.value_or("error"));
      break;
    case HsaOutcome::not_installed: s = "not installed"; break;
    case HsaOutcome::crashed: s = "crashed"; break;
    case HsaOutcome::timed_out: s = "timed out"; break;
    case HsaOutcome::bad_output: s = "unreadable answer"; break;
    case HsaOutcome::skipped: s = "not asked"; break;
    case HsaOutcome::not_run: s = "not asked"; break;
  }
  if (!h.reason.empty() && h.outcome != HsaOutcome::ok && h.outcome != HsaOutcome::init_failed) s += " (" + h.reason + ")";
  if (h.library) s += "  " + *h.library;
  if (h.runtime_version) s += " (HSA " + *h.runtime_version + ")";
  if (h.recorded) s += "  [recorded]";
  return s;
}

std::string libdrm_line(const LibdrmFacts& d) {
  std::string s = d.outcome == HsaOutcome::ok ? "ok" : std::string(to_string(d.outcome));
  if (!d.reason.empty()) s += " (" + d.reason + ")";
  if (d.library) s += "  " + *d.library;
  if (d.recorded) s += "  [recorded]";
  return s;
}

std::string row(const std::string& label, const std::string& value, const std::string& source = "") {
  std::string l = "    " + label;
  if (l.size() < 24) l.append(24 - l.size(), ' ');
  std::string line = l + value;
  if (!source.empty()) {
    if (line.size() < 64) line.append(64 - line.size(), ' ');
    else line += "  ";
    line += "(" + source + ")";
  }
  return line + "\n";
}

const GpuMemoryView* memory_of(const Facts& f, int gpu) {
  for (const auto& m : f.runtime.memory)
    if (m.gpu == gpu) return &m;
  return nullptr;
}

std::string memory_rows(const Facts& f, int gpu) {
  const GpuMemoryView* m = memory_of(f, gpu);
  if (!m) return "";
  std::string out = "  Memory\n";
  auto add = [&](const char* label, const std::optional<SourcedBytes>& v) {
    if (!v) return;
    std::string src = v->source == ValueSource::sysfs ? "DRM sysfs" : v->source == ValueSource::kfd ? "KFD sysfs"
                    : v->source == ValueSource::hsa ? "HSA" : "libdrm";
    out += row(label, format_bytes(v->value), src);
  };
  add("VRAM total", m->vram_total);
  add("VRAM usable", m->vram_usable);
  add("CPU-visible VRAM", m->vis_vram_total);
  add("GTT total", m->gtt_total);
  add("GTT usable", m->gtt_usable);
  add("KFD memory", m->kfd_memory);
  add("HSA coarse pool", m->hsa_coarse_pool);
  for (const auto& d : m->disagreements) out += "    ! " + d + "\n";
  return out;
}

std::string pool_text(const HsaPool& p) {
  std::string s = to_string(p.segment);
  if (auto fl = p.flags_text(); !fl.empty()) s += " " + fl;
  s += "  " + (p.size ? format_bytes(*p.size) : std::string("?"));
  if (p.alloc_allowed) s += ", allocatable";
  if (p.alloc_granule) s += ", granule " + format_bytes(*p.alloc_granule);
  if (p.accessible_by_all.value_or(false)) s += ", accessible by all";
  return s;
}

std::string hsa_agent_text(const Facts& f, std::size_t idx, const HsaAgent& a, const TextStyle& st) {
  std::string head = "Agent " + std::to_string(idx) + "  " + std::string(to_string(a.device)) + "  " + a.name;
  if (a.marketing_name && *a.marketing_name != a.name) head += "  " + *a.marketing_name;
  std::string out = paint(st, Color::bold, head) + "\n";
  const Gpu* g = a.gpu ? &f.gpus[static_cast<std::size_t>(*a.gpu)] : nullptr;
  if (a.vendor) out += row("Vendor", *a.vendor, "HSA");
  if (a.node) out += row("Node", std::to_string(*a.node), "HSA");
  if (a.device == HsaDeviceType::gpu) {
    if (auto s = a.pci_slot()) out += row("PCI", *s, "HSA");
    if (a.chip_id) out += row("Chip ID", hex(*a.chip_id), "HSA");
    if (a.uuid) out += row("UUID", *a.uuid, "HSA");
    if (g && g->gfx && g->gfx->name() != a.name)
      out += row("Hardware gfx", g->gfx->name() + " (the runtime reports " + a.name + ": override)", "KFD sysfs");
    if (a.apu) out += row("APU", *a.apu ? "yes" : "no", "HSA");
  }
  if (a.compute_units) {
    std::string cu = std::to_string(*a.compute_units);
    if (a.simds_per_cu) cu += " (" + std::to_string(*a.simds_per_cu) + " SIMDs per CU)";
    out += row("Compute units", cu, "HSA");
  }
  if (a.wavefront_size) out += row("Wavefront size", std::to_string(*a.wavefront_size), "HSA");
  for (std::size_t i = 0; i < a.isas.size(); ++i) out += row(i == 0 ? "ISA" : "", a.isas[i], "HSA");
  for (std::size_t i = 0; i < a.pools.size(); ++i) out += row("Pool " + std::to_string(i), pool_text(a.pools[i]), "HSA");
  if (a.gpu) out += memory_rows(f, *a.gpu);
  return out;
}

std::string kfd_node_text(const Facts& f, const KfdNode& n, const TextStyle& st) {
  std::string head = "KFD node " + std::to_string(n.index) + "  " + (n.cpu ? "cpu" : "gpu");
  int gpu = -1;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (f.gpus[i].kfd_node == n.index) gpu = static_cast<int>(i);
  const Gpu* g = gpu >= 0 ? &f.gpus[static_cast<std::size_t>(gpu)] : nullptr;
  if (n.gfx) head += "  " + n.gfx->name();
  if (g && g->marketing_name) head += "  " + *g->marketing_name;
  std::string out = paint(st, Color::bold, head) + "\n";
  if (n.cpu) {
    if (n.cpu_cores_count) out += row("CPU cores", std::to_string(n.cpu_cores_count), "KFD sysfs");
    return out;
  }
  out += row("PCI", n.pci_slot(), "KFD sysfs");
  if (n.device_id) out += row("Chip ID", hex(n.device_id), "KFD sysfs");
  if (n.unique_id && *n.unique_id) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "GPU-%016llx", static_cast<unsigned long long>(*n.unique_id));
    out += row("UUID", buf, "KFD sysfs");
  }
  if (n.compute_units) out += row("Compute units", std::to_string(*n.compute_units) + " (" + std::to_string(n.simd_per_cu) + " SIMDs per CU)", "KFD sysfs");
  if (n.wave_front_size) out += row("Wavefront size", std::to_string(n.wave_front_size), "KFD sysfs");
  if (g && g->render_node) out += row("Render node", *g->render_node, "KFD sysfs");
  if (gpu >= 0) out += memory_rows(f, gpu);
  return out;
}

}  // namespace

int usable_gpu_agents(const Facts& f) {
  const auto& h = f.runtime.hsa;
  if (runtime_asked(h)) return static_cast<int>(h.gpu_agents());
  if (!runtime_not_asked(h)) return 0;
  if (!kfd_usable(f)) return 0;
  int n = 0;
  for (const auto& node : f.kfd.nodes) n += !node.cpu;
  return n;
}

std::string render_info_text(const Report& r, const TextStyle& st) {
  const Facts& f = r.facts;
  const auto& h = f.runtime.hsa;
  std::string out;
  out += paint(st, Color::bold, "HSA runtime") + "  " + runtime_line(h) + "\n";
  out += paint(st, Color::bold, "libdrm     ") + "  " + libdrm_line(f.runtime.libdrm) + "\n\n";
  if (runtime_asked(h)) {
    for (std::size_t i = 0; i < h.agents.size(); ++i) out += hsa_agent_text(f, i, h.agents[i], st) + "\n";
    // GPUs the kernel has and the runtime left out: show them from KFD, marked.
    for (const auto& n : f.kfd.nodes) {
      if (n.cpu) continue;
      bool joined = false;
      for (const auto& a : h.agents)
        joined |= a.gpu && f.gpus[static_cast<std::size_t>(*a.gpu)].kfd_node == n.index;
      if (joined) continue;
      out += paint(st, Color::red, "Not an HSA agent:") + " ";
      out += kfd_node_text(f, n, st) + "\n";
    }
  } else if (!f.kfd.nodes.empty()) {
    out += paint(st, Color::dim, "The HSA runtime gave no agents; this is what the kernel's KFD topology lists "
                                 "(what the runtime would enumerate):") + "\n\n";
    for (const auto& n : f.kfd.nodes) out += kfd_node_text(f, n, st) + "\n";
  } else {
    out += "No KFD topology: the kernel offers no GPU for compute.\n\n";
  }
  std::string problems;
  for (const auto& fd : r.findings) {
    const auto area = finding_prefix(fd.id);
    if (area != "runtime" && fd.id != FindingId::drm_mismatch && area != "gpu" && area != "kfd" && area != "access" &&
        area != "driver" && area != "container")
      continue;
    problems += "  " + std::string(to_string(fd.severity)) + "  " + fd.title + "  [" + std::string(to_string(fd.id)) + "]\n";
    if (!fd.detail.empty()) problems += "         " + fd.detail + "\n";
  }
  if (!problems.empty()) out += paint(st, Color::bold, "Why") + "\n" + problems + "\n";
  int usable = usable_gpu_agents(f);
  out += usable > 0 ? std::to_string(usable) + " GPU agent(s) usable by ROCm programs.\n"
                    : std::string("No GPU agent usable by ROCm programs") +
                          (f.gpus.empty() ? " (no AMD GPU found)." : "; see `amdml doctor` for the fix.") + "\n";
  return out;
}

json info_json(const Report& r) {
  const Facts& f = r.facts;
  const auto& h = f.runtime.hsa;
  json j;
  j["schema"] = "amdml.info/1";
  json rt = formats::hsa_record_json(h);
  rt.erase("agents");
  rt["recorded"] = h.recorded;
  j["runtime"] = rt;
  json drm = formats::libdrm_record_json(f.runtime.libdrm);
  drm.erase("devices");
  j["libdrm"] = drm;
  json agents = json::array();
  if (runtime_asked(h)) {
    j["source"] = "hsa";
    json rec = formats::hsa_record_json(h);
    for (std::size_t i = 0; i < h.agents.size(); ++i) {
      json a = rec["agents"][i];
      a["gpu"] = h.agents[i].gpu ? json(*h.agents[i].gpu) : json(nullptr);
      a["source"] = "hsa";
      agents.push_back(std::move(a));
    }
  } else {
    j["source"] = "kfd-sysfs";
    for (const auto& n : f.kfd.nodes) {
      json a = {{"source", "kfd-sysfs"}, {"node", n.index}, {"device", n.cpu ? "cpu" : "gpu"}};
      if (!n.cpu) {
        a["name"] = n.gfx ? json(n.gfx->name()) : json(nullptr);
        a["pci_slot"] = n.pci_slot();
        a["chip_id"] = n.device_id;
        a["compute_units"] = n.compute_units ? json(*n.compute_units) : json(nullptr);
        a["simds_per_cu"] = n.simd_per_cu;
        a["wavefront_size"] = n.wave_front_size;
        json gi = nullptr;
        for (std::size_t i = 0; i < f.gpus.size(); ++i)
          if (f.gpus[i].kfd_node == n.index) gi = static_cast<int>(i);
        a["gpu"] = gi;
      }
      agents.push_back(std::move(a));
    }
  }
  j["agents"] = agents;
  j["memory"] = gpu_memory_json(f.runtime.memory);
  json gpus = json::array();
  for (const auto& g : f.gpus) gpus.push_back(gpu_json(g));
  j["gpus"] = gpus;
  json findings = json::array();
  for (const auto& fd : r.findings) findings.push_back(finding_json(fd));
  j["findings"] = findings;
  j["usable_gpu_agents"] = usable_gpu_agents(f);
  return j;
}

}  // namespace amdml::render