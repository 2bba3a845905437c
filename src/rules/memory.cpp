// memory.gtt-limit and memory.ttm-wrong-module: how much system memory an APU's GPU
// may use, and whether the knobs people set for it actually reach the driver.
//
// On an APU, ROCm memory is the BIOS carve-out plus GTT; GTT is capped by TTM's
// pages_limit (half of RAM by default) of the TTM module amdgpu uses -- `ttm` for the
// in-tree driver, `amdttm` for AMD's DKMS driver. The limit is read once when amdgpu
// loads, so only a module option or the kernel command line changes it.
#include <algorithm>
#include <map>
#include <cstdio>

#include "formats/system_files.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

std::string gib(Bytes b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b.value) / static_cast<double>(kGiB));
  return buf;
}

// The module amdgpu takes its TTM limits from ("ttm" when amdml cannot tell).
TtmModule module_in_use(const Facts& f) {
  return f.driver.ttm_in_use == TtmModule::none ? TtmModule::ttm : f.driver.ttm_in_use;
}

const TtmParams& params_of(const Facts& f, TtmModule m) { return m == TtmModule::amdttm ? f.driver.amdttm : f.driver.ttm; }

std::string param_path(TtmModule m, const char* key) {
  return std::string("/sys/module/") + to_string(m) + "/parameters/" + key;
}

// The value the boot configuration gives module.key: the kernel command line wins over
// modprobe.d (modprobe appends command-line options last); within modprobe.d the last one.
struct Configured {
  std::string value;
  std::string where;  // "/etc/modprobe.d/ttm.conf:1" or "/proc/cmdline"
};
std::vector<Configured> settings(const Facts& f, const std::string& module, const std::string& key) {
  std::vector<Configured> out;
  for (const auto& o : f.modprobe.options)
    if (o.module == module && o.key == key) out.push_back({o.value, o.file + ":" + std::to_string(o.line)});
  for (const auto& [k, v] : f.driver.cmdline_options)
    if (formats::parse::modprobe_name(k) == module + "." + key) out.push_back({v, "/proc/cmdline"});
  return out;
}
std::optional<Configured> configured(const Facts& f, const std::string& module, const std::string& key) {
  auto all = settings(f, module, key);
  if (all.empty()) return std::nullopt;
  return all.back();
}

bool any_amd_gpu_driven(const Facts& f) {
  for (const auto& g : f.gpus)
    if (g.driver.value_or("") == "amdgpu" || g.kfd_node) return true;
  return false;
}

bool is_ttm_key(const std::string& k) { return k == "pages_limit" || k == "page_pool_size"; }

// The kernel command line sets one of module's TTM limits (it wins over modprobe.d).
bool configured_on_cmdline(const Facts& f, const std::string& module) {
  return std::any_of(f.driver.cmdline_options.begin(), f.driver.cmdline_options.end(), [&](const auto& kv) {
    return formats::parse::modprobe_name(kv.first) == module + ".pages_limit" || formats::parse::modprobe_name(kv.first) == module + ".page_pool_size";
  });
}

// amdgpu parameter names people use for GTT that amdgpu does not have.
bool bogus_gtt_key(const std::string& k) { return k == "gtt_size" || k == "ggtsize" || k == "gtt"; }

