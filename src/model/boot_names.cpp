// Names of the boot-evidence enums (facts_boot.hpp), written once.
#include "amdml/facts_boot.hpp"
#include "base/enum_names.hpp"

namespace amdml {
namespace {

constexpr EnumName<DkmsState> kDkmsStateNames[] = {
    {DkmsState::none, "none"}, {DkmsState::missing, "missing"}, {DkmsState::built, "built"},
    {DkmsState::installed, "installed"}};

constexpr EnumName<OllamaReason> kOllamaReasonNames[] = {
    {OllamaReason::no_compatible_gpu, "no-compatible-gpu"},
    {OllamaReason::igpu_filtered, "igpu-filtered"},
    {OllamaReason::gfx_unsupported, "gfx-unsupported"},
    {OllamaReason::library_unverified, "library-unverified"},
    {OllamaReason::discovery_timeout, "discovery-timeout"},
    {OllamaReason::override_invalid, "override-invalid"},
    {OllamaReason::runner_crashed, "runner-crashed"},
    {OllamaReason::gpu_found, "gpu-found"},
};

constexpr EnumName<KernelEventKind> kKernelEventNames[] = {
    {KernelEventKind::firmware_missing, "firmware-missing"}, {KernelEventKind::probe_failed, "probe-failed"},
    {KernelEventKind::module_rejected, "module-rejected"},   {KernelEventKind::ring_timeout, "ring-timeout"},
    {KernelEventKind::gpu_reset, "gpu-reset"},               {KernelEventKind::mes_error, "mes-error"},
    {KernelEventKind::smu_error, "smu-error"},               {KernelEventKind::page_fault, "page-fault"},
    {KernelEventKind::kfd_disabled, "kfd-disabled"},         {KernelEventKind::iommu_fault, "iommu-fault"},
    {KernelEventKind::unknown_param, "unknown-parameter"},
};

}  // namespace

const char* to_string(DkmsState s) { return enum_name(kDkmsStateNames, s, "none"); }
const char* to_string(OllamaReason r) { return enum_name(kOllamaReasonNames, r, "no-compatible-gpu"); }
const char* to_string(KernelEventKind k) { return enum_name(kKernelEventNames, k, "probe-failed"); }
std::optional<OllamaReason> parse_ollama_reason(std::string_view name) { return enum_from_name(kOllamaReasonNames, name); }
std::optional<KernelEventKind> parse_kernel_event_kind(std::string_view name) {
  return enum_from_name(kKernelEventNames, name);
}

}  // namespace amdml
