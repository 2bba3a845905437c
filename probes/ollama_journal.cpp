// ollama's own account of its last start: the discovery lines of its service journal
// (live: journalctl -u ollama -b 0; --root: DIR/var/log/amdml-journal/ollama.log).
#include "formats/ollama_log.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

constexpr std::chrono::milliseconds kJournalTimeout{3000};
constexpr std::size_t kJournalBytes = 1 << 20;

void ollama_journal(const ProbeContext& ctx, Facts& f) {
  // Only where ollama is installed: no journalctl for machines without it.
  if (ctx.host.live() && !f.ml.ollama.installed) return;
  auto text = ctx.host.service_journal("ollama", kJournalBytes, kJournalTimeout);
  if (!text) return;  // no journal, or closed to this user: nothing ollama said
  f.ollama_journal.read = true;
  f.ollama_journal.source = ctx.host.live() ? "journalctl -u ollama -b 0" : platform::recorded_journal_path("ollama");
  f.ollama_journal.lines = formats::ollama_log::last_start(*text);
}

}  // namespace amdml::probes
