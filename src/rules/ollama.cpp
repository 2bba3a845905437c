// ollama diagnoses: ollama.env (the service's environment lacks what this GPU needs, or
// carries a broken setting), ollama.access (the service user cannot open the devices),
// ollama.gfx-unsupported (this build has no ROCm kernels for the GPU and no override
// rescues it) and ollama.driver (the ROCm it bundles needs a newer driver).
//
// The judgement follows ollama's own filter: a GPU is used by the ROCm backend when its
// gfx -- after a global HSA_OVERRIDE_GFX_VERSION -- has rocBLAS files in the build;
// from v0.30 an iGPU is then dropped unless OLLAMA_IGPU_ENABLE is set. The service
// never sees the shell's environment, so only the merged unit environment counts.
#include <algorithm>
#include <map>

#include "formats/systemd_unit.hpp"
#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {

bool ships(const OllamaBuild& b, const GfxTarget& g) {
  return std::find(b.targets.begin(), b.targets.end(), g) != b.targets.end();
}

// "v0.18.0 to the last release before v0.31.2": the newest run of adjacent ranges of
// the ollama release data (Knowledge::ollama) that ships gfx, for the advice to
// downgrade; nullopt when no release ships it.
std::optional<std::string> last_range_with(const Knowledge& kb, const GfxTarget& gfx) {
  const auto& t = kb.ollama;
  for (auto it = t.rbegin(); it != t.rend(); ++it) {
    if (!ships(*it, gfx)) continue;
    // widen to the earliest adjacent range that also ships it
    auto first = it;
    while (std::next(first) != t.rend() && ships(*std::next(first), gfx)) ++first;
    std::string s = "v" + first->from.str() + " to ";
    if (!it->until) return s + "the current release";
    // the release before `until`: show "before vX" rather than guess its number
    return s + "the last release before v" + it->until->str();
  }
  return std::nullopt;
}

// The gfx targets this ollama's ROCm backend ships, and where that knowledge came from.
struct Shipped {
  std::vector<GfxTarget> targets;
  std::string source;
};

std::optional<Shipped> shipped_targets(const Knowledge& kb, const OllamaFacts& o) {
  if (!o.rocblas_targets.empty())
    return Shipped{o.rocblas_targets, *o.rocm_dir + "/rocblas/library"};
  if (!o.version) return std::nullopt;
  const auto* b = kb.find_ollama(*o.version);
  if (!b) return std::nullopt;
  Shipped s;
  s.targets = b->targets;
  s.source = "ollama v" + o.version->str() + " release targets";
  return s;
}

bool contains(const std::vector<GfxTarget>& v, const GfxTarget& g) { return std::find(v.begin(), v.end(), g) != v.end(); }

std::optional<Version> bundled_rocm(const Knowledge& kb, const OllamaFacts& o) {
  if (o.bundled_rocm) return o.bundled_rocm;
  if (!o.version) return std::nullopt;
  if (const auto* b = kb.find_ollama(*o.version)) return b->rocm;
  return std::nullopt;
}

std::string where(const systemd::EnvValue& v) {
  return v.line > 0 ? v.file + ":" + std::to_string(v.line) : v.file;
}

// Variables that decide which GPU ollama uses; a shell-only setting of one is a problem.
bool gpu_relevant(const std::string& name) {
  static const char* names[] = {"HSA_OVERRIDE_GFX_VERSION", "OLLAMA_IGPU_ENABLE", "ROCR_VISIBLE_DEVICES",
                                "HIP_VISIBLE_DEVICES", "OLLAMA_VULKAN", "OLLAMA_LLM_LIBRARY", "GGML_VK_VISIBLE_DEVICES"};
  for (const char* n : names)
    if (name == n) return true;
  return name.starts_with("HSA_OVERRIDE_GFX_VERSION_");
}

struct ServiceEnvEdit {
  std::vector<std::string> problems;  // one sentence each
  std::vector<Evidence> evidence;
  std::map<std::string, std::string> set;
  std::vector<std::string> unset;
  std::vector<std::string> notes;
  void problem(std::string text, Evidence ev) {
    problems.push_back(std::move(text));
    evidence.push_back(std::move(ev));
  }
};

