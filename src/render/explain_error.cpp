#include "render/explain_error.hpp"

#include <algorithm>

#include "base/text.hpp"

namespace amdml::render {

namespace {

// Words of s filled into lines of at most width - indent bytes; every line after the
// first starts with indent blanks (the caller wrote the first line's prefix).
std::string wrap(std::string_view s, std::size_t indent, std::size_t width) {
  const std::size_t room = width > indent + 20 ? width - indent : 20;
  std::string out, line;
  for (const auto& w : text::split_ws(s)) {
    if (!line.empty() && line.size() + 1 + w.size() > room) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  return out + line + "\n";
}

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s += std::string(n - s.size(), ' ');
  return s;
}

const char* verdict_text(CauseVerdict v) {
  switch (v) {
    case CauseVerdict::confirmed: return "confirmed";
    case CauseVerdict::unknown: return "not known";
    case CauseVerdict::ruled_out: return "ruled out";
  }
  return "not known";
}

std::string amdml_command(const ErrorExplanation& e, std::vector<std::string> words) {
  std::vector<std::string> argv{"amdml"};
  if (e.root != "/") {
    argv.push_back("--root");
    argv.push_back(e.root);
  }
  argv.insert(argv.end(), e.recipes_flag.begin(), e.recipes_flag.end());
  argv.insert(argv.end(), words.begin(), words.end());
  return text::shell_words(argv);
}

std::string causes_text(const ExplainedMatch& m, std::size_t width) {
  constexpr std::size_t kIndent = 17;  // "    1 confirmed  "
  std::string out;
  for (const auto& c : m.causes) {
    std::string head = "    " + std::to_string(c.rank) + " " + verdict_text(c.verdict);
    out += pad(head, kIndent) + wrap(c.cause->text, kIndent, width);
    for (const auto& ev : c.evidence)
      out += std::string(kIndent, ' ') + (ev.supports ? "+ " : "- ") + wrap(ev.source + ": " + ev.text, kIndent + 2, width);
    if (c.verdict != CauseVerdict::ruled_out) {
      for (std::size_t i = 0; i < c.commands.size(); ++i)
        // Labelled as the doctor's text labels a finding's steps: fix, then, or.
        out += std::string(kIndent, ' ') +
               (i >= c.command_roles.size() ? "then" : c.command_roles[i] == "run" ? "fix" : c.command_roles[i]) +
               ": " + c.commands[i] + "\n";
      if (!c.cause->fix.empty()) out += std::string(kIndent, ' ') + "fix: " + wrap(c.cause->fix, kIndent + 5, width);
    }
  }
  return out;
}

std::string match_text(const ExplainedMatch& m, std::size_t width) {
  constexpr std::size_t kIndent = 12;  // "  captured  "
  const ErrorMatch& mt = *m.match;
  std::string out = mt.entry->title + "  [" + mt.entry->id + "]\n";
  for (const auto& l : mt.lines) out += "  " + pad("line " + std::to_string(l.number), kIndent - 2) + l.text + "\n";
  if (mt.count > mt.lines.size())
    out += std::string(kIndent, ' ') + "(" + std::to_string(mt.count - mt.lines.size()) + " more matching lines)\n";
  std::vector<std::string> caps;
  for (const auto& [k, v] : mt.captures) caps.push_back(k + "=" + v);
  if (!caps.empty()) out += "  " + pad("captured", kIndent - 2) + text::join(caps, " ") + "\n";
  out += "  " + pad("meaning", kIndent - 2) + wrap(mt.entry->meaning, kIndent, width);
  out += "  causes    most likely first (number), checked on this machine\n";
  return out + causes_text(m, width);
}

}  // namespace

std::string render_error_explain_text(const ErrorExplanation& e, std::size_t width) {
  const ErrorScan& s = *e.scan;
  std::string out = "Matched " + std::to_string(e.matches.size()) + (e.matches.size() == 1 ? " known message" : " known messages") +
                    " in " + std::to_string(s.lines) + (s.lines == 1 ? " line" : " lines");
  out += e.root == "/" ? " (checked on this machine)\n" : " (checked on --root " + e.root + ")\n";
  if (s.truncated)
    out += "Read the last " + std::to_string(kMaxExplainInput >> 10) + " KiB of " + std::to_string(s.bytes) + " bytes.\n";
  if (s.ollama_log) out += "An ollama server log: its entries count from the last start.\n";
  std::vector<std::string> confirmed;
  for (const auto& m : e.matches) {
    out += "\n" + match_text(m, width);
    for (const auto& c : m.causes)
      if (c.verdict == CauseVerdict::confirmed)
        for (const auto& ev : c.evidence)
          if (ev.supports && ev.source.find('.') != std::string::npos &&
              std::find(confirmed.begin(), confirmed.end(), ev.source) == confirmed.end())
            confirmed.push_back(ev.source);
  }
  out += "\n";
  if (!confirmed.empty())
    out += "Next: " + amdml_command(e, {"explain", confirmed.front()}) + " (the confirmed finding's page), or " +
           amdml_command(e, {"doctor"}) + " (the whole machine, with fixes)\n";
  else
    out += "Next: " + amdml_command(e, {"doctor"}) + " (everything amdml sees on this machine)\n";
  return out;
}

nlohmann::json error_explain_json(const ErrorExplanation& e) {
  const ErrorScan& s = *e.scan;
  nlohmann::json j{{"schema", "amdml.explain/1"}, {"subject", e.subject}, {"kind", "message"}};
  j["input"] = {{"bytes", s.bytes},
                {"lines", s.lines},
                {"truncated", s.truncated},
                {"limit_bytes", kMaxExplainInput},
                {"ollama_log", s.ollama_log}};
  j["root"] = e.root;
  nlohmann::json matches = nlohmann::json::array();
  for (const auto& m : e.matches) {
    const ErrorMatch& mt = *m.match;
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& l : mt.lines) lines.push_back({{"line", l.number}, {"text", l.text}});
    nlohmann::json caps = nlohmann::json::array();
    for (const auto& [k, v] : mt.captures) caps.push_back({{"kind", k}, {"value", v}});
    nlohmann::json causes = nlohmann::json::array();
    for (const auto& c : m.causes) {
      nlohmann::json ev = nlohmann::json::array();
      for (const auto& x : c.evidence) ev.push_back({{"source", x.source}, {"text", x.text}, {"supports", x.supports}});
      std::vector<std::string> ids;
      for (auto id : c.cause->findings) ids.emplace_back(to_string(id));
      causes.push_back({{"rank", c.rank},
                        {"text", c.cause->text},
                        {"verdict", to_string(c.verdict)},
                        {"findings", ids},
                        {"evidence", ev},
                        {"commands", c.commands},
                        {"command_roles", c.command_roles},
                        {"fix", c.cause->fix.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.cause->fix)}});
    }
    matches.push_back({{"id", mt.entry->id},
                       {"title", mt.entry->title},
                       {"meaning", mt.entry->meaning},
                       {"via", mt.via},
                       {"count", mt.count},
                       {"lines", lines},
                       {"captures", caps},
                       {"causes", causes}});
  }
  j["matches"] = matches;
  return j;
}

}  // namespace amdml::render