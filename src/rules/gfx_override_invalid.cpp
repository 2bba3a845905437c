// gfx.override-invalid: an HSA_OVERRIDE_GFX_VERSION[_<node>] that libhsakmt refuses,
// that reaches no GPU, that the installed ROCm ignores, or that makes a GPU it reaches
// run another ISA family's code -- in this session, or in a login file new sessions read.
// The rest of gfx.* is gfx.cpp's.
//
// A finding whose fix is the hsa-override recipe writes no command text: the advice
// stage gives the plan's commands, or fix::by_hand_steps from the request's parameters
// (HsaParams::shell_unset carries the variables this shell must lose).
#include <algorithm>
#include <map>
#include <set>

#include "rules/gfx_override.hpp"

namespace amdml::rules::gfx {

namespace {

const std::string kPrefix = "HSA_OVERRIDE_GFX_VERSION";

using NodeMap = std::map<int, int>;  // KFD node -> GPU index

// One variable of the override family in this session, and the GPUs it reaches.
struct SessionVar {
  std::string var, value;
  std::optional<int> node;  // the per-node form's KFD node; nullopt: the global variable
  OverrideParse parse;
  Evidence ev;
  std::vector<int> reach;
};

std::string names_of(const Facts& f, const std::vector<int>& gpus) {
  std::string who;
  for (int gi : gpus) who += (who.empty() ? "" : ", ") + gpu_name(f.gpus[static_cast<std::size_t>(gi)]);
  return who;
}

// libhsakmt refuses the value: every GPU it reaches is lost.
Finding syntax_invalid(const SessionVar& v) {
  auto fd = make_finding(FindingId::gfx_override_invalid, v.var + " is invalid: ROCm will find no GPU",
                         v.var + " " + describe_override_error(v.parse, v.value) +
                             ". libhsakmt rejects the value and topology initialisation fails.");
  fd.evidence.push_back(v.ev);
  fd.gpus = v.reach;
  std::optional<GfxTarget> meant = v.parse.suggestion;
  if (meant) {
    HsaParams params;
    if (v.node) params.per_node[std::to_string(*v.node)] = meant->version_string();
    else params.value = meant->version_string();
    fd.fix = FixRef{"hsa-override", params};  // commands: the advice stage's
  } else {
    fd.commands.push_back("unset " + text::shell_word(v.var));
  }
  if (v.parse.error == OverrideError::quoted)
    fd.notes.push_back("In a systemd unit write Environment=\"" + v.var + "=" + (meant ? meant->version_string() : "x.y.z") +
                       "\" -- the quotes go around the whole assignment, not the value.");
  return fd;
}

// The per-node form names a KFD node that is no GPU.
Finding node_is_no_gpu(const Facts& f, const NodeMap& gpu_by_node, const SessionVar& v) {
  bool cpu = false;
  for (const auto& n : f.kfd.nodes) cpu |= n.index == *v.node && n.cpu;
  auto fd = make_finding(FindingId::gfx_override_invalid, v.var + " names KFD node " + std::to_string(*v.node) + ", which is " +
                                                     (cpu ? "a CPU node" : "not a GPU on this box"),
                         "The per-node form counts KFD topology nodes, CPU nodes included; on a one-socket box the "
                         "first GPU is node 1. This setting reaches no GPU.");
  fd.evidence.push_back(v.ev);
  fd.evidence.push_back({"/sys/class/kfd/kfd/topology/nodes", std::to_string(f.kfd.nodes.size()) + " nodes, " +
                                                                   std::to_string(f.kfd.cpu_nodes()) + " CPU"});
  for (const auto& [nd, gi] : gpu_by_node) fd.notes.push_back("KFD node " + std::to_string(nd) + " is " + gpu_label(f, gi));
  fd.commands.push_back("unset " + text::shell_word(v.var));
  return fd;
}

// The installed ROCm predates the per-node form and reads the global variable only.
Finding per_node_ignored(const RuleContext& ctx, const Stack& st, const SessionVar& v) {
  auto fd = make_finding(FindingId::gfx_override_invalid, v.var + " is ignored by " + st.label,
                         "The per-node form HSA_OVERRIDE_GFX_VERSION_<node> arrived in ROCm " +
                             short_version(ctx.kb.per_node_override_since) + "; older runtimes read only the global variable.");
  fd.evidence.push_back(v.ev);
  fd.evidence.push_back(rocm_evidence(ctx.facts));
  fd.gpus = v.reach;
  fd.commands.push_back("export HSA_OVERRIDE_GFX_VERSION=" + text::shell_word(v.value) +
                        "   # and hide other GPUs with ROCR_VISIBLE_DEVICES");
  return fd;
}

// The per-GPU values a value that does not fit is replaced with, as the hsa-override
// request (with the variable this shell must lose), or a note and the commands by hand
// when new logins already get them.
void per_node_fix(const RuleContext& ctx, const SessionVar& v, std::map<std::string, std::string> per, Finding& fd) {
  const Facts& f = ctx.facts;
  // Where the global value comes from: a login file sets it for every new session
  // (the recipe turns that line off), or nothing amdml reads does any more.
  auto setters = v.node ? std::vector<const LoginEnv*>{} : login_setters(f, v.var);
  for (const auto* e : setters) fd.evidence.push_back({e->where, e->name + "=" + e->value});
  std::string per_where = v.node ? "" : login_sets_all(f, HsaParams{std::nullopt, per, {}});
  // The session has every per-GPU value new logins get: it started after them, so
  // the global value came from elsewhere, and another login does not take it away.
  const bool session_has = std::all_of(per.begin(), per.end(), [&](const auto& kv) {
    auto it = f.env.find(kPrefix + "_" + kv.first);
    return it != f.env.end() && it->second == kv.second;
  });
  // A global value from a file amdml cannot edit (~/.profile, the parent program)
  // stays after any login. libhsakmt reads a GPU node's HSA_OVERRIDE_GFX_VERSION_<node>
  // first and the global variable only when that one is unset (topology.c,
  // topology_sysfs_get_node_props, ROCm/rocm-systems projects/rocr-runtime/libhsakmt;
  // older releases read the global one alone, hence per_node_supported). So every
  // other GPU it reaches is pinned to its own target: then it reaches none.
  std::string pins;
  if (!v.node && setters.empty() && (per_where.empty() || session_has))
    for (int gi : v.reach) {
      const Gpu& g = f.gpus[static_cast<std::size_t>(gi)];
      const std::string key = std::to_string(*g.kfd_node);
      if (!g.gfx || per.count(key)) continue;
      per[key] = g.gfx->version_string();
      pins += (pins.empty() ? "" : ", ") + gpu_name(g) + " to " + kPrefix + "_" + key + "=" + per[key];
    }
  HsaParams params{std::nullopt, per, {v.var}};
  if (!v.node && setters.empty() && !per_where.empty() && !session_has) {
    // `amdml fix` (or a person) already did it: new logins get per-GPU values and no
    // login file sets the global one. What is left is a new login, not a change.
    fd.notes.push_back("New login sessions no longer get " + v.var + " and get per-GPU values (" + per_where +
                       "): log out and in again. If it is still set then, it comes from ~/.profile, ~/.bashrc or "
                       "the program that started the shell: remove it there.");
    fd.commands.push_back("unset " + text::shell_word(v.var));
    add_override_commands(fd, params);
    return;
  }
  fd.fix = FixRef{"hsa-override", params};  // commands: the advice stage's
  if (!setters.empty()) {
    std::string where;
    for (const auto* e : setters) where += (where.empty() ? "" : ", ") + e->where;
    fd.detail += " It is set for every login by " + where + ".";
  } else if (!v.node) {
    fd.notes.push_back("No login file amdml reads (/etc/environment, /etc/environment.d, /etc/profile.d) sets " + v.var +
                       ": it comes from ~/.profile, ~/.bashrc or the program that started this shell; remove it there.");
    if (!pins.empty())
      fd.notes.push_back("The fix also pins " + pins + " (its own target): a GPU's per-node value wins over the "
                         "global one, so " + v.var + " reaches no GPU even before it is removed.");
  }
}

// A valid value that makes the GPUs in `broken` run another ISA family's code, and its
// fix: per node, each GPU that needs a value gets its own, the rest none.
Finding does_not_fit(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs,
                     const NodeMap& gpu_by_node, const SessionVar& v, const std::vector<int>& broken) {
  const Facts& f = ctx.facts;
  const std::string who = names_of(f, broken);
  const GfxInfo* to = ctx.kb.find_gfx(*v.parse.target);
  const bool mixed = !v.node && v.reach.size() > broken.size();
  auto fd = make_finding(
      FindingId::gfx_override_invalid, v.var + "=" + v.value + (mixed ? " is global and breaks " : " does not fit ") + who,
      "It makes " + who + " run " + v.parse.target->name() +
          (to ? std::string(" (") + to_string(to->isa) + ", wave" + std::to_string(to->wave_size) + ")" : std::string()) +
          " code, another ISA family or wave size: expect HSA_STATUS_ERROR_INVALID_ISA, invalid device function or a hang.");
  fd.evidence.push_back(v.ev);
  for (int gi : broken) {
    fd.gpus.push_back(gi);
    fd.evidence.push_back(gfx_evidence(f.gpus[static_cast<std::size_t>(gi)]));
  }
  std::map<std::string, std::string> per;
  for (const auto& n : needs)
    if (n.need == Need::override) per[std::to_string(*f.gpus[static_cast<std::size_t>(n.index)].kfd_node)] = n.value->version_string();
  // One value that fits every GPU goes global; otherwise per node.
  std::set<std::string> distinct;
  for (const auto& [k, val] : per) distinct.insert(val);
  bool global_ok = distinct.size() == 1;
  if (global_ok) {
    auto t = parse_hsa_override(*distinct.begin()).target;
    for (const auto& [nd, gi] : gpu_by_node) global_ok = global_ok && global_value_fits(ctx, st, gi, *t);
  }
  if (global_ok) {
    // A per-node variable wins over the new global value for its GPU: this shell loses it.
    HsaParams params{*distinct.begin(), {}, {}};
    if (v.node) params.shell_unset.push_back(v.var);
    fd.fix = FixRef{"hsa-override", params};  // commands: the advice stage's
  } else if (!per.empty() && per_node_supported(ctx, st)) {
    per_node_fix(ctx, v, std::move(per), fd);
  } else {
    fd.commands.push_back("unset " + text::shell_word(v.var));
  }
  if (mixed) {
    // The GPUs it breaks usually run natively: dropping the override and hiding the
    // others keeps the fast card.
    std::string keep;
    bool all_native = true;
    for (int gi : broken) {
      keep += (keep.empty() ? "" : ",") + rocr_device_name(f, gi);
      for (const auto& n : needs) all_native = all_native && (n.index != gi || n.need == Need::native);
    }
    if (all_native)
      fd.notes.push_back("Or drop the override and use only " + who + ": unset " + v.var +
                         "; export ROCR_VISIBLE_DEVICES=" + keep);
  }
  return fd;
}

}  // namespace

// Every variable of the override family, checked for syntax and for each GPU it reaches.
void override_invalid(const RuleContext& ctx, const Stack& st, const std::vector<GpuNeed>& needs,
                      std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  NodeMap gpu_by_node;
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    if (f.gpus[i].kfd_node) gpu_by_node[*f.gpus[i].kfd_node] = static_cast<int>(i);

  for (const auto& [var, value] : f.env) {
    if (!var.starts_with(kPrefix)) continue;
    SessionVar v{var, value, std::nullopt, parse_hsa_override(value), Evidence{"env " + var, value}, {}};
    if (var.size() > kPrefix.size()) {
      if (var[kPrefix.size()] != '_') continue;
      auto n = text::u64(var.substr(kPrefix.size() + 1));
      if (!n || *n > 4096) continue;
      v.node = static_cast<int>(*n);
    }
    // Which GPUs this variable reaches.
    if (v.node) {
      if (auto it = gpu_by_node.find(*v.node); it != gpu_by_node.end()) v.reach.push_back(it->second);
    } else {
      for (const auto& [nd, gi] : gpu_by_node)
        if (!f.env.count(kPrefix + "_" + std::to_string(nd))) v.reach.push_back(gi);
    }
    if (v.parse.error != OverrideError::none) {
      out.push_back(syntax_invalid(v));
    } else if (v.node && !gpu_by_node.count(*v.node)) {
      out.push_back(node_is_no_gpu(f, gpu_by_node, v));
    } else if (v.node && st.installed && !per_node_supported(ctx, st)) {
      out.push_back(per_node_ignored(ctx, st, v));
    } else if (auto broken = crossed_by_override(ctx, v.reach, *v.parse.target); !broken.empty()) {
      out.push_back(does_not_fit(ctx, st, needs, gpu_by_node, v, broken));
    } else if (!ctx.kb.find_gfx(*v.parse.target) && !v.reach.empty()) {
      auto fd = make_finding(FindingId::gfx_override_invalid, var + "=" + value + " names no known gfx target",
                             "No AMD GPU has ISA " + v.parse.target->name() + ", so no library ships code objects for it.");
      fd.evidence.push_back(v.ev);
      fd.gpus = v.reach;
      fd.commands.push_back("unset " + text::shell_word(var));
      out.push_back(std::move(fd));
    }
  }
}

// A value new login sessions get (the last setting of each name in the login files)
// that this session does not have: judged per GPU family as the session's own value is
// (crossed_by_override), naming the file and line that sets it. What the session has is
// override_invalid's, with the login file that set it as evidence.
void login_override_invalid(const RuleContext& ctx, const std::vector<GpuNeed>& needs, std::vector<Finding>& out) {
  const Facts& f = ctx.facts;
  std::map<std::string, const LoginEnv*> last;
  for (const auto& e : f.login_env)
    if (e.name.starts_with(kPrefix)) last[e.name] = &e;
  for (const auto& [var, e] : last) {
    if (auto it = f.env.find(var); it != f.env.end() && it->second == e->value) continue;
    auto p = parse_hsa_override(e->value);
    if (p.error != OverrideError::none || !p.target) continue;
    const bool global = var == kPrefix;
    std::vector<int> reach;
    for (std::size_t i = 0; i < f.gpus.size(); ++i) {
      const auto& node = f.gpus[i].kfd_node;
      if (!node) continue;
      const std::string own = kPrefix + "_" + std::to_string(*node);
      if (global ? !last.count(own) : var == own) reach.push_back(static_cast<int>(i));
    }
    const auto broken = crossed_by_override(ctx, reach, *p.target);
    if (broken.empty()) continue;
    const std::string who = names_of(f, broken);
    const GfxInfo* to = ctx.kb.find_gfx(*p.target);
    auto fd = make_finding(FindingId::gfx_override_invalid, var + "=" + e->value + " in " + e->where + " does not fit " + who,
                           "New login sessions get it from " + e->where + ": the value set there makes " + who + " run " +
                               p.target->name() + (to ? " (" + std::string(to_string(to->isa)) + ")" : std::string()) +
                               " code, another ISA family or wave size: expect HSA_STATUS_ERROR_INVALID_ISA, invalid "
                               "device function or a hang. This session does not have it yet.");
    fd.evidence.push_back({e->where, var + "=" + e->value});
    for (int gi : broken) {
      fd.gpus.push_back(gi);
      fd.evidence.push_back(gfx_evidence(f.gpus[static_cast<std::size_t>(gi)]));
    }
    // The value the GPUs need, when one fits every GPU, goes where `amdml fix` writes it
    // (turning this line off); otherwise, and for a file in the home directory the
    // recipe does not edit, the line goes by hand.
    std::set<std::string> values;
    for (const auto& n : needs)
      if (n.need == Need::override) values.insert(n.value->version_string());
    const bool recipe_edits = e->where.starts_with("/etc/");
    if (recipe_edits && global && values.size() == 1 && std::none_of(reach.begin(), reach.end(), [&](int gi) {
          return !crossed_by_override(ctx, {gi}, *parse_hsa_override(*values.begin()).target).empty();
        })) {
      fd.fix = FixRef{"hsa-override", HsaParams{*values.begin(), {}, {}}};  // commands: the advice stage's
    } else {
      const auto colon = e->where.rfind(':');
      fd.commands.push_back(std::string(recipe_edits ? "sudo " : "") + "sed -i " +
                            text::shell_word(e->where.substr(colon + 1) + "s/^/# /") + " " +
                            text::shell_word(e->where.substr(0, colon)) + "   # turn the line off; then log out and in");
    }
    out.push_back(std::move(fd));
  }
}

}  // namespace amdml::rules::gfx
