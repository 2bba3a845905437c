// System memory from /proc/meminfo.
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

void memory(const ProbeContext& ctx, Facts& f) {
  auto text = ctx.host.read_file("/proc/meminfo", 1 << 16);
  if (!text) {
    f.error("memory", "/proc/meminfo", text.error().message);
    return;
  }
  auto kv = formats::parse::meminfo(complete_lines(*text, f, "memory", "/proc/meminfo"));
  if (kv.count("MemTotal")) f.memory.total = Bytes{kv["MemTotal"]};
  else f.error("memory", "/proc/meminfo", "no MemTotal line");
  if (kv.count("MemAvailable")) f.memory.available = Bytes{kv["MemAvailable"]};
}

}  // namespace amdml::probes