// The GPUs (by name and gfx) an override to target would make run another ISA family's
// or wave size's code; "" when it fits each of them.
std::string crossing_gpus(const RuleContext& ctx, const std::vector<int>& gpus, const GfxTarget& target) {
  std::string who;
  if (!ctx.kb.find_gfx(target)) return who;  // a target no GPU has: said as "not the target this GPU needs"
  for (int i : crossed_by_override(ctx, gpus, target)) {
    const auto* info = ctx.kb.find_gfx(*ctx.facts.gpus[i].gfx);
    std::string label = gpu_label(ctx.facts, i);  // "GPU 1 (AMD Radeon 780M, gfx1103)"
    if (!label.empty() && label.back() == ')') label.insert(label.size() - 1, std::string("; ") + to_string(info->isa));
    who += (who.empty() ? "" : ", ") + label;
  }
  return who;
}

void env_finding(const RuleContext& ctx, const OllamaFacts& o, const std::optional<Shipped>& shipped,
                 std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const OllamaService& svc = *o.service;
  const auto& env = svc.environment;
  ServiceEnvEdit edit;
  auto gpus = ml::gpus_with_gfx(f);

  // 1. The global override the GPUs need (one value must suit every GPU).
  std::optional<GfxTarget> needed;
  bool mixed = false;
  if (shipped && !gpus.empty()) {
    std::vector<int> needing;
    for (int i : gpus)
      if (!contains(shipped->targets, *f.gpus[i].gfx)) needing.push_back(i);
    for (int i : needing) {
      const auto* info = ctx.kb.find_gfx(*f.gpus[i].gfx);
      if (!info || !info->override_to || !contains(shipped->targets, *info->override_to)) continue;  // gfx-unsupported
      if (needed && *needed != *info->override_to) mixed = true;
      if (!needed) needed = info->override_to;
    }
    if (needed && !mixed) {
      // a global value also applies to the GPUs that need none: it must be a no-op for them
      for (int i : gpus) {
        const auto& g = *f.gpus[i].gfx;
        const auto* info = ctx.kb.find_gfx(g);
        bool ok = g == *needed || (info && info->override_to == needed);
        if (!ok) mixed = true;
      }
    }
    if (mixed) {
      edit.problem("The GPUs need different HSA_OVERRIDE_GFX_VERSION values, but ollama applies one value to every "
                   "GPU and ignores the per-device HSA_OVERRIDE_GFX_VERSION_N form.",
                   {"gpus", std::to_string(gpus.size()) + " AMD GPUs with different gfx targets"});
      edit.notes.push_back("Hide the GPU ollama cannot use with ROCR_VISIBLE_DEVICES (its index or UUID from rocminfo) "
                           "in the service environment, or disable the iGPU in the firmware setup.");
      needed.reset();
    }
  }

  // 2. What the service has for the global override.
  std::optional<GfxTarget> effective_override;
  if (auto it = env.find("HSA_OVERRIDE_GFX_VERSION"); it != env.end()) {
    const auto& v = it->second;
    Evidence ev{where(v), "HSA_OVERRIDE_GFX_VERSION=" + v.value};
    auto unq = ml::unquote(v.value);
    auto parsed = parse_gfx_override(v.value);
    if (unq) {
      edit.problem("HSA_OVERRIDE_GFX_VERSION has literal quotes in its value (" + v.value +
                       "): ROCm reads the value raw, rejects it, and finds no GPU.",
                   ev);
    } else if (!parsed) {
      edit.problem("HSA_OVERRIDE_GFX_VERSION=" + v.value + " is not three decimal numbers (like 11.0.0): ROCm "
                   "rejects it and finds no GPU.",
                   ev);
    } else if (auto crossed = crossing_gpus(ctx, gpus, *parsed); !crossed.empty()) {
      // Judged per GPU, as an override anywhere else is: the value in the service makes
      // a card of another family load code it cannot run.
      const auto* to = ctx.kb.find_gfx(*parsed);
      edit.problem("HSA_OVERRIDE_GFX_VERSION=" + v.value + " in " + where(v) + " makes " + crossed + " load " +
                       parsed->name() + (to ? std::string(" (") + to_string(to->isa) + ")" : std::string()) +
                       " code, another ISA family: expect HSA_STATUS_ERROR_INVALID_ISA, invalid device function or a hang" +
                       (needed ? "; " + needed->version_string() + " is the value it needs." : "."),
                   ev);
    } else if (needed && *parsed != *needed) {
      edit.problem("HSA_OVERRIDE_GFX_VERSION=" + v.value + " maps to " + parsed->name() +
                       (shipped && !contains(shipped->targets, *parsed) ? ", which this ollama build has no kernels for"
                                                                       : ", not the target this GPU needs") +
                       "; " + needed->version_string() + " is.",
                   ev);
    } else {
      effective_override = parsed;
    }
    if (!effective_override) {
      if (needed) edit.set["HSA_OVERRIDE_GFX_VERSION"] = needed->version_string();
      else if (unq && parse_gfx_override(*unq)) edit.set["HSA_OVERRIDE_GFX_VERSION"] = *unq;
      else edit.unset.push_back("HSA_OVERRIDE_GFX_VERSION");
      if (edit.set.count("HSA_OVERRIDE_GFX_VERSION")) effective_override = parse_gfx_override(edit.set["HSA_OVERRIDE_GFX_VERSION"]);
    }
  } else if (needed) {
    std::string gpu_names;
    for (int i : gpus)
      if (!contains(shipped->targets, *f.gpus[i].gfx)) gpu_names += (gpu_names.empty() ? "" : ", ") + f.gpus[i].gfx->name();
    edit.problem("The service lacks HSA_OVERRIDE_GFX_VERSION=" + needed->version_string() + ": this ollama build has "
                     "no ROCm kernels for " + gpu_names + " (" + shipped->source + "), so it runs on the CPU.",
                 {svc.unit_path.value_or("ollama.service"), "no HSA_OVERRIDE_GFX_VERSION in the merged environment"});
    edit.set["HSA_OVERRIDE_GFX_VERSION"] = needed->version_string();
    effective_override = needed;
  }

  // 3. Per-device overrides: ollama's GPU filter only reads the global variable.
  for (const auto& [k, v] : env) {
    if (!k.starts_with("HSA_OVERRIDE_GFX_VERSION_")) continue;
    edit.problem(k + " is the per-device form, which ollama ignores when it decides which GPUs to use.",
                 {where(v), k + "=" + v.value});
    if (edit.set.count("HSA_OVERRIDE_GFX_VERSION") || effective_override) edit.unset.push_back(k);
  }

  // 4. The iGPU switch (v0.30+ drops integrated GPUs unless told otherwise).
  bool all_apu = !gpus.empty() &&
                 std::all_of(gpus.begin(), gpus.end(), [&](int i) { return ml::integrated(f.gpus[i]) == true; });
  const bool igpu_relevant = all_apu && o.version && *o.version >= ctx.kb.ollama_policy.igpu_drop_from;
  if (igpu_relevant) {
    const auto& own = *f.gpus[gpus.front()].gfx;
    GfxTarget seen = effective_override.value_or(own);
    bool usable = !shipped || contains(shipped->targets, seen);
    std::optional<bool> enabled;
    const systemd::EnvValue* sw = nullptr;
    if (auto it = env.find("OLLAMA_IGPU_ENABLE"); it != env.end()) {
      sw = &it->second;
      enabled = ml::go_bool(it->second.value);
    }
    bool allowlisted = ctx.kb.ollama_igpu_allowlisted(seen, *o.version);
    if (usable && !allowlisted && enabled != true) {
      if (sw)
        edit.problem("OLLAMA_IGPU_ENABLE=" + sw->value + " does not enable the iGPU; ollama v" + o.version->str() +
                         " drops integrated GPUs unless it is 1.",
                     {where(*sw), "OLLAMA_IGPU_ENABLE=" + sw->value});
      else
        edit.problem("The service lacks OLLAMA_IGPU_ENABLE=1: ollama v" + o.version->str() + " drops integrated GPUs " +
                         "(here " + own.name() + (seen == own ? "" : ", " + seen.name() + " after the override") +
                         ") by default and runs on the CPU.",
                     {svc.unit_path.value_or("ollama.service"), "no OLLAMA_IGPU_ENABLE in the merged environment"});
      edit.set["OLLAMA_IGPU_ENABLE"] = "1";
    }
  }

  // 5. Lines systemd ignores: typo'd keys, broken Environment= words, missing env files.
  for (const auto& a : svc.unknown_keys) {
    edit.problem("systemd ignores \"" + a.key + "=\" (a misspelt key), so this line never reaches ollama: " + a.key + "=" +
                     a.value,
                 {a.file + ":" + std::to_string(a.line), a.key + "=" + a.value});
    // carry over what the person meant to set, unless the edit already decides it
    for (const auto& word : formats::systemd_unit::split_environment(a.value).words) {
      auto eq = word.find('=');
      if (eq == std::string::npos) continue;
      std::string name = word.substr(0, eq);
      if (!formats::systemd_unit::env_name_valid(name) || env.count(name) || edit.set.count(name)) continue;
      if (name == "HSA_OVERRIDE_GFX_VERSION" && !parse_gfx_override(word.substr(eq + 1))) continue;
      if (name.starts_with("HSA_OVERRIDE_GFX_VERSION") && !needed && shipped) continue;  // not needed here
      edit.set[name] = word.substr(eq + 1);
    }
  }
  for (const auto& is : svc.issues) {
    using K = systemd::UnitIssue::Kind;
    if (is.kind == K::unknown_key) continue;  // reported above with its value
    std::string at = is.line > 0 ? is.file + ":" + std::to_string(is.line) : is.file;
    if (is.kind == K::env_file_missing)
      edit.problem("The service names EnvironmentFile=" + is.text + ", which does not exist; systemd refuses to start "
                   "ollama (prefix the path with '-' to make it optional, or create the file).",
                   {at, is.message});
    else if (is.kind == K::bad_environment || is.kind == K::env_file_relative || is.kind == K::bad_env_file_line)
      edit.problem("systemd ignores part of the service environment: " + is.message + " (" + is.text + ").", {at, is.text});
  }

  // 6. Settings exported in the person's shell that the service never sees -- those
  // that would change something for this box's GPUs.
  bool override_relevant = !shipped || needed || mixed;
  if (shipped)
    for (int i : gpus) override_relevant = override_relevant || !contains(shipped->targets, *f.gpus[i].gfx);
  for (const auto& [k, v] : f.env) {
    if (!gpu_relevant(k)) continue;
    if (k == "OLLAMA_IGPU_ENABLE" && !igpu_relevant) continue;
    if (k.starts_with("HSA_OVERRIDE_GFX_VERSION") && !override_relevant) continue;
    auto it = env.find(k);
    if (it != env.end() && it->second.value == v) continue;
    edit.problem("Your shell exports " + k + "=" + v + ", but ollama runs as a system service and never sees the "
                 "shell's environment.",
                 {"env " + k, v});
    bool decided = edit.set.count(k) || std::find(edit.unset.begin(), edit.unset.end(), k) != edit.unset.end();
    bool override_var = k.starts_with("HSA_OVERRIDE_GFX_VERSION");
    if (!decided && !override_var && it == env.end()) edit.set[k] = v;
    // The person's own global override, when amdml has no better value and the build
    // ships its target, is what they meant the service to have.
    if (!decided && k == "HSA_OVERRIDE_GFX_VERSION" && !needed && !mixed && !env.count(k))
      if (auto t = parse_gfx_override(v); t && shipped && contains(shipped->targets, *t)) {
        edit.set[k] = v;
        for (const auto& [name, val] : env)
          if (name.starts_with("HSA_OVERRIDE_GFX_VERSION_")) edit.unset.push_back(name);
      }
  }

  // A drop-in's Environment= cannot beat an EnvironmentFile= value: those lines would
  // change nothing, so the person edits the file instead.
  for (auto it = edit.set.begin(); it != edit.set.end();) {
    auto cur = env.find(it->first);
    if (cur != env.end() && cur->second.from_env_file) {
      edit.notes.push_back("Set " + it->first + "=" + it->second + " in " + cur->second.file +
                           ": EnvironmentFile= values win over Environment= lines, so a drop-in cannot change it.");
      it = edit.set.erase(it);
    } else {
      ++it;
    }
  }

  if (edit.problems.empty()) return;
  std::string title = edit.problems.size() == 1 ? "The ollama service's environment needs a change"
                                                : "The ollama service's environment has " +
                                                      std::to_string(edit.problems.size()) + " problems";
  auto fd = make_finding(FindingId::ollama_env, title, text::join(edit.problems, " "));
  fd.evidence = edit.evidence;
  if (!svc.files.empty()) fd.evidence.push_back({"systemctl cat ollama", "merged from " + text::join(svc.files, ", ")});
  fd.gpus = gpus;
  if (!edit.set.empty() || !edit.unset.empty()) {
    EnvParams params;
    for (const auto& [k, v] : edit.set) params.env[k] = v;
    std::sort(edit.unset.begin(), edit.unset.end());
    edit.unset.erase(std::unique(edit.unset.begin(), edit.unset.end()), edit.unset.end());
    if (!edit.unset.empty()) params.unset = edit.unset;
    // Its hand commands come from the recipe (fix::derive_hand_commands): same file, same bytes.
    fd.fix = FixRef{"ollama-override", params};
  }
  fd.notes = edit.notes;
  fd.notes.push_back("Check with: systemctl show ollama -p Environment; journalctl -u ollama | grep 'inference compute'");
  out.push_back(std::move(fd));
}

