// The kernel log: /dev/kmsg's record format, journalctl's short-monotonic lines, and
// which of those lines say something about the GPU.
//
// /dev/kmsg gives one record per read: "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n", followed by
// continuation lines " KEY=value" (Documentation/ABI/testing/dev-kmsg). PRIO holds the
// facility above the level's 3 bits. Non-printable bytes in TEXT arrive escaped as \xNN.
// A `--root` tree keeps the same records in DIR/dev/kmsg as a regular file, which is
// also what `snapshot` writes. Pure functions over strings; each is a fuzz target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts_boot.hpp"

namespace amdml::formats::kmsg {

// The bounds of what amdml reads of the ring: the newest records within these.
inline constexpr std::size_t kMaxBytes = 2 << 20;    // a full 1 MiB ring is ~10,000 records
inline constexpr std::size_t kMaxLineBytes = 2048;    // the kernel's own record limit is 1024

struct Record {
  int level = 6;               // 0 emerg .. 7 debug
  int facility = 0;            // 0 kernel
  std::uint64_t seq = 0;
  std::uint64_t usec = 0;      // since boot
  std::string text;
};

struct Parsed {
  std::vector<Record> records;
  std::size_t bad_lines = 0;   // lines that are neither a record nor a continuation
};

// DIR/dev/kmsg or what /dev/kmsg returned: records in order, continuations skipped.
Parsed parse(std::string_view text);
// journalctl -k -o short-monotonic: "[    3.636913] host kernel: TEXT" ("-- Boot ..." and
// other lines without a time stamp are skipped, not bad).
Parsed parse_journal(std::string_view text);
// Back to the record format (one line each, sequence numbers kept).
std::string write(const std::vector<Record>& records);
// The newest whole lines of text within max_bytes (everything when it fits).
std::string_view tail(std::string_view text, std::size_t max_bytes);

// A line worth keeping in a snapshot: amdgpu, amdkfd/kfd, ttm, drm, firmware loading,
// lockdown and module signatures, the IOMMU.
bool gpu_relevant(std::string_view text);

// "aa:bb:cc:dd:ee:ff" (a network card's address, as drivers log it) -> "xx:xx:xx:xx:xx:xx".
std::string mask_macs(std::string_view text);

// What the records say, in order: a page fault or a ring timeout takes the process from
// the record that follows it when the kernel prints it on its own line. gpu_lines, when
// given, gets the number of records gpu_relevant accepts (each is tested once).
std::vector<KernelEvent> classify(const std::vector<Record>& records, std::size_t* gpu_lines = nullptr);

// "[    3.636913]": the time as dmesg prints it.
std::string time_label(std::uint64_t usec);

}  // namespace amdml::formats::kmsg