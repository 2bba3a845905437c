// The amdgpu kernel module: loaded and initialised, AMD's DKMS build or in-tree, which
// TTM module it uses (ttm or DKMS's amdttm) and that module's limits, and gttsize.
#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

static void read_ttm(const platform::Host& h, Facts& f, const std::string& name, TtmModuleState& out) {
  const std::string dir = "/sys/module/" + name;
  out.loaded = h.exists(dir);
  if (!out.loaded) return;
  if (auto v = read_u64(h, f, "driver", dir + "/parameters/pages_limit")) out.pages_limit = Pages{*v};
  if (auto v = read_u64(h, f, "driver", dir + "/parameters/page_pool_size")) out.page_pool_size = Pages{*v};
  out.holds_amdgpu = h.exists(dir + "/holders/amdgpu");
}

void driver(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto& d = f.driver;
  d.amdgpu_loaded = h.exists("/sys/module/amdgpu");
  if (d.amdgpu_loaded) {
    d.initstate = read_value(h, f, "driver", "/sys/module/amdgpu/initstate");
    d.dkms_version = read_value(h, f, "driver", "/sys/module/amdgpu/version");
    if (d.dkms_version && d.dkms_version->empty()) d.dkms_version.reset();
    if (auto v = read_value(h, f, "driver", "/sys/module/amdgpu/parameters/gttsize")) {
      if (auto n = text::i64(*v)) d.gttsize_param_mib = *n;
      else f.error("driver", "/sys/module/amdgpu/parameters/gttsize", "not a number: \"" + v->substr(0, 40) + "\"");
    }
  }
  read_ttm(h, f, "ttm", d.ttm);
  read_ttm(h, f, "amdttm", d.amdttm);
  // The module amdgpu depends on: the one holding it; else amdttm when the DKMS
  // driver is loaded and amdttm exists; else ttm.
  if (d.amdttm.holds_amdgpu) d.ttm_in_use = TtmModule::amdttm;
  else if (d.ttm.holds_amdgpu) d.ttm_in_use = TtmModule::ttm;
  else if (d.amdttm.loaded && (d.dkms_version || !d.ttm.loaded)) d.ttm_in_use = TtmModule::amdttm;
  else if (d.ttm.loaded) d.ttm_in_use = TtmModule::ttm;
  if (f.os.cmdline) {
    for (const auto& [k, v] : formats::parse::cmdline(*f.os.cmdline)) {
      if (k.starts_with("amdgpu.") || k.starts_with("ttm.") || k.starts_with("amdttm."))
        d.cmdline_options[k] = v;
      if (k == "amdgpu.gttsize")
        if (auto n = text::i64(v)) d.gttsize_cmdline_mib = *n;
    }
  }
}

}  // namespace amdml::probes
