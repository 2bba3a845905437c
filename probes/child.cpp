// The runtime children's parent side (probes/child.hpp).
#include "probes/child.hpp"

#include <chrono>

#include "base/enum_names.hpp"
#include "formats/json.hpp"

namespace amdml::probes {
namespace {

// The progress marker the child writes to stderr (platform::kProbeStepMarker; the
// parent reads it back here, across the process boundary).
constexpr const char* kStepMarker = "amdml-probe: step ";
constexpr std::size_t kStderrKeep = 2000;

// Splits the child's stderr into its last progress marker and the rest (the runtime's
// own messages), keeping the end of the latter.
void read_stderr(const std::string& err, ChildOutcome& out) {
  std::string rest;
  std::size_t pos = 0;
  while (pos < err.size()) {
    std::size_t end = err.find('\n', pos);
    if (end == std::string::npos) end = err.size();
    std::string line = err.substr(pos, end - pos);
    if (line.starts_with(kStepMarker)) out.last_step = line.substr(std::string(kStepMarker).size());
    else if (!line.empty()) rest += line + "\n";
    pos = end + 1;
  }
  if (rest.size() > kStderrKeep) rest = "..." + rest.substr(rest.size() - kStderrKeep);
  out.stderr_tail = rest;
}

// Linux's numbers, as a crashed child reports them (the same on every architecture
// amdml runs on).
constexpr EnumName<int> kSignalNames[] = {{4, "SIGILL"},  {6, "SIGABRT"},  {7, "SIGBUS"}, {8, "SIGFPE"},
                                          {9, "SIGKILL"}, {11, "SIGSEGV"}, {15, "SIGTERM"}};

std::string signal_name(int sig) {
  if (const char* name = enum_name(kSignalNames, sig, nullptr)) return name;
  return "signal " + std::to_string(sig);
}

}  // namespace

ChildOutcome run_child(const ProbeContext& ctx, std::vector<std::string> args, std::chrono::milliseconds timeout) {
  ChildOutcome out;
  std::string helper = ctx.options.runtime_helper.empty() ? "/proc/self/exe" : ctx.options.runtime_helper;
  args.insert(args.begin(), helper);
  auto start = std::chrono::steady_clock::now();
  auto r = ctx.host.run(args, timeout);
  out.elapsed_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
  if (!r) {
    out.outcome = HsaOutcome::bad_output;
    out.reason = "could not start " + helper + ": " + r.error().message;
    return out;
  }
  read_stderr(r->err, out);
  std::string where = out.last_step ? " (last step: " + *out.last_step + ")" : "";
  if (r->timed_out) {
    out.outcome = HsaOutcome::timed_out;
    out.reason = "no answer within " + std::to_string(timeout.count()) + " ms" + where +
                 "; the child was killed";
    return out;
  }
  if (r->signal) {
    out.outcome = HsaOutcome::crashed;
    out.signal = r->signal;
    out.reason = "the child died on " + signal_name(r->signal) + where;
    return out;
  }
  out.exit_code = r->exit_code;
  auto parsed = formats::parse_json(r->out);
  nlohmann::json doc = parsed ? std::move(*parsed) : nlohmann::json();
  if (!doc.is_object()) {
    out.outcome = r->exit_code != 0 ? HsaOutcome::crashed : HsaOutcome::bad_output;
    std::string head = r->out.substr(0, 80);
    for (auto& c : head)
      if (c == '\n' || c == '\r') c = ' ';
    out.reason = (r->exit_code != 0 ? "the child exited with status " + std::to_string(r->exit_code) + where + " and "
                                    : std::string("the child ")) +
                 (r->out.empty() ? "printed nothing" : "printed something that is not amdml's JSON: \"" + head + "\"");
    return out;
  }
  out.doc = std::move(doc);
  return out;
}

}  // namespace amdml::probes