// The one change amdml asks for the TTM limits of this machine. Every memory finding
// that a recipe can fix carries this same request, so the findings agree and `amdml fix`
// plans one recipe: the limit is MemoryKnowledge::recommended_pages_limit (a reserve
// left to the OS, never more than max_fraction of RAM), set for the module amdgpu uses,
// where the machine sets it -- the kernel command line when TTM or GTT options are
// there (the misplaced and unknown ones removed), else modprobe.d.
struct TtmLimitRequest {
  std::string module;
  Pages target;
  FixRef fix;
  bool on_cmdline = false;
};
std::optional<TtmLimitRequest> ttm_request(const RuleContext& ctx) {
  const Facts& f = ctx.facts;
  if (!f.memory.total) return std::nullopt;
  const auto rec = ctx.kb.memory.recommended_pages_limit(*f.memory.total);
  if (!rec) return std::nullopt;
  TtmLimitRequest r{to_string(module_in_use(f)), *rec, {}, false};
  const std::string other = r.module == "ttm" ? "amdttm" : "ttm";
  const bool old_kernel = f.os.kernel && *f.os.kernel < ctx.kb.memory.gtt_follows_ttm;
  KernelCmdlineParams cl;
  for (const auto& [k, v] : f.driver.cmdline_options) {
    const auto dot = k.find('.');
    const std::string mod = k.substr(0, dot), key = dot == std::string::npos ? "" : k.substr(dot + 1);
    if ((mod == "ttm" || mod == "amdttm") && is_ttm_key(key)) {
      r.on_cmdline = true;
      if (mod == other) cl.remove.push_back(k);
    } else if (mod == "amdgpu" && (bogus_gtt_key(key) || (key == "gttsize" && !old_kernel))) {
      r.on_cmdline = true;
      cl.remove.push_back(k);
    }
  }
  const std::string pages = std::to_string(rec->value);
  // No boot loader configuration amdml knows: no recipe can change the command line.
  // AMD's DKMS build of TTM (amdttm, always a loadable module) then takes its limit from
  // modprobe.d with the initramfs, when the command line only holds ttm's options (which
  // do not reach amdttm) and nothing that must leave it (amdgpu.gttsize, a misspelling).
  const bool only_other_module = std::all_of(cl.remove.begin(), cl.remove.end(), [&](const std::string& k) {
    return k.rfind(other + ".", 0) == 0;
  });
  if (r.on_cmdline && !old_kernel && !f.os.boot_cmdline && r.module == "amdttm" && only_other_module &&
      !configured_on_cmdline(f, r.module)) {
    r.on_cmdline = false;
    r.fix = FixRef{"ttm-pages-limit", TtmLimitParams{r.module, *rec, *rec}};
    return r;
  }
  if (r.on_cmdline || old_kernel) {
    r.on_cmdline = true;
    cl.set[r.module + ".pages_limit"] = pages;
    cl.set[r.module + ".page_pool_size"] = pages;
    // Before 6.5 amdgpu sized GTT itself, from amdgpu.gttsize (MiB).
    if (old_kernel) cl.set["amdgpu.gttsize"] = std::to_string(rec->bytes().value / kMiB);
    r.fix = FixRef{"kernel-cmdline", cl};
  } else {
    r.fix = FixRef{"ttm-pages-limit", TtmLimitParams{r.module, *rec, *rec}};
  }
  return r;
}

// A configured limit that, once in effect, is what amdml would leave alone: at least
// 80 % of the recommendation and at most max_fraction of RAM.
bool limit_is_fine(const RuleContext& ctx, std::uint64_t pages, Pages target) {
  const double bytes = static_cast<double>(Pages{pages}.bytes().value);
  return bytes >= 0.8 * static_cast<double>(target.bytes().value) &&
         bytes <= ctx.kb.memory.max_fraction * static_cast<double>(ctx.facts.memory.total->value);
}

std::string pages_text(Pages p) { return std::to_string(p.value) + " (" + gib(p.bytes()) + ")"; }

