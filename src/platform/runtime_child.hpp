// The runtime probes' child side: what `amdml __probe-hsa` and `amdml __probe-drm` do.
//
// These are the only functions in amdml that load libhsa-runtime64 or libdrm_amdgpu,
// and they run only in a child process the parent started with a time limit
// (probes/runtime.cpp), so a runtime that crashes or wedges on a sick GPU costs the
// child, never the doctor. Each returns the facts the child saw, which the caller
// prints in their recorded form (formats/runtime_record.hpp, docs/runtime.md), and
// never throws; progress markers ("amdml-probe: step hsa_init") go to stderr so that the
// parent can say where a child that died or hung had got to.
#pragma once

#include <string>
#include <vector>

#include "amdml/facts_runtime.hpp"

namespace amdml::platform {

// The progress marker prefix on the child's stderr.
inline constexpr const char* kProbeStepMarker = "amdml-probe: step ";

// Where libhsa-runtime64 is looked for, in order: AMDML_HSA_LIBRARY alone when set,
// else $ROCM_PATH/lib, /opt/rocm/lib, then the plain soname (the loader's search path).
std::vector<std::string> hsa_library_candidates();

// dlopen the runtime, hsa_init, enumerate agents, pools and ISAs. The caller writes
// the answer and ends the process without running the runtime's exit handlers.
HsaFacts probe_hsa_in_child();

// dlopen libdrm_amdgpu and query each render node: memory heaps, DRM driver version,
// marketing name.
LibdrmFacts probe_drm_in_child(const std::vector<std::string>& render_nodes);

}  // namespace amdml::platform
