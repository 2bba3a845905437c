// Fuzz target: the edits `amdml fix` makes to files a person wrote -- /etc/group and
// /etc/gshadow member lists, modprobe.d options lines, systemd drop-ins. Any text must
// come out edited or untouched, never torn, and an edit applied twice equals it
// applied once (applying a fix twice changes nothing the second time).
#include "formats/system_files.hpp"
#include "fix/edits.hpp"
#include "fuzz_check.hpp"

namespace fix = amdml::fix;
namespace parse = amdml::formats::parse;
namespace text = amdml::text;
namespace formats = amdml::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));

  const std::vector<std::string> groups{"render", "video"};
  auto g1 = fix::add_group_members(text, "alice", groups);
  auto g2 = fix::add_group_members(g1.text, "alice", groups);
  FUZZ_CHECK(g2.text == g1.text);
  FUZZ_CHECK(g2.added.empty());
  if (g1.added.empty()) FUZZ_CHECK(g1.text == text);
  FUZZ_CHECK(text::split_lines(g1.text).size() == text::split_lines(text).size());

  const std::vector<std::pair<std::string, std::string>> opts{{"pages_limit", "25165824"}, {"page_pool_size", "25165824"}};
  for (const char* module : {"ttm", "amdttm"}) {
    auto m1 = fix::set_modprobe_options(text, module, opts);
    auto m2 = fix::set_modprobe_options(m1.text, module, opts);
    FUZZ_CHECK(m2.text == m1.text);
    FUZZ_CHECK(m1.found.size() <= opts.size() * text::split_lines(text).size());
    if (m1.found.empty()) FUZZ_CHECK(m1.text == text);
    FUZZ_CHECK(m1.last_line >= 0 && m1.last_line <= static_cast<int>(text::split_lines(text).size()));
    if (m1.last_line > 0) {
      // Appended options are read back on the line that set the others.
      const auto a = fix::append_modprobe_options(m1.text, m1.last_line, "amdml_fuzz_key=1");
      bool read_back = false;
      for (const auto& o : formats::parse::modprobe_conf(a).options)
        read_back = read_back || (o.key == "amdml_fuzz_key" && o.value == "1" && o.module == formats::parse::modprobe_name(module));
      FUZZ_CHECK(read_back);
    }
  }
  // Kernel command lines (kernel-cmdline): GRUB's defaults, /etc/kernel/cmdline,
  // kernelstub's JSON -- applied twice equals applied once, and the next boot's command
  // line then holds the parameter and not the removed one.
  amdml::KernelCmdlineParams cl;
  cl.set = {{"ttm.pages_limit", "25165824"}};
  cl.remove = {"amdgpu.gttsize"};
  auto k1 = fix::edit_grub_defaults(text, cl);
  FUZZ_CHECK(fix::edit_grub_defaults(k1.text, cl).text == k1.text);
  auto k2 = fix::edit_kernel_cmdline_file(text, cl);
  FUZZ_CHECK(fix::edit_kernel_cmdline_file(k2.text, cl).text == k2.text);
  if (auto k3 = fix::edit_kernelstub_config(text, cl)) {
    auto again = fix::edit_kernelstub_config(k3->text, cl);
    FUZZ_CHECK(again && again->text == k3->text);
  }
  (void)formats::parse::grub_cmdline(text);
  (void)formats::parse::kernelstub_cmdline(text);
  return 0;
}
