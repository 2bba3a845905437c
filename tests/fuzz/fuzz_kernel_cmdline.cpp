// Fuzz target: /etc/kernel/cmdline (formats/kernel_cmdline.hpp). A file read writes back
// the same bytes; its words hold no unquoted blank; the kernel-cmdline edit applied
// twice equals applied once, and puts nothing after "--" that was not there.
#include "fix/edits.hpp"
#include "formats/kernel_cmdline.hpp"
#include "fuzz_check.hpp"

namespace formats = amdml::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));
  auto f = formats::read_kernel_cmdline(text);
  if (!f) return 0;
  FUZZ_CHECK(formats::write_kernel_cmdline(*f, f->words) == text);
  for (const auto& w : f->words) FUZZ_CHECK(!w.text().empty());
  auto again = formats::split_cmdline(formats::join_cmdline_text(f->words));
  FUZZ_CHECK(again && *again == f->words);
  amdml::KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "25165824"}};
  p.remove = {"amdgpu.gttsize"};
  auto e1 = amdml::fix::edit_kernel_cmdline_file(text, p);
  FUZZ_CHECK(!e1.unbalanced);
  FUZZ_CHECK(amdml::fix::edit_kernel_cmdline_file(e1.text, p).text == e1.text);
  auto after = formats::read_kernel_cmdline(e1.text);
  FUZZ_CHECK(after);
  const auto at = formats::cmdline_insert_at(after->words);
  FUZZ_CHECK(after->words.size() - at == f->words.size() - formats::cmdline_insert_at(f->words));
  return 0;
}
