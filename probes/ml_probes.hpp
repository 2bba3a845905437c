// The parts of the ML-stack probe (probes/ml.cpp runs them in this order) and the
// small path helpers they share (dirname/basename are base/paths.hpp's).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/paths.hpp"
#include "probes/probes.hpp"
#include "platform/host.hpp"

namespace amdml::probes {

void ollama(const ProbeContext& ctx, Facts& f);    // ollama.cpp: binary, version, libraries, service
void python(const ProbeContext& ctx, Facts& f);    // python.cpp: environments, torch, TF/onnxruntime
void llamacpp(const ProbeContext& ctx, Facts& f);  // llamacpp.cpp: llama.cpp binaries and backends
// rocm_installs.cpp: every system ROCm, by channel (amdrocm: dpkg's installed amdrocm* packages)
void rocm_installs(const ProbeContext& ctx, Facts& f, const std::map<std::string, std::string>& amdrocm);
void rocm_pip_installs(Facts& f);  // rocm_installs.cpp: TheRock's wheels the python probe found, as installs
// firmware.cpp: whether a package carries amdgpu's firmware, and those dpkg listed as installed.
bool linux_firmware_package(std::string_view name);
void firmware_from_dpkg(const std::map<std::string, std::string>& installed, Facts& f);

namespace mlpath {
std::string join(const std::string& dir, const std::string& name);
// The PATH entries of the host's environment (absolute ones only, no duplicates).
std::vector<std::string> path_dirs(const platform::Host& host);
bool is_file(const platform::Host& host, const std::string& p);  // regular file (symlinks followed)
bool is_dir(const platform::Host& host, const std::string& p);
// The home directory of the user the report is about, per /etc/passwd.
std::optional<std::string> user_home(const Facts& f);
}  // namespace mlpath

}  // namespace amdml::probes
