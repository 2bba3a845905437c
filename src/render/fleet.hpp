// Renderers for fleet tools: the Prometheus text exposition format (for node_exporter's
// textfile collector) and a Node Feature Discovery local feature file (Kubernetes node
// labels). Both take a finished Report and write text; they decide nothing the rules
// did not, and they read no clock and no file (the run time is passed in).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "amdml/knowledge.hpp"
#include "amdml/report.hpp"

namespace amdml::render {

// node_exporter textfile format: every family with HELP and TYPE, label values escaped
// (\\, \", \n) and valid UTF-8. `unix_time` is the time of the run, in seconds.
std::string prometheus_text(const Report& report, std::int64_t unix_time);
// The same format for a run that could not start (bad --root, broken manifest): the
// collector still shows that amdml ran and failed, and why.
std::string prometheus_error_text(const std::string& message, std::int64_t unix_time);
// A label value as the exposition format spells it, without the quotes.
std::string prometheus_label_value(std::string_view text);

// NFD features.d file: `name=value` lines under the amd.com/ prefix, every name and
// value within Kubernetes label syntax. The knowledge base supplies the gfx families.
std::string nfd_text(const Report& report, const Knowledge& kb);
// The file for a run that could not start (bad --root, broken manifest): the reason as a
// comment and amd.com/gpu.usable=false, so a stale "true" is withdrawn (as Prometheus
// gets amdml_run_success 0).
std::string nfd_error_text(const std::string& message);
// `text` as a label value (<= 63 of [A-Za-z0-9._-], alphanumeric at both ends); "" when
// nothing of it survives.
std::string nfd_label_value(std::string_view text);

}  // namespace amdml::render
