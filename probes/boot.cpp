// Boot state that decides whether amdgpu may load: Secure Boot (the EFI variable),
// kernel lockdown, AMD's amdgpu-dkms build for the running kernel, and what blacklists
// the module (modprobe.d, the kernel command line).
#include "formats/system_files.hpp"
#include "platform/host.hpp"
#include "probes/probe_util.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {
namespace {

// The UEFI global-variable GUID (UEFI spec, "Globally Defined Variables").
constexpr std::string_view kSecureBootVar = "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

void secure_boot(const platform::Host& h, BootFacts& b) {
  // efivarfs: 4 bytes of attributes, then the value (1 byte: 1 = enforcing).
  auto v = h.read_file("/sys/firmware/efi/efivars/" + std::string(kSecureBootVar), 4096);
  if (v && v->size() >= 5) b.secure_boot = (*v)[4] == 1;
}

void lockdown(const platform::Host& h, BootFacts& b) {
  // "none [integrity] confidentiality": the selected mode is the bracketed word.
  auto v = h.read_file("/sys/kernel/security/lockdown", 4096);
  if (!v) return;
  auto open = v->find('['), close = v->find(']');
  if (open != std::string::npos && close != std::string::npos && close > open)
    b.lockdown = v->substr(open + 1, close - open - 1);
}

void dkms(const platform::Host& h, const Facts& f, BootFacts& b) {
  auto entries = h.list_dir("/var/lib/dkms/amdgpu");
  if (!entries) return;
  for (const auto& e : *entries)
    if (e.type == FileType::directory && e.name != "original_module" && !e.name.starts_with("kernel-"))
      b.dkms_versions.push_back(e.name);
  if (b.dkms_versions.empty()) return;
  b.dkms = DkmsState::missing;
  if (!f.os.kernel_release) return;
  const std::string& rel = *f.os.kernel_release;
  for (const char* ext : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"}) {
    const std::string p = "/lib/modules/" + rel + "/updates/dkms/amdgpu" + ext;
    if (h.exists(p)) {
      b.dkms_module = p;
      b.dkms = DkmsState::installed;
      return;
    }
  }
  const std::string arch = f.os.machine.value_or("x86_64");
  for (const auto& v : b.dkms_versions)
    if (h.exists("/var/lib/dkms/amdgpu/" + v + "/" + rel + "/" + arch + "/module")) b.dkms = DkmsState::built;
}

void blacklists(const Facts& f, BootFacts& b) {
  for (const auto& o : f.modprobe.blocks)
    if (o.module == "amdgpu") b.blacklists.push_back({o.file + ":" + std::to_string(o.line), o.value});
  if (!f.os.cmdline) return;
  for (const auto& [k, v] : formats::parse::cmdline(*f.os.cmdline)) {
    const std::string word = v.empty() ? k : k + "=" + v;
    if (k == "nomodeset" || (k == "amdgpu.modeset" && v == "0")) b.blacklists.push_back({"/proc/cmdline", word});
    if (k == "modprobe.blacklist" || k == "module_blacklist")
      for (const auto& m : text::split_ws(text::replace_all(v, ",", " ")))
        if (formats::parse::modprobe_name(m) == "amdgpu") b.blacklists.push_back({"/proc/cmdline", word});
  }
}

}  // namespace

void boot(const ProbeContext& ctx, Facts& f) {
  secure_boot(ctx.host, f.boot);
  lockdown(ctx.host, f.boot);
  dkms(ctx.host, f, f.boot);
  blacklists(f, f.boot);
}

}  // namespace amdml::probes
