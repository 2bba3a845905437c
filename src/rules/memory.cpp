// memory.gtt-limit and memory.ttm-wrong-module: how much system memory an APU's GPU
// may use, and whether the knobs people set for it actually reach the driver.
//
// On an APU, ROCm memory is the BIOS carve-out plus GTT; GTT is capped by TTM's
// pages_limit (half of RAM by default) of the TTM module amdgpu uses -- `ttm` for the
// in-tree driver, `amdttm` for AMD's DKMS driver. The limit is read once when amdgpu
// loads, so only a module option or the kernel command line changes it.
#include <algorithm>
#include <cstdio>

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
std::optional<Configured> configured(const Facts& f, const std::string& module, const std::string& key) {
  if (auto it = f.driver.cmdline_options.find(module + "." + key); it != f.driver.cmdline_options.end())
    return Configured{it->second, "/proc/cmdline"};
  std::optional<Configured> last;
  for (const auto& o : f.modprobe.options)
    if (o.module == module && o.key == key) last = Configured{o.value, o.file + ":" + std::to_string(o.line)};
  return last;
}

bool any_amd_gpu_driven(const Facts& f) {
  for (const auto& g : f.gpus)
    if (g.driver.value_or("") == "amdgpu" || g.kfd_node) return true;
  return false;
}

void gtt_limit(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const MemoryKnowledge& mk = ctx.kb.memory;
  if (!f.memory.total) return;
  const Bytes ram = *f.memory.total;
  auto rec = mk.recommended_pages_limit(ram);
  if (!rec) return;
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
      fd.commands.push_back("add amdgpu.gttsize=" + std::to_string(rec->bytes().value / kMiB) + " " + to_string(m) +
                            ".pages_limit=" + std::to_string(rec->value) + " to the kernel command line, then reboot");
      fd.notes.push_back("Kernel " + short_version(*kv) + " sizes GTT inside amdgpu; from " + short_version(mk.gtt_follows_ttm) +
                         " GTT follows ttm.pages_limit, which is what `amdml fix` sets.");
    } else {
      // Already configured at least as high (by `amdml fix` or by hand) but not yet
      // loaded: what is left is the initramfs and a reboot, not another change.
      const auto c = configured(f, to_string(m), "pages_limit");
      const auto set = c ? text::u64(c->value) : std::nullopt;
      if (set && *set >= rec->value && (!tp.pages_limit || tp.pages_limit->value != *set)) {
        fd.notes.push_back(std::string(to_string(m)) + ".pages_limit=" + c->value + " is configured (" + c->where +
                           "): it takes effect when " + to_string(m) + " loads again, after the reboot.");
      } else {
        TtmLimitParams params{to_string(m), Pages{rec->value}, Pages{rec->value}};
        fd.fix = FixRef{"ttm-pages-limit", params};
        fd.commands.push_back("echo 'options " + std::string(to_string(m)) + " pages_limit=" + std::to_string(rec->value) +
                              " page_pool_size=" + std::to_string(rec->value) + "' | sudo tee /etc/modprobe.d/" + to_string(m) +
                              ".conf");
      }
      fd.commands.push_back("sudo update-initramfs -u   # or dracut -f / mkinitcpio -P; then reboot");
      if (small_carve && f.os.kernel_release && !mk.rocm_memory_follows_ttm(*f.os.kernel_release))
        fd.notes.push_back("On kernel " + short_version(*kv) + " GTT follows pages_limit, but the memory ROCm reports stays the carve-out "
                           "until Linux " + short_version(mk.apu_prefer_gtt) + " (Ubuntu's 6.14 OEM kernels carry the backport).");
    }
    fd.notes.push_back("Verify after the reboot: cat " + dev + "/mem_info_gtt_total");
    out.push_back(std::move(fd));
  }
}

bool is_ttm_key(const std::string& k) { return k == "pages_limit" || k == "page_pool_size"; }

