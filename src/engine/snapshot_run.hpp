// What `amdml snapshot` and `amdml report` share: one doctor run through the recording
// host, then the size policy and redaction applied to what it recorded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "formats/snapshot.hpp"
#include "engine/pipeline.hpp"

namespace amdml::engine {

struct RecordedRun {
  Report report;                    // the doctor's report on the host itself (not redacted)
  formats::Recording recording;              // trimmed and (unless --no-redact) redacted
  formats::Redactor redactor;                // the replacements made, for any other text
  std::vector<std::string> trimmed; // files cut down by the size policy
  std::string manifest_text;        // amdml-host.json
  bool redacted = true;
};

// Runs the doctor on the session's host through a recording host and prepares the
// record for writing.
RecordedRun record_run(const Session& s, const probes::ProbeOptions& po, bool redact);

// Throws for a snapshot that could not be written: UsageError (exit 2) when OUT is
// bad input (exists, not empty, not writable, no such directory), else an internal
// error (exit 3: disk full, tar failed, ...).
[[noreturn]] void snapshot_failed(const std::string& out, const Error& e);

// The summary lines of a written snapshot (sizes, what was redacted and trimmed).
std::vector<std::string> snapshot_summary(const RecordedRun& run);

}  // namespace amdml::engine
