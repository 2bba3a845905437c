// OS and kernel: os-release, the kernel release, the command line, WSL.
#include "probes/probe_util.hpp"

#include <algorithm>

#include "formats/grub_defaults.hpp"
#include "platform/host.hpp"
#include "probes/probes.hpp"

namespace amdml::probes {

namespace {

// GRUB's defaults as grub-mkconfig sources them: /etc/default/grub, then grub.d/*.cfg by
// name (Ubuntu's cloud images set GRUB_CMDLINE_LINUX_DEFAULT there). nullopt when one
// of them is not a script the shell would run to its end.
std::optional<formats::GrubCmdline> grub_defaults(const platform::Host& h, const std::string& grub) {
  std::vector<formats::GrubFile> files;
  auto add = [&](const std::string& path, const std::string& text) {
    auto d = formats::read_grub_defaults(text);
    if (!d) return false;
    files.push_back({path, std::move(*d)});
    return true;
  };
  if (!add("/etc/default/grub", grub)) return std::nullopt;
  if (auto names = h.list_dir("/etc/default/grub.d")) {
    std::vector<std::string> sorted;
    for (const auto& n : *names)
      if (n.name.size() > 4 && n.name.compare(n.name.size() - 4, 4, ".cfg") == 0) sorted.push_back(n.name);
    std::sort(sorted.begin(), sorted.end());
    for (const auto& n : sorted)
      if (auto text = h.read_file("/etc/default/grub.d/" + n, 1 << 16); text && !add("/etc/default/grub.d/" + n, *text))
        return std::nullopt;
  }
  return formats::grub_cmdline(files);
}

}  // namespace

void os(const ProbeContext& ctx, Facts& f) {
  const platform::Host& h = ctx.host;
  auto text = h.read_file("/etc/os-release", 1 << 16);
  if (!text) text = h.read_file("/usr/lib/os-release", 1 << 16);
  if (text) {
    auto kv = formats::parse::os_release(*text);
    if (kv.count("ID")) f.os.id = kv["ID"];
    if (kv.count("VERSION_ID")) f.os.version_id = kv["VERSION_ID"];
    if (kv.count("PRETTY_NAME")) f.os.pretty_name = kv["PRETTY_NAME"];
    if (kv.count("ID_LIKE")) f.os.id_like = text::split_ws(kv["ID_LIKE"]);
  } else {
    f.error("os", "/etc/os-release", text.error().message);
  }
  auto un = h.uname();
  f.os.machine = un.machine;
  f.os.kernel_release = un.release;
  if (!f.os.kernel_release) f.os.kernel_release = read_value(h, f, "os", "/proc/sys/kernel/osrelease");
  if (f.os.kernel_release) f.os.kernel = Version::parse(*f.os.kernel_release);
  f.os.cmdline = read_value(h, f, "os", "/proc/cmdline");
  // What the boot loader's configuration gives the next boot (the kernel-cmdline
  // recipe's order): a change made there shows as pending a reboot.
  if (auto ks = h.read_file("/etc/kernelstub/configuration", 1 << 16)) {
    if (auto words = formats::parse::kernelstub_cmdline(*ks)) f.os.boot_cmdline = *words, f.os.boot_cmdline_file = "/etc/kernelstub/configuration";
  } else if (auto grub = h.read_file("/etc/default/grub", 1 << 16)) {
    if (auto g = grub_defaults(h, *grub)) f.os.boot_cmdline = g->words, f.os.boot_cmdline_file = g->file;
  } else if (auto ki = h.read_file("/etc/kernel/cmdline", 1 << 16)) {
    f.os.boot_cmdline = std::string(text::trim(*ki)), f.os.boot_cmdline_file = "/etc/kernel/cmdline";
  }
  if (auto v = read_value(h, f, "os", "/proc/version")) {
    if (v->find("microsoft") != std::string::npos || v->find("Microsoft") != std::string::npos ||
        v->find("WSL") != std::string::npos)
      f.os.wsl = true;
  }
  if (auto devs = h.devices()) {
    for (const auto& d : *devs)
      if (d.path == "/dev/dxg") f.os.wsl = f.os.dxg = true;
  } else if (!h.live() && h.exists("/dev/dxg")) {
    f.os.wsl = f.os.dxg = true;
  }
}

}  // namespace amdml::probes
