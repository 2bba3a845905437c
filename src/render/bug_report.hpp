// The bug report `amdml report` prints: the doctor's Report laid out as Markdown for
// a GitHub issue (system, versions, GPUs, access, findings, runtime and ML facts,
// environment, the attached snapshot), or as the doctor's JSON with a "report" key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdml/report.hpp"

namespace amdml::render {

struct BugReportExtras {
  std::optional<std::string> snapshot_path;  // the tarball written with --snapshot
  std::optional<std::string> snapshot_dir;   // the directory inside it
  std::uint64_t snapshot_bytes = 0;
  bool redacted = true;
  std::vector<std::string> redaction;  // summary lines
};

std::string render_bug_report(const Report& report, const BugReportExtras& extras);
nlohmann::json bug_report_json(const Report& report, const BugReportExtras& extras);

}  // namespace amdml::render