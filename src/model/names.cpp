// The model enums' to_string, from the tables in enum_tables.hpp.
#include "model/enum_tables.hpp"

namespace amdml {

const char* to_string(IsaFamily f) { return enum_name(names::kIsaFamily, f, "unknown"); }
std::optional<IsaFamily> parse_isa_family(const std::string& s) { return enum_from_name(names::kIsaFamily, s); }
const char* to_string(KernelStatus s) { return enum_name(names::kKernelStatus, s, "unknown"); }
const char* to_string(TorchBuild b) { return enum_name(names::kTorchBuild, b, "unknown"); }
const char* to_string(TorchRocm k) { return enum_name(names::kTorchRocm, k, "unknown"); }
const char* to_string(RocmChannel c) { return enum_name(names::kRocmChannel, c, "legacy"); }
const char* to_string(LlamaBackend b) { return enum_name(names::kLlamaBackend, b, "cpu"); }
const char* to_string(DeepStepKind k) { return enum_name(names::kDeepStepKind, k, "memory"); }
std::optional<DeepStepKind> parse_deep_step_kind(const std::string& s) { return enum_from_name(names::kDeepStepKind, s); }
const char* to_string(DeepOutcome o) { return enum_name(names::kDeepOutcome, o, "not-run"); }
std::optional<DeepOutcome> parse_deep_outcome(const std::string& s) { return enum_from_name(names::kDeepOutcome, s); }
const char* to_string(DeepAllocStop s) { return enum_name(names::kDeepAllocStop, s, "target"); }
std::optional<DeepAllocStop> parse_deep_alloc_stop(const std::string& s) { return enum_from_name(names::kDeepAllocStop, s); }
const char* to_string(HsaOutcome o) { return enum_name(names::kHsaOutcome, o, "not-run"); }
std::optional<HsaOutcome> parse_hsa_outcome(const std::string& s) { return enum_from_name(names::kHsaOutcome, s); }
const char* to_string(HsaDeviceType t) { return enum_name(names::kHsaDeviceType, t, "unknown"); }
const char* to_string(HsaSegment s) { return enum_name(names::kHsaSegment, s, "unknown"); }
const char* to_string(ValueSource s) { return enum_name(names::kValueSource, s, "sysfs"); }
const char* to_string(CheckStatus s) { return enum_name(names::kCheckStatus, s, "passed"); }
namespace systemd {
const char* to_string(UnitIssue::Kind k) { return enum_name(names::kUnitIssueKind, k, "?"); }
}  // namespace systemd

}  // namespace amdml
