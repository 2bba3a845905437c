// The runtime record: the JSON form of what the HSA and libdrm probes saw, written by
// the probe children (amdml __probe-hsa / __probe-drm), kept in amdml-host.json under
// "hsa" and "libdrm", and read back by the runtime probe and the rooted host.
#pragma once

#include <nlohmann/json.hpp>

#include "amdml/facts_runtime.hpp"
#include "base/result.hpp"

namespace amdml::formats {

// The recorded form (amdml-host.json "hsa" / "libdrm", and what the probe children
// print). Reading is strict about types and lenient about absent keys: a missing value
// stays unknown; a value of the wrong kind is an error naming the key.
nlohmann::json hsa_record_json(const HsaFacts& h);
Result<HsaFacts> parse_hsa_record(const nlohmann::json& j);
nlohmann::json libdrm_record_json(const LibdrmFacts& d);
Result<LibdrmFacts> parse_libdrm_record(const nlohmann::json& j);

}  // namespace amdml::formats