void gtt_limit(const RuleContext& ctx, const std::optional<TtmLimitRequest>& req, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const MemoryKnowledge& mk = ctx.kb.memory;
  if (!f.memory.total) return;
  const Bytes ram = *f.memory.total;
  if (!req) return;
  const Pages* rec = &req->target;
  const TtmModule m = module_in_use(f);
  const TtmParams& tp = params_of(f, m);
  // With a discrete GPU in the box, ML runs there; the iGPU's share of RAM is moot.
  for (const auto& g : f.gpus)
    if (g.apu && !*g.apu && g.driver.value_or("amdgpu") == "amdgpu") return;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    if (!g.apu.value_or(false) || g.driver.value_or("amdgpu") != "amdgpu") continue;
    std::optional<Bytes> limit = g.gtt;
    if (!limit && tp.pages_limit) limit = tp.pages_limit->bytes();
    if (!limit) continue;
    const Bytes carve = g.vram.value_or(Bytes{0});
    const Bytes usable = std::max(carve, *limit);
    const bool above_ram = limit->value > ram.value;
    const bool held = static_cast<double>(usable.value) < 0.8 * static_cast<double>(rec->bytes().value);
    if (!above_ram && !held) continue;

    const bool small_carve = carve.value <= mk.small_carveout_max_mib * kMiB;
    std::string title, detail;
    if (above_ram) {
      title = gpu_label(f, static_cast<int>(i)) + ": the GTT limit (" + gib(*limit) + ") is above system RAM (" + gib(ram) + ")";
      detail = "A GPU allowed to pin more memory than exists can starve the OS and freeze the machine under load.";
    } else {
      title = gpu_label(f, static_cast<int>(i)) + " may use only " + gib(usable) + " of " + gib(ram) + " RAM";
      detail = small_carve ? "The BIOS carve-out is " + gib(carve) + " and GTT is capped by " + to_string(m) +
                                 ".pages_limit (default: half of RAM), so models larger than " + gib(usable) +
                                 " fail to load or fall back to the CPU."
                           : "The carve-out (" + gib(carve) + ") and the GTT limit (" + gib(*limit) +
                                 ") leave most of RAM out of the GPU's reach.";
    }
    const Bytes reserve{ram.value - rec->bytes().value};
    detail += " Recommended: pages_limit=" + std::to_string(rec->value) + " (" + gib(rec->bytes()) + "), leaving " +
              gib(reserve) + " to the OS.";
    auto fd = make_finding(FindingId::memory_gtt_limit, title, detail);
    fd.gpus.push_back(static_cast<int>(i));
    const std::string dev = drm_device_dir(g);
    if (g.gtt) fd.evidence.push_back({dev + "/mem_info_gtt_total", std::to_string(g.gtt->value)});
    if (g.vram) fd.evidence.push_back({dev + "/mem_info_vram_total", std::to_string(g.vram->value)});
    if (tp.pages_limit) fd.evidence.push_back({param_path(m, "pages_limit"), std::to_string(tp.pages_limit->value)});
    fd.evidence.push_back({"/proc/meminfo", "MemTotal " + std::to_string(ram.value / kKiB) + " kB"});

    const auto& kv = f.os.kernel;
    if (kv && *kv < mk.gtt_follows_ttm) {
      // Before 6.5 amdgpu sized GTT itself; amdgpu.gttsize (MiB) is the knob there.
      // Its commands come from the advice stage (the recipe's plan, or the step by hand).
      fd.fix = req->fix;
      fd.notes.push_back("Kernel " + short_version(*kv) + " sizes GTT inside amdgpu; from " + short_version(mk.gtt_follows_ttm) +
                         " GTT follows " + to_string(m) + ".pages_limit.");
    } else {
      // Already configured well (by `amdml fix` or by hand) but not yet loaded: what is
      // left is the initramfs and a reboot, not another change.
      const auto c = configured(f, to_string(m), "pages_limit");
      const auto set = c ? text::u64(c->value) : std::nullopt;
      if (set && limit_is_fine(ctx, *set, *rec) && (!tp.pages_limit || tp.pages_limit->value != *set)) {
        // A pending reboot, not a limit to raise: memory.ttm-pending says so (wrong_module).
        if (tp.pages_limit) continue;
        fd.notes.push_back(std::string(to_string(m)) + ".pages_limit=" + c->value + " is configured (" + c->where +
                           "): it takes effect when " + to_string(m) + " loads again, after the reboot.");
        fd.commands.push_back("sudo update-initramfs -u   # or dracut -f / mkinitcpio -P; then reboot");
      } else {
        fd.fix = req->fix;  // commands: the advice stage's
      }
      if (small_carve && f.os.kernel_release && !mk.rocm_memory_follows_ttm(*f.os.kernel_release))
        fd.notes.push_back("On kernel " + short_version(*kv) + " GTT follows pages_limit, but the memory ROCm reports stays the carve-out "
                           "until Linux " + short_version(mk.apu_prefer_gtt) + " (Ubuntu's 6.14 OEM kernels carry the backport).");
    }
    fd.notes.push_back("Verify after the reboot: cat " + dev + "/mem_info_gtt_total");
    out.push_back(std::move(fd));
  }
}

