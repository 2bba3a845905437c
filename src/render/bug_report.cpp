// `amdml report` as Markdown and JSON (see bug_report.hpp).
#include "render/bug_report.hpp"

#include <cstdio>

#include "formats/fix_params_json.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"
#include "render/facts_json.hpp"
#include "render/format.hpp"

namespace amdml::render {

using render::bytes_text;
using render::mode_text;
using render::yes_no;

using nlohmann::json;

namespace {

// Table cells must not break the table.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += " ";
    else out += c;
  }
  return out;
}

std::string code(const std::string& s) { return s.empty() ? "" : "`" + cell(s) + "`"; }

// A command in running text (not a table cell): its bytes as they are, in a code span
// that a backtick inside cannot end.
std::string command_span(const std::string& s) {
  return s.find('`') == std::string::npos ? "`" + s + "`" : "`` " + s + " ``";
}


// A JSON fact tree as "a.b.c" -> scalar rows (arrays by index), nulls left out.
void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "[" + std::to_string(i) + "]", out);
  } else if (!j.is_null()) {
    out.push_back({prefix, j.is_string() ? j.get<std::string>() : json_text(j, -1)});
  }
}

std::string facts_section(const char* title, const json& j) {
  std::vector<std::pair<std::string, std::string>> rows;
  flatten(j, "", rows);
  if (rows.size() <= 1) return "";  // only "probed"
  std::string out = std::string("### ") + title + "\n\n<details><summary>" + std::to_string(rows.size()) +
                    " values</summary>\n\n| fact | value |\n|---|---|\n";
  for (const auto& [k, v] : rows) out += "| " + cell(k) + " | " + code(v) + " |\n";
  return out + "\n</details>\n\n";
}

// "ollama.version" -> ("ollama", "0.9.6"): every version the runtime and ML facts hold.
std::vector<std::pair<std::string, std::string>> versions_in(const json& j, const std::string& area) {
  std::vector<std::pair<std::string, std::string>> rows, out;
  flatten(j, area, rows);
  for (const auto& [k, v] : rows) {
    if (k.ends_with("version")) out.push_back({k, v});
  }
  return out;
}

std::string system_section(const Facts& f) {
  std::string out;
  out += "### System\n\n| | |\n|---|---|\n";
  std::string os = f.os.pretty_name.value_or(f.os.id.value_or("unknown"));
  if (f.os.wsl) os += " (WSL)";
  out += "| OS | " + cell(os) + " |\n";
  out += "| Kernel | " + cell(f.os.kernel_release.value_or("unknown")) +
         (f.os.machine ? " (" + cell(*f.os.machine) + ")" : "") + " |\n";
  out += "| Memory | " + bytes_text(f.memory.total) + " |\n";
  out += "| Container | " + std::string(f.container.kind ? to_string(*f.container.kind) : "none") + " |\n";
  std::string drv;
  if (!f.driver.amdgpu_loaded) drv = "amdgpu not loaded";
  else {
    drv = f.driver.dkms_version ? "amdgpu " + *f.driver.dkms_version + " (AMD DKMS)" : "amdgpu (in-tree)";
    if (f.driver.initstate) drv += ", initstate " + *f.driver.initstate;
  }
  out += "| Driver | " + cell(drv) + " |\n";
  const TtmModuleState* ttm = f.driver.ttm_in_use == TtmModule::amdttm ? &f.driver.amdttm
                         : f.driver.ttm_in_use == TtmModule::ttm  ? &f.driver.ttm
                                                                  : nullptr;
  if (ttm)
    out += "| TTM | " + std::string(to_string(f.driver.ttm_in_use)) +
           (ttm->pages_limit ? ", pages_limit " + std::to_string(ttm->pages_limit->value) + " (" +
                                   format_bytes(ttm->pages_limit->bytes()) + ")"
                             : std::string()) +
           " |\n";
  if (!f.driver.cmdline_options.empty()) {
    std::string opts;
    for (const auto& [k, v] : f.driver.cmdline_options) opts += (opts.empty() ? "" : " ") + k + "=" + v;
    out += "| Kernel options | " + code(opts) + " |\n";
  }
  for (const auto& m : f.modprobe.options)
    out += "| modprobe.d | " + code(m.module + " " + m.key + "=" + m.value) + " in " + code(m.file) + " |\n";

  return out;
}

std::string versions_section(const Facts& f) {
  std::string out;
  out += "\n### Versions\n\n| | |\n|---|---|\n";
  std::string rocm;
  if (f.rocm.source == RocmSource::none) rocm = "not found";
  else {
    rocm = f.rocm.version ? f.rocm.version->str() : "unknown version";
    rocm += " at " + code(f.rocm.path.value_or("?"));
    if (f.rocm.resolved_path && f.rocm.resolved_path != f.rocm.path) rocm += " -> " + code(*f.rocm.resolved_path);
    if (f.rocm.source == RocmSource::distro) rocm += " (distribution packages)";
  }
  out += "| ROCm | " + rocm + " |\n";
  if (f.rocm.hsa_library) out += "| HSA runtime library | " + code(*f.rocm.hsa_library) + " |\n";
  for (const auto& [k, v] : versions_in(runtime_facts_json(f.runtime), "runtime")) out += "| " + cell(k) + " | " + cell(v) + " |\n";
  for (const auto& [k, v] : versions_in(ml_facts_json(f.ml), "ml")) out += "| " + cell(k) + " | " + cell(v) + " |\n";
  out += "| amdml | " + cell(f.amdml_version) + " |\n";

  return out;
}

