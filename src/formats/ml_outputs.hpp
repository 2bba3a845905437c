// Parsers for what the ML probes read: `ollama --version` output, torch/version.py,
// library file names that carry a gfx target, and the line the --deep torch child
// prints. Pure functions over text, so the probes stay thin and each is unit-tested.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts_ml.hpp"
#include "amdml/gfx.hpp"
#include "amdml/host.hpp"
#include "amdml/version.hpp"
#include "base/result.hpp"

namespace amdml::formats::mlparse {

// "ollama version is 0.12.3" (also the "client version is ..." warning form, and
// "0.0.0" dev builds). The last version mentioned wins: the client's own.
std::optional<Version> ollama_version(std::string_view output);

// torch/version.py: `__version__ = '2.5.1+rocm6.2'`, `hip: Optional[str] = '6.2.41133-...'`,
// `cuda: Optional[str] = None`. Missing or None fields stay empty.
struct TorchVersionPy {
  std::optional<std::string> version;
  std::optional<std::string> hip;
  std::optional<std::string> cuda;
  bool recognised = false;  // at least __version__ was found
};
TorchVersionPy torch_version_py(std::string_view text);
TorchBuild torch_build(const TorchVersionPy& v);

// The gfx target a rocBLAS/Tensile library file is built for
// ("TensileLibrary_lazy_gfx1030.dat" -> gfx1030); nullopt when it names none.
std::optional<GfxTarget> library_file_target(std::string_view file_name);

// The ROCm version in an ollama backend directory name ("rocm_v7_2" -> 7.2, "rocm" -> none).
std::optional<Version> ollama_rocm_dir_version(std::string_view dir_name);

// A Python distribution's metadata directory name: "rocm_sdk_device_gfx1151-7.14.1.dist-info"
// -> {"rocm-sdk-device-gfx1151", "7.14.1"} (the name lower-cased with _ and . as -, the
// version as written); nullopt for anything else.
struct DistInfoName {
  std::string name;
  std::string version;
};
std::optional<DistInfoName> dist_info_name(std::string_view dir_name);

// The gfx targets TheRock's share/therock/dist_info.json names in "dist_amdgpu_targets"
// (a "gfx1100;gfx1151" string, or a list). An error when the text is not a JSON object
// with that key.
Result<std::vector<GfxTarget>> therock_dist_targets(std::string_view json_text);

// One field of a pacman local-database desc file ("%VERSION%\n6.4.1-1\n\n..."): its
// first line, or nullopt when the file has no such field.
std::optional<std::string> pacman_desc_field(std::string_view desc, std::string_view field);

// The one-line Python program --deep runs as `<python> -c <program>`. It imports torch
// and prints one line "AMDML_TORCH {json}". Fixtures record its output under that key.
const std::string& torch_probe_program();

// What the child reported: the JSON line when it got that far, otherwise the real error
// text from stderr (a HIP abort never prints the JSON line).
TorchRuntime torch_runtime(const CommandResult& r);

}  // namespace amdml::formats::mlparse