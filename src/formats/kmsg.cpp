// The kernel log codec (see kmsg.hpp). The message texts matched here are the kernel's
// own: drivers/base/firmware_loader/main.c ("Direct firmware load for %s failed with
// error %d"), drivers/base/dd.c ("probe of %s failed with error %d"), kernel/module/
// signing.c ("Loading of module with unavailable key is rejected"), kernel/params.c
// ("%s: unknown parameter '%s' ignored"), amdgpu_job.c ("ring %s timeout"),
// amdgpu_device.c ("GPU reset begin!", "Fatal error during GPU init"), gmc_v*_0.c
// ("[%s] page fault" / "%s page fault"), kfd_device.c ("not supported in kfd", "PCI
// rejects atomics"), drivers/iommu/amd/iommu.c ("IO_PAGE_FAULT").
#include "formats/kmsg.hpp"

#include <array>
#include <cstdio>

#include "base/text.hpp"

namespace amdml::formats::kmsg {
namespace {

bool has(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

std::string clip(std::string_view s) {
  if (s.size() > kMaxLineBytes) s = s.substr(0, kMaxLineBytes);
  return std::string(s);
}

// The word after `key` up to one of the stop characters ("for process NAME pid").
std::string word_after(std::string_view s, std::string_view key, std::string_view stops = " \t,)'\"") {
  auto at = s.find(key);
  if (at == std::string_view::npos) return "";
  s.remove_prefix(at + key.size());
  auto end = s.find_first_of(stops);
  return std::string(s.substr(0, end));
}

std::optional<int> error_after(std::string_view s, std::string_view key) {
  std::string w = word_after(s, key);
  if (auto n = text::i64(w); n && *n > -100000 && *n < 100000) return static_cast<int>(*n);
  return std::nullopt;
}

// "amdgpu 0000:03:00.0: ..." -> "0000:03:00.0"
std::string device_slot(std::string_view s) {
  auto sp = s.find(' ');
  if (sp == std::string_view::npos || sp > 16) return "";
  auto rest = s.substr(sp + 1);
  auto colon = rest.find(": ");
  if (colon == std::string_view::npos || colon != 12) return "";
  return std::string(rest.substr(0, colon));
}

// A process the kernel names: "for process NAME pid", "Process NAME pid",
// "Process information: process NAME pid" (empty when the name is empty, as for pid 0).
std::string process_in(std::string_view s) {
  for (std::string_view key : {"for process ", "in process ", "Process information: process ", "Process "}) {
    auto at = s.find(key);
    if (at == std::string_view::npos) continue;
    auto rest = s.substr(at + key.size());
    auto pid = rest.find(" pid ");
    if (pid == std::string_view::npos) continue;
    return std::string(text::trim(rest.substr(0, pid)));
  }
  return "";
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  auto v = text::u64(s);
  if (!v) return false;
  out = *v;
  return true;
}

}  // namespace

Parsed parse(std::string_view text) {
  Parsed out;
  const auto lines = text::split_lines(text);
  out.records.reserve(lines.size());
  for (auto line : lines) {
    if (line.empty()) continue;
    if (line[0] == ' ') continue;  // " SUBSYSTEM=pci", " DEVICE=+pci:0000:03:00.0"
    auto semi = line.find(';');
    if (semi == std::string_view::npos) {
      ++out.bad_lines;
      continue;
    }
    auto fields = line.substr(0, semi);
    std::uint64_t v[3] = {0, 0, 0};
    bool ok = true;
    for (int i = 0; i < 3 && ok; ++i) {
      auto comma = fields.find(',');
      if (comma == std::string_view::npos && i < 2) ok = false;
      if (!ok) break;
      ok = parse_u64(fields.substr(0, comma), v[i]);
      fields = comma == std::string_view::npos ? std::string_view() : fields.substr(comma + 1);
    }
    if (!ok) {
      ++out.bad_lines;
      continue;
    }
    Record r;
    r.level = static_cast<int>(v[0] & 7);
    r.facility = static_cast<int>((v[0] >> 3) & 0xffff);
    r.seq = v[1];
    r.usec = v[2];
    auto t = line.substr(semi + 1);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    r.text = clip(t);
    out.records.push_back(std::move(r));
  }
  return out;
}

Parsed parse_journal(std::string_view text) {
  Parsed out;
  std::uint64_t seq = 0;
  for (auto line : text::split_lines(text)) {
    line = text::trim(line);
    if (line.empty() || line[0] != '[') continue;  // "-- Boot 1a2b... --", "-- No entries --"
    auto close = line.find(']');
    if (close == std::string_view::npos) {
      ++out.bad_lines;
      continue;
    }
    auto stamp = text::trim(line.substr(1, close - 1));
    auto dot = stamp.find('.');
    std::uint64_t sec = 0, frac = 0;
    if (dot == std::string_view::npos || !parse_u64(stamp.substr(0, dot), sec) ||
        !parse_u64(stamp.substr(dot + 1), frac) || stamp.size() - dot - 1 != 6 || sec > (1ull << 40)) {
      ++out.bad_lines;
      continue;
    }
    auto rest = line.substr(close + 1);
    auto kernel = rest.find(" kernel: ");
    if (kernel == std::string_view::npos) {
      ++out.bad_lines;
      continue;
    }
    Record r;
    r.seq = seq++;
    r.usec = sec * 1000000 + frac;
    r.text = clip(rest.substr(kernel + 9));
    out.records.push_back(std::move(r));
  }
  return out;
}

std::string write(const std::vector<Record>& records) {
  std::string out;
  for (const auto& r : records) {
    out += std::to_string((r.facility << 3) | (r.level & 7)) + "," + std::to_string(r.seq) + "," +
           std::to_string(r.usec) + ",-;";
    for (char c : r.text) out += (c == '\n' || c == '\r') ? ' ' : c;
    out += '\n';
  }
  return out;
}

std::string_view tail(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  auto cut = text.substr(text.size() - max_bytes);
  auto nl = cut.find('\n');
  return nl == std::string_view::npos ? std::string_view() : cut.substr(nl + 1);
}

namespace {

// "amd" covers amdgpu, amdkfd, amdttm and AMD's own lines; "ockdown" Lockdown/lockdown;
// "module" the signature refusals; "ecure" Secure Boot.
constexpr std::string_view kGpuNeedles[] = {"amd",     "AMD",    "kfd",  "drm",   "ttm",   "irmware",
                                            "ockdown", "module", "DMAR", "iommu", "IOMMU", "ecure"};
// The needles' first two bytes, a bit each in a 64 Ki-bit set.
constexpr unsigned byte_pair(unsigned char a, unsigned char b) { return a | (static_cast<unsigned>(b) << 8); }
constexpr auto kGpuPairs = [] {
  std::array<std::uint64_t, 1024> bits{};
  for (std::string_view n : kGpuNeedles) {
    const unsigned v = byte_pair(static_cast<unsigned char>(n[0]), static_cast<unsigned char>(n[1]));
    bits[v >> 6] |= std::uint64_t{1} << (v & 63);
  }
  return bits;
}();

}  // namespace

bool gpu_relevant(std::string_view t) {
  // This runs on every record of a full ring (bench/: 18,000 records in the 2 MiB kept).
  // Twelve find() calls a record took 3.7 ms of that ring; one scan that tries the
  // needles only where their first two bytes stand takes 1.7 ms.
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    const unsigned v = byte_pair(static_cast<unsigned char>(t[i]), static_cast<unsigned char>(t[i + 1]));
    if (((kGpuPairs[v >> 6] >> (v & 63)) & 1) == 0) continue;
    for (std::string_view n : kGpuNeedles)
      if (t.substr(i).starts_with(n)) return true;
  }
  return false;
}

std::string mask_macs(std::string_view t) {
  std::string out(t);
  auto hexd = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  for (std::size_t i = 0; i + 17 <= out.size(); ++i) {
    bool mac = true;
    for (std::size_t k = 0; k < 17 && mac; ++k) mac = (k % 3 == 2) ? out[i + k] == ':' : hexd(out[i + k]);
    if (!mac || (i > 0 && (hexd(out[i - 1]) || out[i - 1] == ':')) ||
        (i + 17 < out.size() && (hexd(out[i + 17]) || out[i + 17] == ':')))
      continue;
    for (std::size_t k = 0; k < 17; ++k)
      if (k % 3 != 2) out[i + k] = 'x';
    i += 16;
  }
  return out;
}

namespace {

std::optional<KernelEvent> classify_one(const Record& r) {
  const std::string_view t = r.text;
  KernelEvent e;
  e.usec = r.usec;
  e.line = r.text;
  auto make = [&](KernelEventKind k, std::string subject) {
    e.kind = k;
    e.subject = std::move(subject);
    return std::optional<KernelEvent>(e);
  };
  if (has(t, "unknown parameter '") && has(t, "' ignored")) {
    auto colon = t.find(": unknown parameter '");
    std::string module = colon == std::string_view::npos ? "" : std::string(t.substr(0, colon));
    return make(KernelEventKind::unknown_param, module + "." + word_after(t, "unknown parameter '", "'"));
  }
  if (has(t, "Loading of module with unavailable key is rejected") || has(t, "Loading of unsigned module is rejected") ||
      (has(t, "Lockdown:") && has(t, "unsigned module loading is restricted")))
    return make(KernelEventKind::module_rejected, "");
  if (has(t, "Direct firmware load for ") && has(t, " failed with error ")) {
    e.error_code = error_after(t, " failed with error ");
    return make(KernelEventKind::firmware_missing, word_after(t, "Direct firmware load for "));
  }
  if (has(t, "not supported in kfd") || has(t, "PCI rejects atomics"))
    return make(KernelEventKind::kfd_disabled, word_after(t, "skipped device "));
  const bool amd = t.starts_with("amdgpu") || has(t, "[amdgpu]") || has(t, "amdgpu:");
  if (amd && (has(t, "probe of ") || has(t, "probe with driver amdgpu")) && has(t, " failed with error ")) {
    e.error_code = error_after(t, " failed with error ");
    std::string slot = word_after(t, "probe of ");
    return make(KernelEventKind::probe_failed, slot.empty() ? device_slot(t) : slot);
  }
  if (has(t, "Fatal error during GPU init")) return make(KernelEventKind::probe_failed, device_slot(t));
  if (has(t, "ring ") && has(t, " timeout") && (has(t, "signaled seq") || has(t, "timedout"))) {
    e.process = process_in(t);
    return make(KernelEventKind::ring_timeout, word_after(t, "ring "));
  }
  if (has(t, "GPU reset begin")) return make(KernelEventKind::gpu_reset, device_slot(t));
  if (has(t, "MES failed to respond") || has(t, "MES failed to response") ||
      (has(t, "MES") && (has(t, "failed") || has(t, "ERROR")) && !has(t, "MES enabled")))
    return make(KernelEventKind::mes_error, word_after(t, "msg="));
  if ((has(t, "SMU") || has(t, "smu_v") || has(t, "smu:")) &&
      (has(t, "not done with your previous command") || has(t, "failed") || has(t, "Failed") ||
       has(t, "timeout") || has(t, "ERROR")) &&
      !has(t, "resumed successfully"))
    return make(KernelEventKind::smu_error, device_slot(t));
  if ((has(t, "hub") && has(t, "page fault (")) || has(t, "retry page fault")) {
    e.process = process_in(t);
    return make(KernelEventKind::page_fault, device_slot(t));
  }
  if (has(t, "IO_PAGE_FAULT") || (has(t, "DMAR: [DMA") && has(t, "fault")))
    return make(KernelEventKind::iommu_fault, device_slot(t));
  return std::nullopt;
}

}  // namespace

std::vector<KernelEvent> classify(const std::vector<Record>& records, std::size_t* gpu_lines) {
  std::vector<KernelEvent> out;
  std::size_t relevant = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!gpu_relevant(records[i].text)) continue;
    ++relevant;
    auto e = classify_one(records[i]);
    if (!e) continue;
    // Newer kernels print the process on the next record: " Process NAME pid ...".
    if ((e->kind == KernelEventKind::page_fault || e->kind == KernelEventKind::ring_timeout) && e->process.empty() &&
        i + 1 < records.size()) {
      const std::string& next = records[i + 1].text;
      if (has(next, "rocess ") && !has(next, "page fault")) e->process = process_in(next);
    }
    out.push_back(std::move(*e));
  }
  if (gpu_lines) *gpu_lines = relevant;
  return out;
}

std::string time_label(std::uint64_t usec) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "[%5llu.%06llu]", static_cast<unsigned long long>(usec / 1000000),
                static_cast<unsigned long long>(usec % 1000000));
  return buf;
}

}  // namespace amdml::formats::kmsg