void access_finding(const Facts& f, const OllamaService& svc, std::vector<Finding>& out) {
  if (svc.user == "root" || svc.user == "0" || svc.dynamic_user) return;
  const PasswdEntry* pw = nullptr;
  for (const auto& p : f.identity.passwd)
    if (p.name == svc.user) pw = &p;
  if (!pw) {
    if (f.identity.passwd.empty()) return;  // no /etc/passwd read: nothing to judge by
    auto fd = make_finding(FindingId::ollama_access, "The ollama service user " + svc.user + " does not exist",
                           "ollama.service runs as User=" + svc.user + ", which is not in /etc/passwd: systemd cannot "
                           "start the service (\"Failed to determine user credentials\").");
    fd.evidence.push_back({"/etc/passwd", "no user " + svc.user});
    fd.commands.push_back("sudo useradd -r -s /bin/false -U -m -d /usr/share/ollama " + text::shell_word(svc.user) +
                          "   # as ollama's installer does");
    fd.commands.push_back("sudo usermod -a -G render,video " + text::shell_word(svc.user) + " && sudo systemctl restart ollama");
    fd.gpus = amd_gpu_indices(f);
    out.push_back(std::move(fd));
    return;
  }
  std::vector<std::uint32_t> gids = {pw->gid};
  auto gid_of = [&](const std::string& name) -> std::optional<std::uint32_t> {
    for (const auto& g : f.identity.groups)
      if (g.name == name) return g.gid;
    return std::nullopt;
  };
  if (svc.group)
    if (auto g = gid_of(*svc.group)) gids.push_back(*g);
  for (const auto& s : svc.supplementary_groups)
    if (auto g = gid_of(s)) gids.push_back(*g);
  for (const auto& g : f.identity.groups)
    if (std::find(g.members.begin(), g.members.end(), svc.user) != g.members.end()) gids.push_back(g.gid);
  std::vector<std::string> missing;
  std::vector<Evidence> ev;
  for (const auto& d : f.identity.devices) {
    if (!d.exists || !d.gid || d.world_accessible) continue;
    if (std::find(gids.begin(), gids.end(), *d.gid) != gids.end()) continue;
    std::string group = d.group.value_or(std::to_string(*d.gid));
    if (std::find(missing.begin(), missing.end(), group) == missing.end()) missing.push_back(group);
    ev.push_back({d.path, "group " + group + " (gid " + std::to_string(*d.gid) + ")"});
  }
  if (missing.empty()) return;
  std::sort(missing.begin(), missing.end());
  auto fd = make_finding(FindingId::ollama_access, "The ollama service user " + svc.user + " cannot open the GPU devices",
                         "ollama.service runs as " + svc.user + ", which is not in group " + text::join(missing, ",") +
                             " that owns the device nodes; ROCm then finds no GPU and ollama runs on the CPU.");
  fd.evidence = ev;
  fd.evidence.push_back({"/etc/group", svc.user + " not in " + text::join(missing, ",")});
  fd.fix = FixRef{"groups", GroupsParams{svc.user, missing}};
  fd.commands.push_back("sudo usermod -a -G " + joined_word(missing, ",") + " " + text::shell_word(svc.user));
  fd.commands.push_back("sudo systemctl restart ollama");
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void unsupported_findings(const RuleContext& ctx, const OllamaFacts& o, const Shipped& shipped,
                          std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  for (int i : ml::gpus_with_gfx(f)) {
    const auto& g = *f.gpus[i].gfx;
    if (contains(shipped.targets, g)) continue;
    const auto* info = ctx.kb.find_gfx(g);
    if (info && info->override_to && contains(shipped.targets, *info->override_to)) continue;  // ollama.env covers it
    std::string ver = o.version ? "ollama v" + o.version->str() : "This ollama";
    auto fd = make_finding(FindingId::ollama_gfx_unsupported, ver + " has no ROCm kernels for " + gpu_label(f, i),
                           ver + " ships ROCm kernels for " + ml::gfx_names(shipped.targets) + " (" + shipped.source +
                               "); " + g.name() + " is not among them and has no same-family override target that is, "
                               "so ollama's ROCm backend will not use it.");
    fd.evidence.push_back({shipped.source, ml::gfx_names(shipped.targets)});
    fd.gpus = {i};
    const auto& pol = ctx.kb.ollama_policy;
    if (o.version && *o.version >= pol.vulkan_default_from)
      fd.notes.push_back("ollama's Vulkan backend (on by default since v" + short_version(pol.vulkan_default_from) +
                         ") can run it: check that a Vulkan driver (Mesa RADV) is installed.");
    else if (o.version && *o.version >= pol.vulkan_opt_in_from)
      fd.notes.push_back("ollama's Vulkan backend can run it: add Environment=\"OLLAMA_VULKAN=1\" to the service.");
    else
      fd.notes.push_back("A newer ollama with the Vulkan backend can run it.");
    if (auto r = last_range_with(ctx.kb, g))
      fd.notes.push_back("ollama releases " + *r + " shipped ROCm kernels for " + g.name() + ".");
    out.push_back(std::move(fd));
  }
}

// What ollama release r does with target g: run its kernels, need the override, or neither.
enum class ReleaseFit { native, override, none };
ReleaseFit fit(const Knowledge& kb, const OllamaBuild& r, const GfxTarget& g) {
  if (ships(r, g)) return ReleaseFit::native;
  const auto* info = kb.find_gfx(g);
  if (info && info->override_to && ships(r, *info->override_to)) return ReleaseFit::override;
  return ReleaseFit::none;
}

// A build amdml cannot identify (no version answer, no ROCm libraries to look at) is
// judged by every release amdml knows: where they all agree, that is the answer for
// any build; where they differ, the finding says which releases do what. Returns the
// targets to judge the service environment by when every GPU gets the same answer
// from every release, else nullopt.
std::optional<Shipped> judge_unidentified(const RuleContext& ctx, const OllamaFacts& o, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  const auto& rel = ctx.kb.ollama;
  const std::string span = "v" + rel.front().from.str() + " to " +
                           (rel.back().until ? "the last release before v" + rel.back().until->str() : "the current release");
  std::string why = o.version_error.value_or("no version in `ollama --version` output");
  why += o.lib_dir ? "; " + *o.lib_dir + " has no ROCm backend with rocBLAS files" : "; there is no lib/ollama beside it";
  const std::string unidentified = "This ollama build could not be identified (" + why + ").";
  bool unanimous = true;
  for (int i : ml::gpus_with_gfx(f)) {
    const auto& g = *f.gpus[i].gfx;
    std::vector<ReleaseFit> fits;
    for (const auto& r : rel) fits.push_back(fit(ctx.kb, r, g));
    bool all_same = std::all_of(fits.begin(), fits.end(), [&](ReleaseFit x) { return x == fits.front(); });
    unanimous = unanimous && all_same;
    // Every release does the same, natively or with the override: the service
    // environment is judged by that (env_finding) and there is nothing more to say.
    const bool some_none = std::find(fits.begin(), fits.end(), ReleaseFit::none) != fits.end();
    if (all_same && !some_none) continue;
    std::string what = all_same    ? "No ollama release has ROCm kernels for " + gpu_label(f, i)
                       : some_none ? "This ollama may have no ROCm kernels for " + gpu_label(f, i)
                                   : "This ollama may need HSA_OVERRIDE_GFX_VERSION for " + gpu_label(f, i);
    std::string detail = unidentified + " ";
    if (all_same) {
      detail += "No ollama release amdml knows (" + span + ") ships ROCm kernels for " + g.name() +
                " or for a same-family override target, so whatever build this is, its ROCm backend will not use it.";
    } else {
      // Adjacent releases that do the same, as one range.
      std::string ranges;
      for (std::size_t k = 0; k < rel.size();) {
        std::size_t end = k;
        while (end + 1 < rel.size() && fits[end + 1] == fits[k]) ++end;
        const char* word = fits[k] == ReleaseFit::native ? "ship its kernels"
                           : fits[k] == ReleaseFit::override ? "run it with HSA_OVERRIDE_GFX_VERSION" : "have no kernels for it";
        std::string range = "v" + rel[k].from.str() + (rel[end].until ? " to before v" + rel[end].until->str() : " and later");
        ranges += (ranges.empty() ? "" : "; ") + range + ": " + word;
        k = end + 1;
      }
      detail += "Which releases run " + g.name() + " differs (" + ranges + "), so it depends on the build.";
    }
    auto fd = make_finding(FindingId::ollama_gfx_unsupported, what, detail);
    if (!all_same) fd.severity = Severity::info;
    fd.evidence.push_back({o.binary.value_or("ollama"), o.version_text.value_or("no version")});
    fd.evidence.push_back({"ollama releases " + span, "ROCm kernels for " + g.name() + ": " +
                                                            (all_same ? "none" : "some releases")});
    fd.gpus = {i};
    fd.notes.push_back("Once `ollama --version` names the build (with its server running), amdml judges that build exactly.");
    const auto* info = ctx.kb.find_gfx(g);
    if (!all_same && info && info->override_to &&
        std::find(fits.begin(), fits.end(), ReleaseFit::override) != fits.end())
      fd.notes.push_back("On the releases without " + g.name() + " kernels, Environment=\"HSA_OVERRIDE_GFX_VERSION=" +
                         info->override_to->version_string() + "\" in the service runs its " + info->override_to->name() +
                         " kernels" + (some_none ? "" : "; that setting works on every release") + ".");
    const auto& pol = ctx.kb.ollama_policy;
    if (!all_same)
      fd.notes.push_back("ollama's Vulkan backend runs it without ROCm kernels: on by default since v" +
                         short_version(pol.vulkan_default_from) + " (OLLAMA_VULKAN=1 from v" +
                         short_version(pol.vulkan_opt_in_from) + "), with a Vulkan driver (Mesa RADV) installed.");
    if (all_same)
      fd.notes.push_back("ollama's Vulkan backend can run it: OLLAMA_VULKAN=1 from v" + short_version(pol.vulkan_opt_in_from) +
                         ", on by default since v" + short_version(pol.vulkan_default_from) +
                         "; check that a Vulkan driver (Mesa RADV) is installed.");
    out.push_back(std::move(fd));
  }
  if (!unanimous) return std::nullopt;
  Shipped s;
  s.targets = rel.back().targets;
  s.source = "every ollama release amdml knows, " + span + "; this build could not be identified";
  return s;
}

void driver_finding(const RuleContext& ctx, const OllamaFacts& o, std::vector<Finding>& out) {
  auto rocm = bundled_rocm(ctx.kb, o);
  if (!rocm || ctx.facts.gpus.empty()) return;
  const auto* rel = ctx.kb.find_rocm(*rocm);
  if (!rel) return;
  auto why = ml::driver_too_old_for(ctx.facts, *rel);
  if (!why) return;
  std::string ver = o.version ? "ollama v" + o.version->str() : "The installed ollama";
  auto fd = make_finding(FindingId::ollama_driver, ver + " bundles ROCm " + rocm->str() + ", which needs a newer GPU driver",
                         ver + " brings its own ROCm " + rocm->str() + " user space; " + *why +
                             ". GPU discovery then hangs or crashes and ollama falls back to the CPU.");
  fd.evidence.push_back({o.rocm_dir.value_or(o.lib_dir.value_or("ollama")), "bundled ROCm " + rocm->str()});
  fd.evidence.push_back({"/proc/sys/kernel/osrelease", ctx.facts.os.kernel_release.value_or("?")});
  fd.notes.push_back("Upgrade the kernel (or install AMD's amdgpu-dkms driver for ROCm " + std::to_string(rocm->major) +
                     ") and reboot, or use an ollama release that bundles an older ROCm.");
  fd.gpus = amd_gpu_indices(ctx.facts);
  out.push_back(std::move(fd));
}

// The unit and its drop-ins are right (no ollama.env), but the running service started
// before they said so: systemd reads Environment= when it starts the process, so the
// configuration takes effect after a restart. A pending state, not a change to make.
void restart_pending(const OllamaService& svc, std::vector<Finding>& out, std::size_t first) {
  if (!svc.running_environment || !svc.main_pid) return;
  for (std::size_t i = first; i < out.size(); ++i)
    if (out[i].id == FindingId::ollama_env) return;
  const auto& running = *svc.running_environment;
  std::vector<Evidence> differ;
  std::vector<std::string> names;
  const std::string proc = "/proc/" + std::to_string(*svc.main_pid) + "/environ";
  for (const auto& [k, v] : svc.environment) {
    if (!gpu_relevant(k)) continue;
    auto it = running.find(k);
    if (it != running.end() && it->second == v.value) continue;
    differ.push_back({where(v), k + "=" + v.value});
    differ.push_back({proc, it == running.end() ? k + " unset" : k + "=" + it->second});
    names.push_back(k + "=" + v.value);
  }
  // A GPU setting the unit no longer has that the process still carries.
  for (const auto& [k, v] : running) {
    if (!gpu_relevant(k) || svc.environment.count(k)) continue;
    differ.push_back({proc, k + "=" + v});
    names.push_back(k + " unset");
  }
  if (differ.empty()) return;
  auto fd = make_finding(FindingId::ollama_restart_pending,
                         "The ollama service is configured with " + text::join(names, ", ") +
                             ": it takes effect after a restart",
                         "The unit and its drop-ins say so, but the running service (PID " +
                             std::to_string(*svc.main_pid) + ") started before that: systemd reads the environment "
                             "when it starts the process, so ollama still runs with the old one.");
  fd.evidence = std::move(differ);
  if (!svc.files.empty()) fd.evidence.push_back({"systemctl cat ollama", "merged from " + text::join(svc.files, ", ")});
  fd.add_command("sudo systemctl restart ollama", CommandRole::run);
  fd.notes.push_back("Check with: systemctl show ollama -p Environment; journalctl -u ollama | grep 'inference compute'");
  out.push_back(std::move(fd));
}

}  // namespace

void ollama_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const auto& o = ctx.facts.ml.ollama;
  if (!ctx.facts.ml.probed || !o.installed || ctx.facts.gpus.empty()) return;
  auto shipped = shipped_targets(ctx.kb, o);
  const bool unidentified = !shipped && !ctx.kb.ollama.empty();
  if (unidentified) shipped = judge_unidentified(ctx, o, out);
  if (o.service && !o.service->masked) {
    const std::size_t first = out.size();
    env_finding(ctx, o, shipped, out);
    access_finding(ctx.facts, *o.service, out);
    restart_pending(*o.service, out, first);
  }
  if (shipped && !unidentified) unsupported_findings(ctx, o, *shipped, out);
  driver_finding(ctx, o, out);
}

}  // namespace amdml::rules