void wrong_module(const RuleContext& ctx, const std::optional<TtmLimitRequest>& req, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.driver.ttm_in_use == TtmModule::none) return;
  const std::string used = to_string(f.driver.ttm_in_use);
  const std::string other = f.driver.ttm_in_use == TtmModule::ttm ? "amdttm" : "ttm";
  // Options written for the other module, with no option for the module in use.
  std::vector<std::pair<std::string, std::string>> misplaced;  // where, "key=value"
  auto consider = [&](const std::string& where, const std::string& key, const std::string& value) {
    if (!is_ttm_key(key) || configured(f, used, key)) return;
    misplaced.push_back({where, other + "." + key + "=" + value});
  };
  for (const auto& o : f.modprobe.options)
    if (o.module == other) consider(o.file + ":" + std::to_string(o.line), o.key, o.value);
  for (const auto& [k, v] : f.driver.cmdline_options)
    if (k.rfind(other + ".", 0) == 0) consider("/proc/cmdline", k.substr(other.size() + 1), v);
  if (!misplaced.empty()) {
    auto fd = make_finding(FindingId::memory_ttm_wrong_module, "TTM options are set for " + other + ", but amdgpu uses " + used,
                           used == "amdttm"
                               ? "AMD's DKMS driver (amdgpu-dkms) builds its own TTM as amdttm; options for ttm do not reach it."
                               : "The in-tree amdgpu uses the kernel's ttm module; options for amdttm (AMD's DKMS build) are ignored.");
    for (const auto& [where, what] : misplaced) fd.evidence.push_back({where, what});
    fd.evidence.push_back({"/sys/module/" + used + "/holders/amdgpu", f.driver.ttm_in_use == TtmModule::amdttm
                                                                          ? (f.driver.amdttm.holds_amdgpu ? "present" : "amdttm loaded with the DKMS driver")
                                                                          : (f.driver.ttm.holds_amdgpu ? "present" : "ttm loaded")});
    if (req) {
      fd.fix = req->fix;
      fd.detail += " amdml sets " + used + ".pages_limit=" + pages_text(req->target) + ", its recommendation for this RAM.";
    }
    if (!req)  // with a request, the advice stage gives the commands
      fd.commands.push_back("sudo sed -i 's/^options " + other + " /options " + used + " /' /etc/modprobe.d/*.conf   # then update-initramfs -u and reboot");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
  }

  // The running pages_limit differs from the boot configuration, or GTT was sized from
  // another value than the one the parameter shows now (a runtime write).
  const TtmParams& tp = params_of(f, f.driver.ttm_in_use);
  if (!tp.pages_limit) return;
  const std::string live_path = param_path(f.driver.ttm_in_use, "pages_limit");
  if (auto c = configured(f, used, "pages_limit")) {
    auto want = text::u64(c->value);
    if (want && *want != tp.pages_limit->value) {
      // Loading the configured value would not be right either: one change, the same one
      // memory.gtt-limit asks for. Otherwise it is only pending: a reboot away.
      const bool fine = !req || limit_is_fine(ctx, *want, req->target);
      const std::string title = used + ".pages_limit is configured as " + c->value + " but the running value is " +
                                std::to_string(tp.pages_limit->value);
      const std::string why = "The setting is not in effect: it is read when " + used +
                              " loads, so it needs a reboot, and an initramfs rebuild when " + used + " loads from the initramfs.";
      auto fd = fine ? make_finding(FindingId::memory_ttm_pending, title + ": it takes effect after a reboot", why)
                     : make_finding(FindingId::memory_ttm_wrong_module, title, why);
      fd.evidence.push_back({c->where, used + " pages_limit=" + c->value});
      fd.evidence.push_back({live_path, std::to_string(tp.pages_limit->value)});
      if (!fine) {
        fd.detail += " The configured value is not what amdml recommends for this RAM either: it sets " + used +
                     ".pages_limit=" + pages_text(req->target) + ".";
        fd.fix = req->fix;  // commands: the advice stage's
      } else {
        // No recipe: the file already says what it should; the initramfs and a reboot are left.
        fd.commands.push_back("sudo update-initramfs -u   # or dracut -f / mkinitcpio -P");
        fd.commands.push_back("sudo reboot");
      }
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
      return;
    }
  }
  const bool gttsize_set = f.driver.gttsize_param_mib.value_or(-1) > 0;
  if (!gttsize_set && f.os.kernel && *f.os.kernel >= ctx.kb.memory.gtt_follows_ttm) {
    for (std::size_t i = 0; i < f.gpus.size(); ++i) {
      const Gpu& g = f.gpus[i];
      if (!g.gtt || g.driver.value_or("amdgpu") != "amdgpu") continue;
      if (g.gtt->value == tp.pages_limit->bytes().value) continue;
      auto fd = make_finding(FindingId::memory_ttm_wrong_module,
                             used + ".pages_limit was changed after amdgpu loaded: GTT is still " + gib(*g.gtt),
                             "amdgpu sized GTT once at load from the limit then in force; writing " + live_path +
                                 " later only moves TTM's swap threshold.");
      fd.evidence.push_back({live_path, std::to_string(tp.pages_limit->value)});
      fd.evidence.push_back({drm_device_dir(g) + "/mem_info_gtt_total", std::to_string(g.gtt->value)});
      if (req) fd.fix = req->fix;  // commands: the advice stage's
      else fd.commands.push_back("set " + used + ".pages_limit in the boot configuration (modprobe.d or the kernel command line), then reboot");
      fd.gpus.push_back(static_cast<int>(i));
      out.push_back(std::move(fd));
      break;
    }
  }
}

