// The human report: System, GPUs, Access, Findings, and a last line saying what to
// run next. Aligned columns; colour only when the style says so.
#include <algorithm>
#include <cstdio>

#include "formats/fix_params_json.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"
#include "render/format.hpp"
#include "render/ml_text.hpp"

namespace amdml::render {

using render::bytes_text;
using render::mode_text;
using render::yes_no;

namespace {

std::string pad(std::string s, std::size_t w) {
  // Pads by display width, counting UTF-8 continuation bytes as zero width.
  std::size_t width = 0;
  for (unsigned char c : s)
    if ((c & 0xc0) != 0x80) ++width;
  if (width < w) s.append(w - width, ' ');
  return s;
}

std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::size_t width = 0;
      for (unsigned char c : r[i])
        if ((c & 0xc0) != 0x80) ++width;
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], width);
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < r.size(); ++i) line += i + 1 == r.size() ? r[i] : pad(r[i], w[i] + 2);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}


std::string system_block(const Report& r) {
  const Facts& f = r.facts;
  std::vector<std::vector<std::string>> rows;
  std::string os = f.os.pretty_name.value_or(f.os.id.value_or("unknown"));
  if (f.os.wsl) os += " (WSL)";
  rows.push_back({"OS", os});
  rows.push_back({"Kernel", f.os.kernel_release.value_or("unknown")});
  rows.push_back({"Memory", bytes_text(f.memory.total)});
  std::string drv;
  if (!f.driver.amdgpu_loaded) drv = "amdgpu not loaded";
  else {
    drv = f.driver.dkms_version ? "amdgpu " + *f.driver.dkms_version + " (AMD DKMS)" : "amdgpu (in-tree)";
    if (f.driver.initstate && *f.driver.initstate != "live") drv += ", initstate " + *f.driver.initstate;
  }
  const TtmModuleState* ttm = f.driver.ttm_in_use == TtmModule::amdttm ? &f.driver.amdttm
                         : f.driver.ttm_in_use == TtmModule::ttm  ? &f.driver.ttm
                                                                  : nullptr;
  if (ttm && ttm->pages_limit)
    drv += ", " + std::string(to_string(f.driver.ttm_in_use)) + " pages_limit " + std::to_string(ttm->pages_limit->value) +
           " (" + format_bytes(ttm->pages_limit->bytes()) + ")";
  rows.push_back({"Driver", drv});
  std::string rocm;
  if (f.rocm.source == RocmSource::none) rocm = "not found";
  else {
    rocm = f.rocm.version ? f.rocm.version->str() : "unknown version";
    rocm += " at " + f.rocm.path.value_or("?");
    if (f.rocm.resolved_path && f.rocm.resolved_path != f.rocm.path) rocm += " -> " + *f.rocm.resolved_path;
    if (f.rocm.source == RocmSource::distro) rocm += " (distribution packages)";
    const std::string where = f.rocm.resolved_path.value_or(f.rocm.path.value_or(""));
    for (const auto& in : f.rocm.installs)
      if (in.path == where || (f.rocm.source == RocmSource::distro && in.path == "/usr")) {
        rocm += kernels_verdict(f, in.targets);
        break;
      }
  }
  if (f.rocm.source != RocmSource::none || f.rocm.installs.empty()) rows.push_back({"ROCm", rocm});
  for (auto& row : rocm_install_rows(f.rocm)) rows.push_back(std::move(row));
  if (!f.knowledge.date.empty() || !f.knowledge.source.empty())
    rows.push_back({"Knowledge", (f.knowledge.date.empty() ? std::string("undated") : f.knowledge.date) + " (" +
                                     f.knowledge.source + ")"});
  for (auto& row : ml_summary_rows(f)) rows.push_back(std::move(row));
  if (f.container.kind)
    rows.push_back({"Container", std::string(to_string(*f.container.kind)) + (f.container.rootless ? " (rootless)" : "")});
  return table(rows, "  ");
}

std::string gpu_block(const Report& r) {
  const Facts& f = r.facts;
  if (f.gpus.empty()) return "  none\n";
  std::vector<std::vector<std::string>> rows = {{"#", "Name", "gfx", "VRAM", "GTT", "Type", "PCI", "Render", "KFD"}};
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    std::string name = g.marketing_name.value_or(g.pci_id().empty() ? "AMD GPU" : "AMD GPU " + g.pci_id());
    std::string render = g.render_node ? g.render_node->substr(g.render_node->rfind('/') + 1) : "-";
    rows.push_back({std::to_string(i), name, g.gfx ? g.gfx->name() : "?", bytes_text(g.vram), bytes_text(g.gtt),
                    !g.apu ? "?" : (*g.apu ? "APU" : "dGPU"), g.pci_slot.value_or("-"), render,
                    g.kfd_node ? "node " + std::to_string(*g.kfd_node) : "-"});
  }
  return table(rows, "  ");
}

