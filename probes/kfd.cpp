// KFD topology: every node (CPU nodes first, then GPUs and partitions) with its gfx
// target, compute units, render minor, PCI location and memory banks.
#include <algorithm>

#include "probes/probe_util.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

void kfd(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  const std::string topo = "/sys/class/kfd/kfd/topology";
  f.kfd.present = h.exists(topo);
  if (!f.kfd.present) return;
  auto entries = h.list_dir(topo + "/nodes");
  if (!entries) {
    f.error("kfd", topo + "/nodes", entries.error().message);
    return;
  }
  std::vector<int> indices;
  for (const auto& e : *entries)
    if (auto n = text::u64(e.name); n && *n < 4096) indices.push_back(static_cast<int>(*n));
  std::sort(indices.begin(), indices.end());
  for (int idx : indices) {
    const std::string dir = topo + "/nodes/" + std::to_string(idx);
    auto text = h.read_file(dir + "/properties", 1 << 16);
    if (!text) {
      // EPERM here is the device cgroup hiding this GPU (containers).
      f.error("kfd", dir + "/properties", text.error().message);
      continue;
    }
    auto kv = formats::parse::kfd_properties(complete_lines(*text, f, "kfd", dir + "/properties"));
    if (kv.malformed > 0)
      f.error("kfd", dir + "/properties", std::to_string(kv.malformed) + " malformed line(s) ignored");
    KfdNode n;
    n.index = idx;
    auto u32 = [&](const char* key) -> std::uint32_t {
      auto v = kv.get(key);
      return v && *v <= 0xffffffffULL ? static_cast<std::uint32_t>(*v) : 0;
    };
    n.simd_count = u32("simd_count");
    n.cpu_cores_count = u32("cpu_cores_count");
    n.cpu = n.simd_count == 0;
    n.simd_per_cu = u32("simd_per_cu");
    if (!n.cpu && n.simd_per_cu > 0) n.compute_units = n.simd_count / n.simd_per_cu;
    n.wave_front_size = u32("wave_front_size");
    n.vendor_id = u32("vendor_id");
    n.device_id = u32("device_id");
    n.location_id = u32("location_id");
    if (auto v = kv.get("domain"); v && *v <= 0xffffffffULL) n.domain = static_cast<std::uint32_t>(*v);
    n.drm_render_minor = u32("drm_render_minor");
    if (auto v = kv.get("num_xcc"); v && *v > 0) n.num_xcc = static_cast<std::uint32_t>(std::min<std::uint64_t>(*v, 64));
    n.unique_id = kv.get("unique_id");
    if (auto v = kv.get("gfx_target_version"); v && *v != 0) {
      if (*v <= 0xffffffffULL) n.gfx_target_version = static_cast<std::uint32_t>(*v);
      n.gfx = GfxTarget::from_kfd_version(*v);
      if (!n.gfx) f.error("kfd", dir + "/properties", "gfx_target_version " + std::to_string(*v) + " does not decode");
    }
    if (auto v = read_u64(h, f, "kfd", dir + "/gpu_id")) n.gpu_id = *v;
    if (auto v = read_value(h, f, "kfd", dir + "/name")) n.name = *v;
    auto banks = h.list_dir(dir + "/mem_banks");
    if (banks) {
      std::uint64_t total = 0;
      bool any = false;
      std::vector<int> bidx;
      for (const auto& b : *banks)
        if (auto bn = text::u64(b.name); bn && *bn < 256) bidx.push_back(static_cast<int>(*bn));
      std::sort(bidx.begin(), bidx.end());
      for (int b : bidx) {
        const std::string bp = dir + "/mem_banks/" + std::to_string(b) + "/properties";
        auto bt = h.read_file(bp, 1 << 14);
        if (!bt) {
          f.error("kfd", bp, bt.error().message);
          continue;
        }
        auto bkv = formats::parse::kfd_properties(complete_lines(*bt, f, "kfd", bp));
        auto size = bkv.get("size_in_bytes");
        if (!size) {
          // A bank whose size cannot be read counts as unknown, never as 0 bytes.
          f.error("kfd", bp, "no readable size_in_bytes");
          continue;
        }
        KfdMemBank bank;
        bank.heap_type = static_cast<std::uint32_t>(bkv.get("heap_type").value_or(0));
        bank.size = Bytes{*size};
        if (!n.cpu && (bank.heap_type == 1 || bank.heap_type == 2 || bank.heap_type == 0)) {
          if (total <= UINT64_MAX - bank.size.value) total += bank.size.value;
          any = true;
        }
        n.mem_banks.push_back(bank);
      }
      if (any) n.memory = Bytes{total};
    }
    f.kfd.nodes.push_back(std::move(n));
  }
}

}  // namespace amdml::probes