void wrong_module(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  if (f.driver.ttm_in_use == TtmModule::none) return;
  const std::string used = to_string(f.driver.ttm_in_use);
  const std::string other = f.driver.ttm_in_use == TtmModule::ttm ? "amdttm" : "ttm";
  // Options written for the other module, with no option for the module in use.
  std::vector<std::pair<std::string, std::string>> misplaced;  // where, "key=value"
  TtmLimitParams params{used, {}, {}};
  auto consider = [&](const std::string& where, const std::string& key, const std::string& value) {
    if (!is_ttm_key(key) || configured(f, used, key)) return;
    misplaced.push_back({where, other + "." + key + "=" + value});
    if (auto n = text::u64(value)) (key == "pages_limit" ? params.pages_limit : params.page_pool_size) = Pages{*n};
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
    if (params.pages_limit) fd.fix = FixRef{"ttm-pages-limit", params};
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
      auto fd = make_finding(FindingId::memory_ttm_wrong_module, used + ".pages_limit is configured as " + c->value + " but the running value is " +
                                                            std::to_string(tp.pages_limit->value),
                             "The setting is not in effect: it is read when " + used +
                                 " loads, so it needs a reboot, and an initramfs rebuild when " + used + " loads from the initramfs.");
      fd.evidence.push_back({c->where, used + " pages_limit=" + c->value});
      fd.evidence.push_back({live_path, std::to_string(tp.pages_limit->value)});
      // No recipe: the file already says what it should; the initramfs and a reboot are left.
      fd.commands.push_back("sudo update-initramfs -u   # or dracut -f / mkinitcpio -P");
      fd.commands.push_back("sudo reboot");
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
      fd.fix = FixRef{"ttm-pages-limit", TtmLimitParams{used, Pages{tp.pages_limit->value}, {}}};
      fd.commands.push_back("echo 'options " + used + " pages_limit=" + std::to_string(tp.pages_limit->value) +
                            "' | sudo tee /etc/modprobe.d/" + used + ".conf && sudo update-initramfs -u && sudo reboot");
      fd.gpus.push_back(static_cast<int>(i));
      out.push_back(std::move(fd));
      break;
    }
  }
}

void gttsize(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  // Misspelled parameter names: amdgpu logs "unknown parameter ... ignored".
  for (const auto& [k, v] : f.driver.cmdline_options)
    if (k == "amdgpu.gtt_size" || k == "amdgpu.ggtsize" || k == "amdgpu.gtt") {
      auto fd = make_finding(FindingId::memory_ttm_wrong_module, k + " is not an amdgpu parameter and is ignored",
                             "amdgpu logs \"unknown parameter '" + k.substr(7) + "' ignored\"; the GTT size stays the default.");
      fd.evidence.push_back({"/proc/cmdline", k + "=" + v});
      fd.commands.push_back("remove " + k + "=" + v + " from the kernel command line; set ttm.pages_limit instead");
      fd.gpus = amd_gpu_indices(f);
      out.push_back(std::move(fd));
    }
  for (const auto& o : f.modprobe.options)
    if (o.module == "amdgpu" && (o.key == "gtt_size" || o.key == "ggtsize" || o.key == "gtt")) {
      auto fd = make_finding(FindingId::memory_ttm_wrong_module, "amdgpu " + o.key + " is not an amdgpu parameter and is ignored",
                             "amdgpu logs \"unknown parameter '" + o.key + "' ignored\"; the GTT size stays the default.");
      fd.evidence.push_back({o.file + ":" + std::to_string(o.line), "options amdgpu " + o.key + "=" + o.value});
      fd.commands.push_back("remove that line; set ttm.pages_limit instead");
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
  const std::uint64_t pages = std::max(gtt_bytes, ttm_bytes) / kPageSize;
  const std::uint64_t capped = f.memory.total ? std::min<std::uint64_t>(pages, Pages::from_bytes(*f.memory.total).value) : pages;
  fd.fix = FixRef{"ttm-pages-limit", TtmLimitParams{to_string(m), Pages{capped}, {}}};
  fd.commands.push_back("remove amdgpu.gttsize from the kernel command line and /etc/modprobe.d");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

}  // namespace

void memory_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  if (!any_amd_gpu_driven(ctx.facts)) return;
  gtt_limit(ctx, out);
  wrong_module(ctx, out);
  gttsize(ctx, out);
}

}  // namespace amdml::rules