std::string gpus_section(const Facts& f) {
  std::string out;
  out += "\n### GPUs\n\n| # | Name | gfx | PCI id | PCI slot | VRAM | GTT | KFD memory | Type | KFD node | Render node |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    out += "| " + std::to_string(i) + " | " + cell(g.marketing_name.value_or("?")) + " | " + (g.gfx ? g.gfx->name() : "?") +
           " | " + g.pci_id() + " | " + g.pci_slot.value_or("-") + " | " + bytes_text(g.vram) + " | " + bytes_text(g.gtt) +
           " | " + bytes_text(g.kfd_memory) + " | " + (!g.apu ? "?" : (*g.apu ? "APU" : "dGPU")) + " | " +
           (g.kfd_node ? std::to_string(*g.kfd_node) : "-") + " | " + g.render_node.value_or("-") + " |\n";
  }
  if (f.gpus.empty()) out += "| - | none | | | | | | | | | |\n";

  return out;
}

std::string access_section(const Facts& f) {
  std::string out;
  const auto& id = f.identity;
  out += "\n### Access\n\nUser " + code(id.user.empty() ? "?" : id.user) +
         (id.user_uid ? " (uid " + std::to_string(*id.user_uid) + ")" : "") + (id.root ? ", running as root" : "") +
         (id.process.sudo_user ? ", via sudo" : "") + ".\n\n";
  if (!id.devices_known) out += "Device nodes unknown.\n";
  else {
    out += "| Device | Group | Mode | in /etc/group | in session | open() |\n|---|---|---|---|---|---|\n";
    for (const auto& d : id.devices) {
      if (!d.exists) {
        out += "| " + code(d.path) + " | absent | | | | |\n";
        continue;
      }
      std::string open = d.open == OpenCheck::ok ? "ok" : d.open == OpenCheck::failed ? "errno " + std::to_string(d.open_errno) : "-";
      out += "| " + code(d.path) + " | " + cell(d.group.value_or(d.gid ? "gid " + std::to_string(*d.gid) : "?")) + " | " +
             mode_text(d.mode) + " | " + yes_no(d.in_etc_group) + " | " + yes_no(d.in_session) + " | " + open + " |\n";
    }
  }

  return out;
}

std::string findings_section(const Report& r) {
  std::string out;
  out += "\n### Findings\n\n";
  if (r.findings.empty()) out += "No problems found.\n";
  for (const auto& fd : r.findings) {
    out += "- **" + std::string(to_string(fd.severity)) + "** `" + std::string(to_string(fd.id)) + "`: " + fd.title + "\n";
    if (!fd.detail.empty()) out += "  - cause: " + fd.detail + "\n";
    for (const auto& e : fd.evidence) out += "  - seen: " + code(e.source) + (e.value.empty() ? "" : " = " + code(e.value)) + "\n";
    if (fd.fix) out += "  - fix: `" + fix_command(fd, r.facts) + "` " + code(json_text(formats::fix_params_json(fd.fix->params), -1)) + "\n";
    for (const auto& c : fd.commands) out += "  - fix: " + code(c) + "\n";
  }
  out += "\n";

  return out;
}

}  // namespace

std::string render_bug_report(const Report& r, const BugReportExtras& x) {
  const Facts& f = r.facts;
  std::string out;
  out += "## amdml report\n\n";
  out += std::to_string(r.summary.errors) + " error(s), " + std::to_string(r.summary.warnings) + " warning(s), " +
         std::to_string(r.summary.infos) + " note(s) from `amdml doctor` " + f.amdml_version + ".";
  if (x.redacted) out += " User names, host names, serial numbers and UUIDs are replaced (user1, host1, ...).";
  out += "\n\n";

  out += system_section(f);
  out += versions_section(f);
  out += gpus_section(f);
  out += access_section(f);
  out += findings_section(r);
  out += facts_section("Runtime", runtime_facts_json(f.runtime));
  out += facts_section("ML stack", ml_facts_json(f.ml));

  if (!f.env.empty()) {
    out += "### Environment\n\n| variable | value |\n|---|---|\n";
    for (const auto& [k, v] : f.env) out += "| " + cell(k) + " | " + code(v) + " |\n";
    out += "\n";
  }
  if (!f.errors.empty()) {
    out += "<details><summary>" + std::to_string(f.errors.size()) + " value(s) could not be read</summary>\n\n";
    for (const auto& e : f.errors) out += "- " + e.probe + ": " + code(e.path) + ": " + cell(e.message) + "\n";
    out += "\n</details>\n\n";
  }
  if (x.snapshot_path) {
    out += "### Snapshot\n\nAttached: " + code(*x.snapshot_path);
    if (x.snapshot_bytes) out += " (" + format_bytes(Bytes{x.snapshot_bytes}) + " uncompressed)";
    out += ". Replay: " +
           command_span("tar xzf " + text::shell_word(*x.snapshot_path) + " && amdml doctor --root " +
                (x.snapshot_dir ? text::shell_word(*x.snapshot_dir) : std::string("DIR"))) +
           "\n\n";
  }
  if (!x.redaction.empty()) {
    out += "<details><summary>Redaction</summary>\n\n";
    for (const auto& l : x.redaction) out += "- " + cell(l) + "\n";
    out += "\n</details>\n";
  }
  return out;
}

json bug_report_json(const Report& r, const BugReportExtras& x) {
  json j = report_json(r);
  j["report"] = {{"snapshot", x.snapshot_path ? json(*x.snapshot_path) : json(nullptr)},
                 {"snapshot_dir", x.snapshot_dir ? json(*x.snapshot_dir) : json(nullptr)},
                 {"redacted", x.redacted},
                 {"redaction", x.redaction}};
  return j;
}

}  // namespace amdml::render