// gfx.override-needed, gfx.unsupported, gfx.override-unneeded, gfx.override-pending:
// does the ROCm stack have kernels for each GPU's gfx target, and if not, which
// HSA_OVERRIDE_GFX_VERSION makes it run another target's code of the same ISA.
// gfx.override-invalid (a value set that does not fit) is gfx_override_invalid.cpp's.
//
// The override is read the way libhsakmt reads it: the per-node variable
// HSA_OVERRIDE_GFX_VERSION_<KFD node> wins over the global one, and the global one
// applies to every GPU -- which is what breaks mixed boxes.
#include <algorithm>
#include <map>
#include <set>

#include "rules/gfx_override.hpp"

namespace amdml::rules::gfx {

std::string gpu_name(const Gpu& g) {
  std::string s = g.marketing_name.value_or("GPU");
  if (g.gfx) s += " (" + g.gfx->name() + ")";
  return s;
}

bool per_node_supported(const RuleContext& ctx, const Stack& st) {
  // Without an installed ROCm the bundled runtimes (PyTorch, ollama) are current.
  if (!st.installed) return true;
  return *ctx.facts.rocm.version >= ctx.kb.per_node_override_since;
}

bool global_value_fits(const RuleContext& ctx, const Stack& st, int j, const GfxTarget& value) {
  const Gpu& g = ctx.facts.gpus[static_cast<std::size_t>(j)];
  if (!g.gfx) return false;
  if (*g.gfx == value) return true;
  const GfxInfo* info = ctx.kb.find_gfx(*g.gfx);
  return info && info->override_to == value && st.release->has_kernels(value);
}

std::vector<const LoginEnv*> login_setters(const Facts& f, const std::string& var) {
  std::vector<const LoginEnv*> out;
  for (const auto& e : f.login_env)
    if (e.name == var) out.push_back(&e);
  return out;
}

std::string login_sets_all(const Facts& f, const HsaParams& params) {
  std::string where;
  for (const auto& [node, v] : params.per_node) {
    auto w = login_sets(f, "HSA_OVERRIDE_GFX_VERSION_" + node, v);
    if (!w) return "";
    where += (where.empty() ? "" : ", ") + *w;
  }
  return where;
}

void add_override_commands(Finding& fd, const HsaParams& params) {
  if (params.value) {
    fd.commands.push_back("export HSA_OVERRIDE_GFX_VERSION=" + text::shell_word(*params.value));
  } else {
    for (const auto& [node, v] : params.per_node)
      fd.commands.push_back("export " + text::shell_word("HSA_OVERRIDE_GFX_VERSION_" + node + "=" + v));
  }
}

namespace {

GpuNeed assess(const RuleContext& ctx, const Stack& st, int i) {
  const Gpu& g = ctx.facts.gpus[static_cast<std::size_t>(i)];
  GpuNeed n;
  n.index = i;
  if (!g.gfx || !st.release) return n;
  if (st.release->has_kernels(*g.gfx)) {
    n.need = Need::native;
    return n;
  }
  const GfxInfo* info = ctx.kb.find_gfx(*g.gfx);
  if (info && info->override_to && st.release->has_kernels(*info->override_to) &&
      override_compatible(ctx.kb, *g.gfx, *info->override_to)) {
    n.need = Need::override;
    n.value = info->override_to;
    return n;
  }
  n.need = info ? Need::unsupported : Need::unknown;
  return n;
}

// The choice of release rocm-install moves an installed ROCm to when that release has
// native kernels for every GPU in `want` (the one choice rocm.version makes too), else
// nothing.
std::optional<RocmChoice> upgrade_runs_natively(const RuleContext& ctx, const Stack& st,
                                                       const std::vector<const GpuNeed*>& want) {
  if (!st.installed || !st.release) return std::nullopt;
  auto c = choose_rocm(ctx);
  if (!c.params || !c.release || !(st.release->version < c.release->version)) return std::nullopt;
  for (const auto* n : want)
    if (!c.release->has_kernels(*ctx.facts.gpus[static_cast<std::size_t>(n->index)].gfx)) return std::nullopt;
  return c;
}

// The GPUs that need an override and have none set (a value set that does not fit is
// gfx.override-invalid's).
std::vector<const GpuNeed*> wanting_override(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs) {
  const Facts& f = ctx.facts;
  std::vector<const GpuNeed*> want;
  for (const auto& n : needs) {
    if (n.need != Need::override) continue;
    // Already covered by a valid, compatible override whose target has kernels.
    const Gpu& g = f.gpus[static_cast<std::size_t>(n.index)];
    if (auto set = override_for(f, g)) {
      if (set->parse.target && st.release->has_kernels(*set->parse.target) &&
          override_compatible(ctx.kb, *g.gfx, *set->parse.target))
        continue;
      if (set->parse.target || set->parse.error != OverrideError::none) continue;  // gfx.override-invalid says it
    }
    want.push_back(&n);
  }
  return want;
}

// "HSA_OVERRIDE_GFX_VERSION=11.0.0", or the per-node assignments joined by blanks.
std::string assignments(const HsaParams& params) {
  std::string how = params.value ? "HSA_OVERRIDE_GFX_VERSION=" + *params.value : std::string();
  for (const auto& [node, v] : params.per_node) how += (how.empty() ? "" : " ") + ("HSA_OVERRIDE_GFX_VERSION_" + node + "=" + v);
  return how;
}

// A ROCm older than the per-node form: hide the GPUs a global value would break.
void hide_gpus(const RuleContext& ctx, const Stack& st, const std::vector<const GpuNeed*>& want, const std::string& native,
               Finding& fd) {
  const GpuNeed& first = *want.front();
  if (!native.empty()) {
    fd.commands.push_back("export ROCR_VISIBLE_DEVICES=" + text::shell_word(native) + "   # use only the GPUs that need no override");
  } else {
    std::string keep;
    for (const auto* n : want)
      if (*n->value == *first.value) keep += (keep.empty() ? "" : ",") + rocr_device_name(ctx.facts, n->index);
    fd.commands.push_back("export ROCR_VISIBLE_DEVICES=" + text::shell_word(keep));
    fd.commands.push_back("export HSA_OVERRIDE_GFX_VERSION=" + first.value->version_string());
  }
  fd.notes.push_back(st.label + " predates the per-node HSA_OVERRIDE_GFX_VERSION_<node> form (ROCm " +
                     short_version(ctx.kb.per_node_override_since) + "), so hide GPUs instead.");
}

void override_needed(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs,
                     std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const std::vector<const GpuNeed*> want = wanting_override(ctx, st, needs);
  if (want.empty()) return;

  // One global value when every ROCm-visible GPU runs fine under it; else per node.
  std::set<GfxTarget> values;
  for (const auto* n : want) values.insert(*n->value);
  bool global_ok = values.size() == 1;
  if (global_ok)
    for (std::size_t j = 0; j < f.gpus.size(); ++j)
      if (f.gpus[j].kfd_node && !global_value_fits(ctx, st, static_cast<int>(j), *values.begin())) global_ok = false;

  std::string names;
  for (const auto* n : want) names += (names.empty() ? "" : ", ") + gpu_name(f.gpus[static_cast<std::size_t>(n->index)]);
  const GpuNeed& first = *want.front();
  const Gpu& g0 = f.gpus[static_cast<std::size_t>(first.index)];
  std::string title = global_ok ? names + " needs HSA_OVERRIDE_GFX_VERSION=" + first.value->version_string()
                                : names + " need per-GPU HSA_OVERRIDE_GFX_VERSION_<node> values";
  std::string detail = st.label + " ships no " + g0.gfx->name() + " kernels";
  if (want.size() > 1) detail = st.label + " ships no kernels for these targets";
  detail += "; they run the " + first.value->name() + " (" + first.value->version_string() +
            ") code of the same ISA family when the override says so.";
  if (!global_ok)
    detail += " A single global value would break another GPU in this box, so set it per KFD node (CPU nodes count).";
  auto fd = make_finding(FindingId::gfx_override_needed, title, detail);
  for (const auto* n : want) {
    const Gpu& g = f.gpus[static_cast<std::size_t>(n->index)];
    fd.gpus.push_back(n->index);
    fd.evidence.push_back(gfx_evidence(g));
    if (const auto* info = ctx.kb.find_gfx(*g.gfx); info && !info->override_caveat.empty())
      fd.notes.push_back(g.gfx->name() + " -> " + n->value->version_string() + ": " + info->override_caveat);
  }
  fd.evidence.push_back(rocm_evidence(f));
  fd.evidence.push_back({"env HSA_OVERRIDE_GFX_VERSION", f.env.count("HSA_OVERRIDE_GFX_VERSION") ? f.env.at("HSA_OVERRIDE_GFX_VERSION") : "unset"});

  HsaParams params;
  if (global_ok) {
    params.value = first.value->version_string();
  } else {
    for (const auto* n : want)
      params.per_node[std::to_string(*f.gpus[static_cast<std::size_t>(n->index)].kfd_node)] = n->value->version_string();
  }
  // The GPUs that run natively: hiding the others is the alternative to an override.
  std::string native;
  for (const auto& n : needs)
    if (n.need == Need::native) native += (native.empty() ? "" : ",") + rocr_device_name(f, n.index);
  // Already set for new logins (by `amdml fix` or by hand) but not in this process:
  // what is left is a new login, not another change.
  std::string pending_where;
  if (global_ok) {
    if (auto w = login_sets(f, "HSA_OVERRIDE_GFX_VERSION", *params.value)) pending_where = *w;
  } else {
    pending_where = login_sets_all(f, params);
  }
  if (!pending_where.empty()) {
    // Configured; takes effect after a new login: a pending state, not a change to make.
    fd.id = FindingId::gfx_override_pending;
    fd.severity = default_severity(fd.id);
    fd.title = assignments(params) + " is configured for new logins: it takes effect after a new login";
    fd.detail += " New login sessions get it (" + pending_where + "); this session started before that.";
    add_override_commands(fd, params);
    fd.notes.push_back("New login sessions already get this setting (" + pending_where +
                       "): log out and in again, or export it in this shell; restart services that need it.");
  } else if (auto up = upgrade_runs_natively(ctx, st, want)) {
    // The plan moves ROCm to a release with these GPUs' own kernels (rocm.version asks
    // for the same rocm-install): an override set beside it would be unneeded the moment
    // it lands, so the one fix is the move, and the override is the way to stay.
    fd.title = st.label + " has no kernels for " + names + "; ROCm " + up->params->release + " has";
    fd.detail = st.label + " ships no " + (want.size() > 1 ? std::string("kernels for these targets") : g0.gfx->name() + " kernels") +
                "; ROCm " + up->params->release + " runs " + (want.size() > 1 ? "them" : "it") + " natively.";
    auto caveats = std::move(fd.notes);
    fd.notes.clear();
    attach_rocm_install(*up, fd);
    fd.notes.push_back("To stay on " + st.label + " instead, set " + assignments(params) + ": it makes " + st.label + " run the " +
                       first.value->name() + " code of the same ISA family.");
    for (auto& n : caveats) fd.notes.push_back(std::move(n));
  } else if (global_ok || per_node_supported(ctx, st)) {
    fd.fix = FixRef{"hsa-override", params};  // commands: the advice stage's (the plan's, or the step by hand)
    if (!native.empty())
      fd.notes.push_back("Alternative: use only the GPUs that need no override: export ROCR_VISIBLE_DEVICES=" + text::shell_word(native));
  } else {
    hide_gpus(ctx, st, want, native, fd);
  }
  out.push_back(std::move(fd));
}

std::string vulkan_note(const Knowledge& kb) {
  return "For LLMs, use a Vulkan backend instead: llama.cpp built with -DGGML_VULKAN=ON, or ollama's Vulkan path "
         "(OLLAMA_VULKAN=1 before ollama " + short_version(kb.ollama_policy.vulkan_default_from) + ", on by default since).";
}

// A GPU no ROCm release runs (GCN 1/2, old APUs, anything on radeon): say so and point to
// Vulkan, rather than to amdgpu or a ROCm upgrade that cannot help.
Finding never_supported(const RuleContext& ctx, const Gpu& g, int index) {
  const Facts& f = ctx.facts;
  const GfxInfo* info = g.gfx ? ctx.kb.find_gfx(*g.gfx) : nullptr;
  const bool radeon = g.driver.value_or("") == "radeon";
  std::string what = g.gfx ? g.gfx->name() + (info ? " (" + info->family + ")" : "") : "this GPU";
  std::string releases = ctx.kb.rocm.empty() ? std::string("no ROCm release amdml knows")
                                               : "no ROCm release from " + short_version(ctx.kb.rocm.front().version) +
                                                     " to " + short_version(ctx.kb.rocm.back().version);
  auto fd = make_finding(FindingId::gfx_unsupported, gpu_name(g) + ": no ROCm release supports " + (g.gfx ? g.gfx->name() : "it"),
                         "ROCm does not run on " + what + ": " + releases + " lists it or ships its kernels, and no "
                         "override fits its ISA, so binding it to amdgpu or installing another ROCm does not help.");
  if (radeon)
    fd.detail += " It is driven by the old radeon driver, which drives nothing newer than GCN 2.";
  fd.gpus.push_back(index);
  fd.evidence.push_back(gfx_evidence(g));
  if (!g.kfd_node)
    fd.evidence.push_back({"/sys/bus/pci/devices/" + g.pci_slot.value_or("?") + "/driver", g.driver.value_or("no driver")});
  fd.evidence.push_back(rocm_evidence(f));
  fd.notes.push_back(vulkan_note(ctx.kb));
  if (info && !info->notes.empty()) fd.notes.push_back(info->notes);
  return fd;
}

void unsupported(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  for (const auto& n : needs) {
    if (n.need != Need::unsupported) continue;
    const Gpu& g = f.gpus[static_cast<std::size_t>(n.index)];
    // A valid override to a compatible target with kernels makes it work after all.
    if (auto set = override_for(f, g); set && set->parse.target && st.release->has_kernels(*set->parse.target) &&
                                       override_compatible(ctx.kb, *g.gfx, *set->parse.target))
      continue;
    const GfxInfo* info = ctx.kb.find_gfx(*g.gfx);
    if (rocm_never(ctx.kb, g)) {
      out.push_back(never_supported(ctx, g, n.index));
      continue;
    }
    auto fd = make_finding(FindingId::gfx_unsupported, gpu_name(g) + ": no ROCm kernels in " + st.label + " and no safe override",
                           st.label + " ships no " + g.gfx->name() + " kernels, and no other target's code runs on its ISA (" +
                               to_string(info->isa) + ", wave" + std::to_string(info->wave_size) + ").");
    fd.gpus.push_back(n.index);
    fd.evidence.push_back(gfx_evidence(g));
    fd.evidence.push_back(rocm_evidence(f));
    const RocmRelease* later = nullptr;
    const RocmRelease* last = nullptr;
    for (const auto& r : ctx.kb.rocm) {
      if (!r.has_kernels(*g.gfx)) continue;
      if (r.version > st.release->version && !later) later = &r;
      if (r.version < st.release->version) last = &r;
    }
    if (later) {
      fd.detail += " ROCm " + short_version(later->version) + " and newer have them: upgrade ROCm.";
      // The wheel `explain` recommends too (Knowledge::pytorch_for).
      if (auto pc = ctx.kb.pytorch_for({*g.gfx}); pc.wheel && !pc.needs_override)
        fd.commands.push_back("pip install torch --index-url " + pc.wheel->index + "   # PyTorch with its own ROCm " +
                              short_version(pc.wheel->rocm) + " runtime");
    } else if (last) {
      fd.detail += " ROCm " + short_version(last->version) + " was the last release with them.";
      if (!last->pytorch_index.empty())
        fd.commands.push_back("pip install torch --index-url " + last->pytorch_index + "   # the last PyTorch built for it");
    } else {
      fd.detail += " No ROCm release amdml knows ships them.";
    }
    fd.notes.push_back(vulkan_note(ctx.kb));
    if (info && !info->notes.empty()) fd.notes.push_back(info->notes);
    out.push_back(std::move(fd));
  }
}

void override_unneeded(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs,
                       std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  // Only against a ROCm whose version is known: bundled runtimes (ollama) may lack the
  // native kernels the newest release has.
  if (!st.installed) return;
  std::vector<int> idx;
  std::optional<OverrideSetting> shown;
  for (const auto& n : needs) {
    if (n.need != Need::native) continue;
    const Gpu& g = f.gpus[static_cast<std::size_t>(n.index)];
    auto set = override_for(f, g);
    if (!set || !set->parse.target || *set->parse.target == *g.gfx) continue;
    if (!override_compatible(ctx.kb, *g.gfx, *set->parse.target)) continue;  // gfx.override-invalid
    idx.push_back(n.index);
    if (!shown) shown = set;
  }
  if (idx.empty()) return;
  std::string names;
  for (int i : idx) names += (names.empty() ? "" : ", ") + gpu_name(f.gpus[static_cast<std::size_t>(i)]);
  auto fd = make_finding(FindingId::gfx_override_unneeded, shown->var + " is no longer needed for " + names,
                         st.label + " has native kernels for it; the override makes it run another target's code, "
                                    "which can be slower or use instructions tuned for a different chip.");
  fd.gpus = idx;
  fd.evidence.push_back({"env " + shown->var, shown->value});
  fd.evidence.push_back(rocm_evidence(f));
  fd.commands.push_back("unset " + text::shell_word(shown->var));
  out.push_back(std::move(fd));
}

}  // namespace

}  // namespace amdml::rules::gfx