std::string access_block(const Report& r) {
  const auto& id = r.facts.identity;
  std::string out;
  if (!id.devices_known) return "  device nodes unknown\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : id.devices) {
    if (!d.exists) {
      rows.push_back({d.path, "absent"});
      continue;
    }
    std::string owner = d.group.value_or(d.gid ? "gid " + std::to_string(*d.gid) : "?") + " " + mode_text(d.mode);
    std::string verdict;
    if (id.root) verdict = "root";
    else if (d.world_accessible) verdict = "open to all users";
    else if (d.open == OpenCheck::ok) verdict = "opens";
    else {
      verdict = "/etc/group: " + yes_no(d.in_etc_group);
      // Membership from a directory service (sssd, LDAP) is what /etc/group cannot show.
      if (d.in_nss.value_or(false) && !d.in_etc_group.value_or(false)) verdict += "   NSS: yes";
      verdict += "   session: " + yes_no(d.in_session);
    }
    if (d.open == OpenCheck::failed) verdict += "   open: errno " + std::to_string(d.open_errno);
    rows.push_back({d.path, owner, verdict});
  }
  return table(rows, "  ");
}

std::string marker(const TextStyle& s, Severity sev) {
  switch (sev) {
    case Severity::error: return paint(s, Color::red, s.unicode ? "✗" : "x");
    case Severity::warning: return paint(s, Color::yellow, "!");
    case Severity::info: return paint(s, Color::blue, "i");
  }
  return "?";
}

// The label of a hand command by its role: "fix" for the first ("or" when a recipe
// comes first), "then" for a step after the previous, "or" for an alternative to it.
const char* command_label(const Finding& f, std::size_t i) {
  switch (f.command_role(i)) {
    case CommandRole::run: return f.fix && i == 0 ? "or" : "fix";
    case CommandRole::then: return "then";
    case CommandRole::alt: return "or";
  }
  return "fix";
}

std::string findings_block(const Report& r, const TextStyle& s) {
  if (r.findings.empty()) return "  " + paint(s, Color::green, s.unicode ? "✓" : "ok") + " no problems found\n";
  std::string out;
  for (const auto& f : r.findings) {
    out += "  " + marker(s, f.severity) + " " + paint(s, Color::bold, f.title) + "  " + paint(s, Color::dim, "[" + std::string(to_string(f.id)) + "]") + "\n";
    if (!f.detail.empty()) out += "      cause: " + f.detail + "\n";
    for (const auto& e : f.evidence) out += "      seen:  " + e.source + (e.value.empty() ? "" : " = " + e.value) + "\n";
    if (f.fix) {
      std::string p;
      auto params = formats::fix_params_json(f.fix->params);
      // rocm-install: the release and the packages; the repository, key and pin details
      // are in `amdml fix`'s plan (and in JSON), not in one comment.
      if (std::holds_alternative<RocmInstallParams>(f.fix->params))
        for (const char* k : {"rocm_repo", "graphics_repo", "codename", "key_url", "origin", "login", "login_groups", "fingerprint",
                              "manager"})
          params.erase(k);
      // hsa-override: the shell's variables in the way are for the step by hand, not what
      // the recipe writes.
      params.erase("shell_unset");
      for (const auto& [k, v] : params.items()) {
        std::string val = v.is_string() ? v.get<std::string>() : json_text(v, -1);
        p += " " + k + "=" + val;
      }
      out += "      fix:   " + fix_command(f, r.facts) + paint(s, Color::dim, "   #" + p) + "\n";
    }
    // Commands are steps in order: the first is the fix (or the manual alternative to
    // the recipe), the rest follow it.
    for (std::size_t i = 0; i < f.commands.size(); ++i)
      out += std::string("      ") + command_label(f, i) + ":" + std::string(6 - std::string(command_label(f, i)).size(), ' ') +
             f.commands[i] + "\n";
    for (const auto& n : f.notes) out += "      note:  " + n + "\n";
  }
  return out;
}

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

