// The live kernel log: /dev/kmsg read to the end of the ring without blocking, and
// journalctl where the ring is closed to this user (kernel.dmesg_restrict=1).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <deque>

#include "base/text.hpp"
#include "base/fd.hpp"
#include "formats/kmsg.hpp"
#include "platform/fs.hpp"
#include "platform/kernel_log_live.hpp"
#include "platform/process.hpp"

namespace amdml::platform {
namespace {

using Clock = std::chrono::steady_clock;

// Every record from the first still in the ring, newest max_bytes kept. A read returns
// one record; EAGAIN is the end of the ring, EPIPE a record overwritten while reading.
Result<KernelLogText> read_kmsg(std::size_t max_bytes, std::chrono::milliseconds timeout) {
  Fd fd(::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (!fd) return make_error("/dev/kmsg: " + errno_text(errno), errno);
  ::lseek(fd.get(), 0, SEEK_SET);  // from the oldest record in the ring
  const auto deadline = Clock::now() + timeout;
  std::deque<std::string> kept;
  std::size_t bytes = 0;
  KernelLogText out;
  out.source = "/dev/kmsg";
  char buf[8192];
  for (std::size_t n = 0;; ++n) {
    ssize_t got = ::read(fd.get(), buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR || errno == EPIPE) continue;
      if (errno == EAGAIN) break;
      if (n == 0) return make_error("/dev/kmsg: " + errno_text(errno), errno);
      break;
    }
    if (got == 0) break;
    kept.emplace_back(buf, static_cast<std::size_t>(got));
    bytes += kept.back().size();
    while (bytes > max_bytes && !kept.empty()) {
      bytes -= kept.front().size();
      kept.pop_front();
      out.truncated = true;
    }
    if ((n & 255) == 255 && Clock::now() > deadline) {
      out.truncated = true;  // stopped before the end: the newest records are missing
      break;
    }
  }
  out.records.reserve(bytes);
  for (auto& r : kept) out.records += r;
  return out;
}

Result<KernelLogText> read_journal(std::size_t max_bytes, std::chrono::milliseconds timeout) {
  RunOptions o;
  o.timeout = timeout;
  o.output_limit = max_bytes * 2;
  AMDML_TRY(auto r, run_command({"journalctl", "-k", "-b", "0", "-o", "short-monotonic", "--no-pager", "-q"}, o));
  if (r.timed_out) return make_error("journalctl -k: no answer within " + std::to_string(timeout.count()) + " ms", ETIMEDOUT);
  auto parsed = formats::kmsg::parse_journal(r.out);
  // Without the adm or systemd-journal group journalctl shows this user's own entries
  // only, which never include the kernel's: nothing read is as good as refused.
  if (r.exit_code != 0 || parsed.records.empty())
    return make_error("journalctl -k: " + (r.err.empty() ? std::string("no kernel entries visible to this user")
                                                          : text::one_line(r.err)),
                      EPERM);
  KernelLogText out;
  out.source = "journalctl -k -b 0";
  std::string all = formats::kmsg::write(parsed.records);
  auto kept = formats::kmsg::tail(all, max_bytes);
  out.truncated = kept.size() < all.size();
  out.records = std::string(kept);
  return out;
}

}  // namespace

Result<KernelLogText> read_live_kernel_log(std::size_t max_bytes, std::chrono::milliseconds timeout) {
  auto k = read_kmsg(max_bytes, timeout);
  if (k) return k;
  if (k.error().code != EPERM && k.error().code != EACCES) return k;
  auto j = read_journal(max_bytes, timeout);
  if (j) return j;
  return make_error("/dev/kmsg and journalctl -k refused: reading the kernel log needs root (kernel.dmesg_restrict)",
                    EPERM);
}

}  // namespace amdml::platform
