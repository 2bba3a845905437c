// The kernel log of this boot: its GPU lines, classified (formats/kmsg.hpp). The Host
// reads a bounded tail of the ring (live: /dev/kmsg, else journalctl; --root: DIR/dev/kmsg).
#include <cerrno>

#include "formats/kmsg.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

// /dev/kmsg answers at once; journalctl on a big journal can take a second.
constexpr std::chrono::milliseconds kKernelLogTimeout{3000};

void kernel_log(const ProbeContext& ctx, Facts& f) {
  auto& k = f.kernel_log;
  auto r = ctx.host.kernel_log(formats::kmsg::kMaxBytes, kKernelLogTimeout);
  if (!r) {
    // No ring at all (a --root tree without dev/kmsg, a container without /dev/kmsg):
    // nothing to say. Refused: only root can read it, which is worth a line.
    // Inside a container even root may not read the host's ring: nothing to advise.
    if (r.error().code == ENOENT || f.container.kind) return;
    k.needs_root = r.error().code == EPERM || r.error().code == EACCES;
    k.unreadable = r.error().message;
    return;
  }
  k.read = true;
  k.source = r->source;
  k.truncated = r->truncated;
  auto parsed = formats::kmsg::parse(r->records);
  // The GPU lines only: what a snapshot keeps, so its replay reports the same count.
  k.events = formats::kmsg::classify(parsed.records, &k.records);
}

}  // namespace amdml::probes