std::string render_text(const Report& r, const TextStyle& s) {
  std::string out;
  out += paint(s, Color::bold, "System") + "\n" + system_block(r) + "\n";
  out += paint(s, Color::bold, "GPUs") + "\n" + gpu_block(r) + "\n";
  out += paint(s, Color::bold, "Access") + " (user " + (r.facts.identity.user.empty() ? "?" : r.facts.identity.user) + ")\n" +
         access_block(r) + "\n";
  out += paint(s, Color::bold, "Findings") + "\n" + findings_block(r, s) + "\n";
  if (!r.facts.errors.empty())
    out += paint(s, Color::dim, "(" + plural(static_cast<int>(r.facts.errors.size()), "value") +
                                    " could not be read; --format json lists them under facts.probe_errors)") + "\n";
  bool fixable = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.fix.has_value(); });
  std::string line = plural(r.summary.errors, "error") + ", " + plural(r.summary.warnings, "warning") + ", " +
                     plural(r.summary.infos, "note") + ". ";
  if (fixable) line += "Next: `amdml fix` shows the plan, `sudo amdml fix --apply` makes it.";
  else if (r.summary.errors) line += "Next: fix the errors above, then run `amdml doctor` again.";
  else if (r.summary.warnings) line += "GPU usable; the warnings above say what works badly.";
  else line += r.facts.gpus.size() > 1 ? "Ready: the GPUs are usable for ROCm workloads."
                                       : "Ready: the GPU is usable for ROCm workloads.";
  Color c = r.summary.errors ? Color::red : (r.summary.warnings ? Color::yellow : Color::green);
  out += paint(s, c, line) + "\n";
  return out;
}

std::string render_markdown(const Report& r) {
  const Facts& f = r.facts;
  std::string out = "### amdml doctor\n\n";
  out += "| | |\n|---|---|\n";
  out += "| OS | " + f.os.pretty_name.value_or(f.os.id.value_or("unknown")) + " |\n";
  out += "| Kernel | " + f.os.kernel_release.value_or("unknown") + " |\n";
  out += "| Memory | " + bytes_text(f.memory.total) + " |\n";
  out += "| Driver | " + std::string(!f.driver.amdgpu_loaded ? "not loaded" : (f.driver.dkms_version ? "amdgpu DKMS " + *f.driver.dkms_version : "amdgpu in-tree")) + " |\n";
  out += "| ROCm | " + (f.rocm.version ? f.rocm.version->str() : std::string(f.rocm.source == RocmSource::none ? "not found" : "unknown")) + " |\n";
  out += "| amdml | " + f.amdml_version + " |\n\n";
  out += "#### GPUs\n\n| # | Name | gfx | PCI id | VRAM | GTT | Type | KFD node |\n|---|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    std::string name = g.marketing_name.value_or(g.pci_id().empty() ? "AMD GPU" : "AMD GPU " + g.pci_id());
    out += "| " + std::to_string(i) + " | " + name + " | " + (g.gfx ? g.gfx->name() : "?") + " | " +
           g.pci_id() + " | " + bytes_text(g.vram) + " | " + bytes_text(g.gtt) + " | " +
           (!g.apu ? "?" : (*g.apu ? "APU" : "dGPU")) + " | " + (g.kfd_node ? std::to_string(*g.kfd_node) : "-") + " |\n";
  }
  if (f.gpus.empty()) out += "| - | none | | | | | | |\n";
  out += "\n#### Findings\n\n";
  if (r.findings.empty()) out += "No problems found.\n";
  for (const auto& fd : r.findings) {
    out += "- **" + std::string(to_string(fd.severity)) + "** `" + std::string(to_string(fd.id)) + "`: " + fd.title + "\n";
    if (!fd.detail.empty()) out += "  - cause: " + fd.detail + "\n";
    for (const auto& e : fd.evidence) out += "  - seen: `" + e.source + "` = `" + e.value + "`\n";
    if (fd.fix) out += "  - fix: `" + fix_command(fd, r.facts) + "`\n";
    for (std::size_t i = 0; i < fd.commands.size(); ++i)
      out += std::string("  - ") + command_label(fd, i) + ": `" + fd.commands[i] + "`\n";
    for (const auto& n : fd.notes) out += "  - note: " + n + "\n";
  }
  out += "\n" + std::to_string(r.summary.errors) + " error(s), " + std::to_string(r.summary.warnings) + " warning(s), " +
         std::to_string(r.summary.infos) + " note(s).\n";
  return out;
}

}  // namespace amdml::render