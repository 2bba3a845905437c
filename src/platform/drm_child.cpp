// The libdrm half of the runtime probe's child: for each AMD render node, what
// libdrm_amdgpu says about memory (AMDGPU_INFO_MEMORY), the amdgpu DRM driver version
// and the marketing name from amdgpu.ids. Run in a child because the ioctls go to the
// GPU's driver, which on a wedged GPU may not answer.
#include <amdgpu.h>
#include <amdgpu_drm.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/fd.hpp"
#include "platform/dl.hpp"
#include "platform/runtime_child.hpp"

namespace amdml::platform {
namespace {

struct DrmApi {
  decltype(&amdgpu_device_initialize) initialize = nullptr;
  decltype(&amdgpu_device_deinitialize) deinitialize = nullptr;
  decltype(&amdgpu_query_info) query_info = nullptr;
  decltype(&amdgpu_get_marketing_name) marketing_name = nullptr;
};

DrmDeviceInfo query_node(const DrmApi& api, const std::string& node) {
  DrmDeviceInfo d;
  d.render_node = node;
  probe_step(("open " + node).c_str());
  Fd fd(::open(node.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) {
    d.error = std::string("open: ") + std::strerror(errno);
    return d;
  }
  std::uint32_t major = 0, minor = 0;
  amdgpu_device_handle dev = nullptr;
  probe_step(("amdgpu_device_initialize " + node).c_str());
  int rc = api.initialize(fd.get(), &major, &minor, &dev);
  fd.reset();  // libdrm keeps its own duplicate
  if (rc != 0) {
    d.error = "amdgpu_device_initialize: " + std::string(std::strerror(rc < 0 ? -rc : rc));
    return d;
  }
  d.opened = true;
  d.drm_major = major;
  d.drm_minor = minor;
  if (const char* name = api.marketing_name(dev); name && *name) d.marketing_name = name;
  drm_amdgpu_memory_info mem{};
  probe_step(("amdgpu_query_info " + node).c_str());
  rc = api.query_info(dev, AMDGPU_INFO_MEMORY, sizeof mem, &mem);
  if (rc == 0) {
    d.vram_total = Bytes{mem.vram.total_heap_size};
    d.vram_usable = Bytes{mem.vram.usable_heap_size};
    d.vis_vram_total = Bytes{mem.cpu_accessible_vram.total_heap_size};
    d.vis_vram_usable = Bytes{mem.cpu_accessible_vram.usable_heap_size};
    d.gtt_total = Bytes{mem.gtt.total_heap_size};
    d.gtt_usable = Bytes{mem.gtt.usable_heap_size};
  } else {
    d.error = "AMDGPU_INFO_MEMORY: " + std::string(std::strerror(rc < 0 ? -rc : rc));
  }
  api.deinitialize(dev);
  return d;
}

}  // namespace

LibdrmFacts probe_drm_in_child(const std::vector<std::string>& render_nodes) {
  StdoutToStderr guard;
  LibdrmFacts out;
  probe_step("dlopen");
  // The distribution's libdrm first (its amdgpu.ids is where the distribution put
  // it), then the copy AMD's packages install.
  LoadedLibrary lib = load_first_reporting({"libdrm_amdgpu.so.1", "/opt/amdgpu/lib64/libdrm_amdgpu.so.1",
                                            "/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1"},
                                           out);
  if (!lib.handle) return out;
  DrmApi api;
  std::vector<std::string> missing;
  lib.bind(api.initialize, "amdgpu_device_initialize", missing);
  lib.bind(api.deinitialize, "amdgpu_device_deinitialize", missing);
  lib.bind(api.query_info, "amdgpu_query_info", missing);
  lib.bind(api.marketing_name, "amdgpu_get_marketing_name", missing);
  if (!missing.empty()) {
    out.outcome = HsaOutcome::not_installed;
    out.reason = lib.path + " lacks " + missing.front();
    return out;
  }
  for (const auto& node : render_nodes) out.devices.push_back(query_node(api, node));
  out.outcome = HsaOutcome::ok;
  probe_step("done");
  return out;
}

}  // namespace amdml::platform
