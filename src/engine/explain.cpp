// amdml explain <subject>: what the knowledge base knows about a gfx target (gfx1103,
// or its override spelling 11.0.3), a PCI device (1002:15bf, 15bf), a product name
// ("7900 XTX", "780M") or a finding id --
// family, products, support per ROCm release, override and caveats, the PyTorch index,
// or the finding's documentation page. Reads no machine state.
//
// An error message instead ("Memory access fault by GPU node-1", or `-`: a pasted log on
// stdin) is matched against the error catalogue (recipes/errors/), and each matched
// entry's causes are checked on the machine with the doctor's own probes and rules
// (--root honoured): docs/explain.md.
#include <algorithm>
#include <cctype>

#include "base/text.hpp"
#include "engine/pipeline.hpp"
#include "model/knowledge_search.hpp"
#include "render/explain.hpp"
#include "render/render.hpp"
#include "rules/rules.hpp"
#include "platform/embedded.hpp"
#include "platform/stdin_text.hpp"
#include "platform/terminal.hpp"
#include "render/explain_error.hpp"
#include "rules/error_explain.hpp"
#include "formats/error_catalog_toml.hpp"

namespace amdml::engine {

namespace {

// "1002:15bf", "0x15bf", "15bf" -> device id.
std::optional<std::uint16_t> pci_subject(const std::string& s) {
  std::string d = s;
  for (auto& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (d.starts_with("1002:")) d = d.substr(5);
  if (d.starts_with("0x")) d = d.substr(2);
  if (d.size() != 4 || !std::all_of(d.begin(), d.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return static_cast<std::uint16_t>(std::stoul(d, nullptr, 16));
}

const platform::EmbeddedFile* finding_doc(const std::string& id) {
  for (const auto& f : platform::embedded_finding_docs())
    if (std::string(f.path) == id + ".md") return &f;
  return nullptr;
}

// The nearest finding ids, gfx targets and product names to a subject amdml does not
// know. Product names are also compared without "AMD Radeon (RX)", as people type them.
std::vector<std::string> suggest(const Knowledge& kb, const std::string& subject) {
  std::vector<std::string> forms, shown;
  auto add = [&](std::string form, const std::string& show) {
    forms.push_back(std::move(form));
    shown.push_back(show);
  };
  for (const auto& f : finding_catalog()) add(std::string(f.name), std::string(f.name));
  for (const auto& g : kb.gfx) add(g.target.name(), g.target.name());
  for (const auto& p : kb.pci) {
    std::string n = p.name;
    add(n, p.name);
    for (const char* prefix : {"AMD ", "Radeon ", "RX ", "Instinct ", "PRO "})
      if (n.starts_with(prefix)) {
        n = n.substr(std::string(prefix).size());
        add(n, p.name);
      }
  }
  std::vector<std::string> out;
  for (const auto& form : nearest(subject, forms, forms.size())) {
    for (std::size_t i = 0; i < forms.size(); ++i)
      if (forms[i] == form && std::find(out.begin(), out.end(), shown[i]) == out.end()) out.push_back(shown[i]);
    if (out.size() >= 3) break;
  }
  if (out.size() > 3) out.resize(3);
  return out;
}

// What the subject is, in the order a reader would guess: a finding id, a gfx target,
// its override spelling, a PCI id, a product name; else the nearest known subjects.
render::Explanation resolve(const Knowledge& kb, const std::string& subject) {
  render::Explanation e;
  e.subject = subject;
  if (const FindingSpec* spec = find_finding_spec(subject)) {
    e.kind = render::Explanation::Kind::finding;
    e.finding = spec;
    if (const platform::EmbeddedFile* doc = finding_doc(std::string(spec->name))) e.page = doc->text;
  } else if (auto t = GfxTarget::parse_name(subject); t && subject.size() > 3 && kb.find_gfx(*t)) {
    e.kind = render::Explanation::Kind::gfx;
    e.gfx = kb.find_gfx(*t);
  } else if (auto v = parse_hsa_override(subject); v.target && kb.find_gfx(*v.target)) {
    e.kind = render::Explanation::Kind::gfx;
    e.gfx = kb.find_gfx(*v.target);
  } else if (auto dev = pci_subject(subject); dev && kb.find_pci(*dev, std::nullopt)) {
    e.kind = render::Explanation::Kind::pci;
    e.pci_device = *dev;
    for (const auto& p : kb.pci)
      if (p.device == *dev) e.products.push_back(&p);
  } else if (auto named = products_named(kb, subject); !named.empty()) {
    e.kind = render::Explanation::Kind::product;
    e.products = std::move(named);
  } else {
    e.kind = render::Explanation::Kind::error;
    e.suggestions = suggest(kb, subject);
    e.error = "explain: unknown subject '" + subject +
              "' (expected a gfx target like gfx1103, a PCI id like 1002:15bf, a product name like \"7900 XTX\", "
              "or a finding id)";
    if (!e.suggestions.empty()) e.error += "; did you mean " + text::join(e.suggestions, " or ") + "?";
  }
  return e;
}

}  // namespace

namespace {

ErrorCatalog open_catalog(const Session& s) {
  return stage("catalogue", [&] {
    auto cat = formats::load_error_catalog(s.recipes);
    if (!cat) throw UsageError(cat.error().message);
    return std::move(*cat);
  });
}

// Text that matched nothing: exit 2 with the nearest entries, like an unknown subject.
[[noreturn]] void unknown_text(const ErrorCatalog& cat, const std::string& subject, const std::string& text, bool json) {
  render::Explanation e;
  e.kind = render::Explanation::Kind::error;
  e.subject = subject;
  for (const auto* entry : nearest_entries(cat, text)) e.suggestions.push_back(entry->id);
  e.error = "explain: no known error message in " + (subject == "-" ? std::string("the text on stdin") : "'" + text::one_line(subject.substr(0, 200)) + "'") +
            " (the catalogue has " + std::to_string(cat.entries.size()) + " messages: docs/explain.md)";
  if (!e.suggestions.empty()) e.error += "; nearest: " + text::join(e.suggestions, ", ");
  if (json) render::write_stdout(render::json_text(render::explain_json(Knowledge{}, e)) + "\n");
  throw UsageError(e.error);
}

// An error text: match it, run the doctor's probes and rules on the machine, and check
// each matched entry's causes against what they found.
int explain_message(const GlobalOptions& g, const ExplainOptions& o, const std::string& text, std::size_t total) {
  Session s = open_session(g);
  const ErrorCatalog cat = open_catalog(s);
  const ErrorScan scan = stage("match", [&] { return scan_error_text(cat, text, total); });
  const bool json = o.format == Format::json;
  if (scan.matches.empty()) unknown_text(cat, o.subject, text, json);
  Report r = run_doctor(s, o.probe.options());
  render::ErrorExplanation e;
  e.subject = o.subject;
  e.scan = &scan;
  e.root = s.host->live() ? "/" : s.host->root();
  if (!g.recipes.empty()) e.recipes_flag = {"--recipes", g.recipes};
  for (const auto& m : scan.matches) e.matches.push_back({&m, check_causes(*m.entry, r.facts, r.findings)});
  stage("report", [&] {
    if (json) render::write_stdout(render::json_text(render::error_explain_json(e)) + "\n");
    else emit_text("", render::render_error_explain_text(e));
  });
  return kExitOk;
}

}  // namespace

int explain(const GlobalOptions& g, const ExplainOptions& o) {
  if (o.subject == "-") {
    if (platform::stdin_is_tty()) error_line("paste the error text or log, then Ctrl-D", "amdml: ");
    auto in = platform::read_stdin_tail(kMaxExplainInput);
    if (!in) throw UsageError("explain -: " + in.error().message);
    return explain_message(g, o, in->text, in->total);
  }
  Session s;  // no host: explain reads no machine state
  open_knowledge(g, s);
  const render::Explanation e = resolve(s.kb, o.subject);
  const bool json = o.format == Format::json;
  if (e.kind == render::Explanation::Kind::error) {
    // Not a known subject: an error message when the catalogue knows it or it reads like one.
    // A --recipes DIR without errors/ keeps the subject error; explain_message reports it.
    const auto cat = formats::load_error_catalog(s.recipes);
    if (looks_like_error_text(o.subject) || (cat && !scan_error_text(*cat, o.subject).matches.empty()))
      return explain_message(g, o, o.subject, 0);
  }
  if (json) render::write_stdout(render::json_text(render::explain_json(s.kb, e)) + "\n");
  if (e.kind == render::Explanation::Kind::error) throw UsageError(e.error);
  if (!json) emit_text("", render::render_explain_text(s.kb, e));
  return kExitOk;
}

}  // namespace amdml::engine
