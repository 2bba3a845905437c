// ollama.discovery: what ollama's own journal says about its last start's GPU discovery,
// tied to the finding that explains it. Runs after the other ollama.* rules (it reads
// their findings). The rest of ollama.* is ollama.cpp's.
#include <algorithm>

#include "rules/rules_internal.hpp"

namespace amdml::rules {
namespace {

// The findings that can explain each reason ollama gives, most specific first.
std::vector<FindingId> explainers(OllamaReason r) {
  switch (r) {
    case OllamaReason::gfx_unsupported:
      return {FindingId::ollama_gfx_unsupported, FindingId::gfx_override_needed, FindingId::gfx_unsupported,
              FindingId::ollama_env};
    case OllamaReason::igpu_filtered:
      return {FindingId::memory_gtt_limit, FindingId::env_visible_devices, FindingId::ollama_env};
    case OllamaReason::library_unverified: return {FindingId::ml_rocm_libraries, FindingId::ollama_driver};
    case OllamaReason::discovery_timeout:
      return {FindingId::ollama_driver, FindingId::kernel_page_fault, FindingId::kernel_firmware_error,
              FindingId::kernel_gpu_reset, FindingId::kernel_old};
    case OllamaReason::override_invalid: return {FindingId::ollama_env, FindingId::gfx_override_invalid};
    case OllamaReason::runner_crashed:
      return {FindingId::kernel_page_fault, FindingId::kernel_gpu_reset, FindingId::ollama_gfx_unsupported,
              FindingId::ollama_env};
    case OllamaReason::no_compatible_gpu:
      return {FindingId::driver_not_loaded, FindingId::kfd_missing,      FindingId::kfd_gpu_missing,
              FindingId::ollama_access,     FindingId::ollama_gfx_unsupported, FindingId::ollama_env,
              FindingId::kernel_module_rejected, FindingId::kernel_probe_failed};
    case OllamaReason::gpu_found: return {};
  }
  return {};
}

const char* reason_text(OllamaReason r) {
  switch (r) {
    case OllamaReason::gfx_unsupported: return "its ROCm build has no kernels for the GPU's gfx";
    case OllamaReason::igpu_filtered: return "it skipped the integrated GPU";
    case OllamaReason::library_unverified: return "it could not find or verify its ROCm libraries";
    case OllamaReason::discovery_timeout: return "GPU discovery did not finish in time";
    case OllamaReason::override_invalid: return "HSA_OVERRIDE_GFX_VERSION is invalid";
    case OllamaReason::runner_crashed: return "its GPU runner crashed";
    case OllamaReason::no_compatible_gpu: return "it found no compatible GPU";
    case OllamaReason::gpu_found: return "it found a GPU";
  }
  return "";
}

}  // namespace

void ollama_journal_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const auto& j = ctx.facts.ollama_journal;
  if (!j.read || j.lines.empty()) return;
  const bool found = std::any_of(j.lines.begin(), j.lines.end(), [](const auto& l) { return l.reason == OllamaReason::gpu_found; });
  std::vector<const OllamaJournalLine*> bad;
  for (const auto& l : j.lines)
    if (l.reason != OllamaReason::gpu_found) bad.push_back(&l);
  if (bad.empty() || (found && std::none_of(bad.begin(), bad.end(), [](const auto* l) {
                        return l->reason == OllamaReason::runner_crashed;
                      })))
    return;
  // The most telling line: a specific reason over the final "no compatible GPUs".
  const OllamaJournalLine* main = bad.back();
  for (const auto* l : bad)
    if (l->reason != OllamaReason::no_compatible_gpu) main = l;
  auto fd = make_finding(FindingId::ollama_discovery, std::string("ollama's last start: ") + reason_text(main->reason),
                         found ? "ollama found the GPU but its runner then failed."
                               : "ollama's service journal says it did not use the AMD GPU, so models run on the CPU.");
  fd.evidence.push_back({j.source, main->line});
  if (main != bad.back()) fd.evidence.push_back({j.source, bad.back()->line});
  std::vector<std::string> why;
  for (FindingId id : explainers(main->reason))
    for (const auto& o : out)
      if (o.id == id && std::find(why.begin(), why.end(), std::string(to_string(id))) == why.end())
        why.push_back(std::string(to_string(id)));
  if (!why.empty()) fd.notes.push_back("Explained by " + text::join(why, ", ") + " above: its fix is this one's.");
  else fd.notes.push_back("No other check explains it; `journalctl -u ollama -b 0` has the whole log.");
  fd.commands.push_back("sudo systemctl restart ollama");
  out.push_back(std::move(fd));
}

}  // namespace amdml::rules