namespace amdml::rules {

void gfx_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  Stack st = ml_stack(ctx);
  if (!st.release) return;
  std::vector<gfx::GpuNeed> needs;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    // A GPU no ROCm runs is assessed even without a KFD node (radeon, or KFD lacks it).
    if (g.gfx && (g.kfd_node || rocm_never(ctx.kb, g))) needs.push_back(gfx::assess(ctx, st, static_cast<int>(i)));
    else if (rocm_never(ctx.kb, g)) out.push_back(gfx::never_supported(ctx, g, static_cast<int>(i)));
  }
  gfx::override_invalid(ctx, st, needs, out);
  gfx::login_override_invalid(ctx, needs, out);
  gfx::override_needed(ctx, st, needs, out);
  gfx::unsupported(ctx, st, needs, out);
  gfx::override_unneeded(ctx, st, needs, out);
}

void cross_reference(std::vector<Finding>& out) {
  // ollama.env asks its recipe for an HSA override only when the service exists and
  // lacks the one the GPU needs: then, and only then, the login setting has a twin there.
  bool ollama_gets_override = false;
  for (const auto& fd : out)
    if (const auto* p = fd.fix && fd.fix->recipe == "ollama-override" ? std::get_if<EnvParams>(&fd.fix->params) : nullptr)
      for (const auto& [k, v] : p->env)
        if (k.starts_with("HSA_OVERRIDE_GFX_VERSION")) ollama_gets_override = true;
  if (!ollama_gets_override) return;
  for (auto& fd : out)
    if (fd.id == FindingId::gfx_override_needed)
      fd.notes.push_back("For the ollama service, `amdml fix` writes the same value into its systemd drop-in "
                         "(recipe ollama-override).");
}

}  // namespace amdml::rules