void gttsize(const RuleContext& ctx, const std::optional<TtmLimitRequest>& req, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  // Misspelled parameter names: amdgpu logs "unknown parameter ... ignored".
  for (const auto& [k, v] : f.driver.cmdline_options)
    if (k == "amdgpu.gtt_size" || k == "amdgpu.ggtsize" || k == "amdgpu.gtt") {
      auto fd = make_finding(FindingId::memory_ttm_wrong_module, k + " is not an amdgpu parameter and is ignored",
                             "amdgpu logs \"unknown parameter '" + k.substr(7) + "' ignored\"; the GTT size stays the default.");
      fd.evidence.push_back({"/proc/cmdline", k + "=" + v});
      if (req && req->on_cmdline) fd.fix = req->fix;  // commands: the advice stage's
      else fd.commands.push_back("remove " + text::shell_word(k + "=" + v) + " from the kernel command line; set ttm.pages_limit instead");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
    }
  for (const auto& o : f.modprobe.options)
    if (o.module == "amdgpu" && (o.key == "gtt_size" || o.key == "ggtsize" || o.key == "gtt")) {
      auto fd = make_finding(FindingId::memory_ttm_wrong_module, "amdgpu " + o.key + " is not an amdgpu parameter and is ignored",
                             "amdgpu logs \"unknown parameter '" + o.key + "' ignored\"; the GTT size stays the default.");
      fd.evidence.push_back({o.file + ":" + std::to_string(o.line), "options amdgpu " + o.key + "=" + o.value});
      fd.commands.push_back("remove line " + std::to_string(o.line) + " of " + text::shell_word(o.file) + "; set ttm.pages_limit instead");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
    }
  // gttsize set: deprecated on 6.15+, and it moves GTT without moving TTM's limit.
  const auto mib = f.driver.gttsize_param_mib ? f.driver.gttsize_param_mib : f.driver.gttsize_cmdline_mib;
  if (!mib || *mib <= 0) return;
  const TtmModule m = module_in_use(f);
  const TtmParams& tp = params_of(f, m);
  if (!tp.pages_limit) return;
  const std::uint64_t gtt_bytes = static_cast<std::uint64_t>(*mib) * kMiB;
  const std::uint64_t ttm_bytes = tp.pages_limit->bytes().value;
  // Agreeing within 1 MiB of rounding is agreement.
  const std::uint64_t diff = gtt_bytes > ttm_bytes ? gtt_bytes - ttm_bytes : ttm_bytes - gtt_bytes;
  if (diff <= kMiB) return;
  const bool deprecated = f.os.kernel && *f.os.kernel >= ctx.kb.memory.gttsize_deprecated;
  auto fd = make_finding(FindingId::memory_ttm_wrong_module,
                         "amdgpu.gttsize (" + std::to_string(*mib) + " MiB) disagrees with " + to_string(m) + ".pages_limit (" +
                             std::to_string(ttm_bytes / kMiB) + " MiB)",
                         "gttsize sizes GTT but not TTM's limit, so allocations past " + std::to_string(ttm_bytes / kMiB) +
                             " MiB still fail and ROCm on newer kernels follows pages_limit." +
                             (deprecated ? " This kernel also logs gttsize as deprecated." : ""));
  fd.evidence.push_back({"/sys/module/amdgpu/parameters/gttsize", std::to_string(*mib)});
  fd.evidence.push_back({param_path(m, "pages_limit"), std::to_string(tp.pages_limit->value)});
  if (req) {
    fd.fix = req->fix;
    fd.detail += " amdml sets " + std::string(to_string(m)) + ".pages_limit=" + pages_text(req->target) +
                 (req->on_cmdline ? " and removes amdgpu.gttsize from the kernel command line." : ".");
  }
  if (!req) fd.commands.push_back("remove amdgpu.gttsize from the kernel command line and /etc/modprobe.d");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

bool gtt_related(const std::string& module, const std::string& key) {
  return ((module == "ttm" || module == "amdttm") && is_ttm_key(key)) || (module == "amdgpu" && (key == "gttsize" || bogus_gtt_key(key)));
}

}  // namespace

