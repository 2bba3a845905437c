// Facts -> JSON: the layers behind the GPU list (driver, KFD, DRM, PCI, access, env).
#include "render/facts_json.hpp"

#include <cstdio>

#include "formats/deep_record.hpp"
#include "render/format.hpp"

namespace amdml::render {

using render::opt;
using render::opt_bytes;
using render::mode_json;

using nlohmann::json;

static json opt_pages(const std::optional<Pages>& p) { return p ? json(p->value) : json(nullptr); }
static std::string hex4(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

static json ttm_json(const TtmModuleState& t) {
  return {{"loaded", t.loaded},
          {"pages_limit", opt_pages(t.pages_limit)},
          {"page_pool_size", opt_pages(t.page_pool_size)},
          {"holds_amdgpu", t.holds_amdgpu}};
}

static const char* open_text(OpenCheck o) {
  switch (o) {
    case OpenCheck::ok: return "ok";
    case OpenCheck::failed: return "failed";
    default: return "not_checked";
  }
}

namespace {

json kfd_json(const KfdFacts& kfd) {
  json nodes = json::array();
  for (const auto& n : kfd.nodes) {
    json banks = json::array();
    for (const auto& b : n.mem_banks) {
      json& o = banks.emplace_back();
      o["heap_type"] = b.heap_type;
      o["size_bytes"] = b.size.value;
    }
    json& o = nodes.emplace_back();
    o["index"] = n.index;
    o["cpu"] = n.cpu;
    o["name"] = n.name;
    o["gfx_target_version"] = opt(n.gfx_target_version);
    o["gfx_target"] = n.gfx ? json(n.gfx->name()) : json(nullptr);
    o["simd_count"] = n.simd_count;
    o["compute_units"] = opt(n.compute_units);
    o["device_id"] = n.device_id;
    o["pci_slot"] = n.cpu ? json(nullptr) : json(n.pci_slot());
    o["drm_render_minor"] = n.drm_render_minor;
    o["num_xcc"] = n.num_xcc;
    o["mem_banks"] = std::move(banks);
  }
  return {{"present", kfd.present}, {"nodes", std::move(nodes)}};
}

json drm_json(const DrmFacts& drm) {
  json cards = json::array();
  for (const auto& c : drm.cards) {
    json& o = cards.emplace_back();
    o["card"] = c.card;
    o["pci_slot"] = c.pci_slot;
    o["device"] = c.device ? json(hex4(*c.device)) : json(nullptr);
    o["revision"] = c.revision ? json(*c.revision) : json(nullptr);
    o["vram_total_bytes"] = opt_bytes(c.vram_total);
    o["vis_vram_total_bytes"] = opt_bytes(c.vis_vram_total);
    o["gtt_total_bytes"] = opt_bytes(c.gtt_total);
    o["render_node"] = opt(c.render_node);
  }
  return cards;
}

json access_json(const IdentityFacts& id) {
  json devs = json::array();
  for (const auto& a : id.devices) {
    json& o = devs.emplace_back();
    o["path"] = a.path;
    o["exists"] = a.exists;
    o["mode"] = mode_json(a.mode);
    o["gid"] = opt(a.gid);
    o["group"] = opt(a.group);
    o["in_etc_group"] = opt(a.in_etc_group);
    o["in_session"] = opt(a.in_session);
    o["in_nss"] = opt(a.in_nss);
    o["open"] = open_text(a.open);
    o["open_errno"] = a.open_errno;
  }
  json nss_json = nullptr;
  if (id.nss_groups) {
    nss_json = json::array();
    for (const auto& g : *id.nss_groups) nss_json.push_back({{"gid", g.gid}, {"name", g.name}});
  }
  return {{"user", id.user},
          {"uid", opt(id.user_uid)},
          {"root", id.root},
          {"sudo_user", opt(id.process.sudo_user)},
          {"process_groups", id.process.groups ? json(*id.process.groups) : json(nullptr)},
          {"etc_groups", id.user_groups_etc},
          {"nss_groups", std::move(nss_json)},
          {"devices_known", id.devices_known},
          {"devices", std::move(devs)}};
}

json container_json(const ContainerFacts& c) {
  const auto& dk = c.docker;
  json docker = nullptr;
  if (dk.binary)
    docker = {{"binary", *dk.binary},
              {"socket_path", dk.socket_path},
              {"socket_exists", opt(dk.socket_exists)},
              {"socket_mode", mode_json(dk.socket_mode)},
              {"socket_gid", opt(dk.socket_gid)},
              {"socket_group", opt(dk.socket_group)},
              {"docker_host", opt(dk.docker_host)}};
  return {{"kind", c.kind ? json(to_string(*c.kind)) : json(nullptr)},
          {"rootless", c.rootless},
          {"rootless_why", opt(c.rootless_why)},
          {"user_namespace", opt(c.user_namespace)},
          {"sys_kfd_visible", c.sys_kfd_visible},
          {"docker", std::move(docker)}};
}

}  // namespace

json facts_json(const Facts& f) {
  json j;
  j["os"] = {{"kernel_version", f.os.kernel ? json(f.os.kernel->str()) : json(nullptr)},
             {"cmdline", opt(f.os.cmdline)},
             {"id_like", f.os.id_like}};
  json fw = json::array();
  for (const auto& p : f.os.firmware_packages)
    fw.push_back({{"name", p.name}, {"version", p.version}, {"from", p.from}, {"manager", p.manager}});
  j["os"]["firmware_packages"] = std::move(fw);
  j["memory"] = {{"total_bytes", opt_bytes(f.memory.total)}, {"available_bytes", opt_bytes(f.memory.available)}};
  json pci = json::array();
  // Per-GPU objects are built key by key: an initializer list builds a [key, value]
  // array for every member first (issue 16: half of the report's cost on 16 GPUs).
  for (const auto& p : f.pci) {
    json& o = pci.emplace_back();
    o["slot"] = p.slot;
    o["vendor"] = hex4(p.vendor);
    o["device"] = hex4(p.device);
    o["revision"] = p.revision ? json(*p.revision) : json(nullptr);
    o["class"] = p.class_code;
    o["driver"] = opt(p.driver);
  }
  j["pci"] = std::move(pci);
  const auto& d = f.driver;
  json cmd = json::object();
  for (const auto& [k, v] : d.cmdline_options) cmd[k] = v;
  j["driver"] = {{"amdgpu_loaded", d.amdgpu_loaded},
                 {"initstate", opt(d.initstate)},
                 {"dkms_version", opt(d.dkms_version)},
                 {"ttm_module", to_string(d.ttm_in_use)},
                 {"ttm", ttm_json(d.ttm)},
                 {"amdttm", ttm_json(d.amdttm)},
                 {"gttsize_param_mib", opt(d.gttsize_param_mib)},
                 {"gttsize_cmdline_mib", opt(d.gttsize_cmdline_mib)},
                 {"cmdline_options", std::move(cmd)}};
  json mp = json::array();
  for (const auto& o : f.modprobe.options)
    mp.push_back({{"file", o.file}, {"line", o.line}, {"module", o.module}, {"key", o.key}, {"value", o.value}});
  j["modprobe"] = std::move(mp);
  j["kfd"] = kfd_json(f.kfd);
  j["drm"] = drm_json(f.drm);
  j["access"] = access_json(f.identity);
  j["container"] = container_json(f.container);
  json env = json::object();
  for (const auto& [k, v] : f.env) env[k] = v;
  j["env"] = std::move(env);
  json login = json::array();
  for (const auto& e : f.login_env) login.push_back({{"name", e.name}, {"value", e.value}, {"where", e.where}});
  j["login_env"] = std::move(login);
  j["runtime"] = runtime_facts_json(f.runtime);
  j["ml"] = ml_facts_json(f.ml);
  boot_facts_json(f, j);
  // --deep only: plain doctor's document is unchanged. The recorded form (docs/deep.md).
  if (f.deep.asked) j["deep"] = formats::deep_record_json(f.deep);
  json errs = json::array();
  for (const auto& e : f.errors) errs.push_back({{"probe", e.probe}, {"path", e.path}, {"message", e.message}});
  j["probe_errors"] = std::move(errs);
  return j;
}

}  // namespace amdml::render