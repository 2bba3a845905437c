// The boot evidence in doctor's JSON facts: kernel_log, boot, ollama_journal.
#include <nlohmann/json.hpp>

#include "amdml/facts.hpp"
#include "formats/kmsg.hpp"
#include "render/facts_json.hpp"

namespace amdml::render {

using nlohmann::json;

void boot_facts_json(const Facts& f, json& j) {
  const auto& k = f.kernel_log;
  json events = json::array();
  for (const auto& e : k.events) {
    json ev = {{"kind", to_string(e.kind)}, {"usec", e.usec}, {"time", formats::kmsg::time_label(e.usec)},
               {"line", e.line},           {"subject", e.subject}, {"process", e.process}};
    ev["error"] = e.error_code ? json(*e.error_code) : json(nullptr);
    events.push_back(std::move(ev));
  }
  j["kernel_log"] = {{"read", k.read},       {"source", k.source},       {"needs_root", k.needs_root},
                     {"records", k.records}, {"truncated", k.truncated}, {"events", std::move(events)}};
  const auto& b = f.boot;
  json bl = json::array();
  for (const auto& x : b.blacklists) bl.push_back({{"where", x.where}, {"text", x.text}});
  j["boot"] = {{"secure_boot", b.secure_boot ? json(*b.secure_boot) : json(nullptr)},
               {"lockdown", b.lockdown ? json(*b.lockdown) : json(nullptr)},
               {"dkms", to_string(b.dkms)},
               {"dkms_versions", b.dkms_versions},
               {"dkms_module", b.dkms_module ? json(*b.dkms_module) : json(nullptr)},
               {"blacklists", std::move(bl)}};
  json lines = json::array();
  for (const auto& l : f.ollama_journal.lines)
    lines.push_back({{"reason", to_string(l.reason)}, {"line", l.line}, {"detail", l.detail}});
  j["ollama_journal"] = {{"read", f.ollama_journal.read}, {"source", f.ollama_journal.source}, {"lines", std::move(lines)}};
}

}  // namespace amdml::render