std::optional<std::string> modprobe_setting(const Facts& f, const std::string& module, const std::string& key) {
  auto c = configured(f, formats::parse::modprobe_name(module), formats::parse::modprobe_name(key));
  if (!c) return std::nullopt;
  return c->value;
}

std::vector<std::string> modprobe_view_notes(const Facts& f) {
  std::vector<std::string> out;
  // A later setting wins: modprobe.d files by name, then the kernel command line.
  for (const char* module : {"ttm", "amdttm", "amdgpu"})
    for (const char* key : {"pages_limit", "page_pool_size", "gttsize"}) {
      if (!gtt_related(module, key)) continue;
      const auto all = settings(f, module, key);
      for (std::size_t i = 0; i + 1 < all.size(); ++i)
        if (all[i].value != all.back().value)
          out.push_back(all[i].where + " sets " + module + "." + key + "=" + all[i].value + ", but " + all.back().where +
                        " sets " + all.back().value + " and is read later: " + all.back().value + " applies.");
    }
  // Lines modprobe skips ("ignoring bad line"): a key=value outside an options line.
  for (const auto& u : f.modprobe.unparsable) {
    const std::string name = formats::parse::modprobe_name(u.message);
    if (name.find("pages_limit") == std::string::npos && name.find("page_pool_size") == std::string::npos &&
        name.find("gttsize") == std::string::npos)
      continue;
    out.push_back(u.path + " `" + u.message + "` is not a modprobe command: modprobe ignores the line, so it sets nothing "
                  "(the form is `options MODULE key=value`).");
  }
  for (const auto& o : f.modprobe.unread)
    if (gtt_related(o.module, o.key))
      out.push_back(o.file + ":" + std::to_string(o.line) + " sets " + o.module + "." + o.key + "=" + o.value +
                    ", but modprobe reads only files whose names end in .conf: it sets nothing.");
  return out;
}

namespace {

// The kernel-cmdline request is already in the boot loader's configuration (amdml fix
// or a person wrote it) but this boot predates it: nothing to change, only a reboot.
bool in_boot_config(const Facts& f, const KernelCmdlineParams& p) {
  if (!f.os.boot_cmdline) return false;
  std::map<std::string, std::string> next;
  for (const auto& [k, v] : formats::parse::cmdline(*f.os.boot_cmdline)) next[formats::parse::modprobe_name(k)] = v;
  for (const auto& [k, v] : p.set)
    if (auto it = next.find(formats::parse::modprobe_name(k)); it == next.end() || it->second != v) return false;
  for (const auto& k : p.remove)
    if (next.count(formats::parse::modprobe_name(k))) return false;
  return true;
}

void reboot_pending(const RuleContext& ctx, const std::optional<TtmLimitRequest>& req, std::vector<Finding>& out,
                    std::size_t first) {
  if (!req || !req->on_cmdline) return;
  const auto& p = std::get<KernelCmdlineParams>(req->fix.params);
  if (!in_boot_config(ctx.facts, p)) return;
  for (std::size_t i = first; i < out.size(); ++i) {
    Finding& fd = out[i];
    if (!fd.fix || fd.fix->recipe != req->fix.recipe || !(fd.fix->params == req->fix.params)) continue;
    fd.fix.reset();
    fd.commands.clear();
    fd.roles.clear();
    fd.add_command("sudo reboot", CommandRole::run);
    fd.notes.push_back(ctx.facts.os.boot_cmdline_file + " already gives the next boot " + req->module + ".pages_limit=" +
                       std::to_string(req->target.value) + ": it takes effect after the reboot.");
  }
}

}  // namespace

void memory_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  if (!any_amd_gpu_driven(ctx.facts)) return;
  const std::size_t first = out.size();
  // One TTM request for every memory finding (the same recipe, the same limit).
  const auto req = ttm_request(ctx);
  gtt_limit(ctx, req, out);
  wrong_module(ctx, req, out);
  gttsize(ctx, req, out);
  reboot_pending(ctx, req, out, first);
  // What modprobe ignores or overrides, on the first memory finding: the person sees
  // which of their lines do not count.
  if (out.size() > first)
    for (auto& n : modprobe_view_notes(ctx.facts)) out[first].notes.push_back(std::move(n));
}

}  // namespace amdml::rules
