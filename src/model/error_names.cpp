// Names of the error catalogue's enums (error_catalog.hpp), written once: what
// recipes/errors/*.toml spells and what `explain --format json` prints.
#include "amdml/error_catalog.hpp"
#include "base/enum_names.hpp"

namespace amdml {
namespace {

constexpr EnumName<ErrorCheck> kErrorCheckNames[] = {
    {ErrorCheck::amd_gpu, "amd-gpu"},
    {ErrorCheck::driver_loaded, "driver-loaded"},
    {ErrorCheck::kfd_gpu, "kfd-gpu"},
    {ErrorCheck::kfd_access, "kfd-access"},
    {ErrorCheck::rocm, "rocm"},
    {ErrorCheck::override_set, "override"},
    {ErrorCheck::visible_devices, "visible-devices"},
    {ErrorCheck::secure_boot, "secure-boot"},
    {ErrorCheck::dkms, "dkms"},
    {ErrorCheck::blacklist, "blacklist"},
    {ErrorCheck::container, "container"},
    {ErrorCheck::apu, "apu"},
    {ErrorCheck::torch_rocm, "torch-rocm"},
    {ErrorCheck::ollama, "ollama"},
};

constexpr EnumName<CaptureKind> kCaptureNames[] = {
    {CaptureKind::gfx, "gfx"}, {CaptureKind::num, "num"}, {CaptureKind::word, "word"}, {CaptureKind::text, "text"}};

}  // namespace

const char* to_string(ErrorCheck c) { return enum_name(kErrorCheckNames, c, "amd-gpu"); }
std::optional<ErrorCheck> parse_error_check(std::string_view name) { return enum_from_name(kErrorCheckNames, name); }
const char* to_string(CaptureKind k) { return enum_name(kCaptureNames, k, "text"); }

}  // namespace amdml
