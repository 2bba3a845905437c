// `amdml info`: the GPU agents and memory pools ROCm programs will see -- rocminfo's
// content -- with the source of every value (HSA runtime, libdrm, KFD or DRM sysfs) and,
// when the runtime could not be asked, the same list from sysfs saying so.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "render/render.hpp"
#include "amdml/report.hpp"

namespace amdml::render {

// GPUs a ROCm program can use: the HSA runtime's GPU agents when it ran; when it was
// not asked (--no-runtime, not installed, nothing recorded), KFD GPU nodes whose
// /dev/kfd this process can open. 0 when the runtime failed, crashed or hung.
int usable_gpu_agents(const Facts& f);

std::string render_info_text(const Report& r, const TextStyle& style);
nlohmann::json info_json(const Report& r);  // schema amdml.info/1

}  // namespace amdml::render