// knowledge.stale: the knowledge amdml judged this machine by (ROCm releases, GPUs,
// wheels, ollama builds) is more than kStaleDays older than today. ROCm moved from 7.2
// to 10.1 within 2026 (a release every month or two), so after four months the advice
// may miss a release that changes it. An info: the diagnosis itself still stands.
#include "rules/rules_internal.hpp"

namespace amdml::rules {

namespace {
constexpr std::int64_t kStaleDays = 120;
}  // namespace

void knowledge_rules(const RuleContext& ctx, std::vector<Finding>& out) {
  const KnowledgeFacts& k = ctx.facts.knowledge;
  if (!k.today || k.date.empty()) return;  // a fixture without a recorded time is not judged by the test's day
  auto today = parse_day(*k.today);
  auto date = parse_day(k.date);
  if (!today || !date || *today - *date <= kStaleDays) return;
  const std::int64_t days = *today - *date;
  const std::string where = k.source == "installed" ? "the bundle installed by `amdml update`"
                            : k.source == "recipes" ? "the --recipes directory"
                                                    : "the knowledge built into this amdml";
  auto fd = make_finding(FindingId::knowledge_stale,
                         "amdml's knowledge is " + std::to_string(days) + " days old (" + k.date + ")",
                         "The ROCm releases, GPUs, PyTorch wheels and ollama builds amdml judged by come from " + where +
                             ", whose newest fact is from " + k.date +
                             ". Releases since then may change the advice above; `sudo amdml update` fetches signed, "
                             "current knowledge without a new amdml.");
  fd.evidence.push_back({"knowledge date (" + k.source + ")", k.date});
  fd.evidence.push_back({"today", *k.today});
  if (k.source != "recipes") fd.commands.push_back("sudo amdml update");
  out.push_back(std::move(fd));
}

}  // namespace amdml::rules
