// Fuzz target: kernelstub's configuration (formats/kernelstub.hpp). A file read writes
// back the same bytes, and with other options reads back as those options; the
// kernel-cmdline edit applied twice equals applied once.
#include "fix/edits.hpp"
#include "formats/kernelstub.hpp"
#include "fuzz_check.hpp"

namespace formats = amdml::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));
  auto c = formats::read_kernelstub(text);
  if (!c) return 0;
  FUZZ_CHECK(formats::write_kernelstub(*c, c->options) == text);
  auto more = c->options;
  more.push_back("ttm.pages_limit=1");
  auto back = formats::read_kernelstub(formats::write_kernelstub(*c, more));
  FUZZ_CHECK(back && back->options == more);
  std::vector<std::string> none;
  auto empty = formats::read_kernelstub(formats::write_kernelstub(*c, none));
  FUZZ_CHECK(empty && empty->options.empty());
  amdml::KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "25165824"}};
  p.remove = {"amdgpu.gttsize"};
  auto e1 = amdml::fix::edit_kernelstub_config(text, p);
  FUZZ_CHECK(e1);
  if (!e1->unbalanced) FUZZ_CHECK(amdml::fix::edit_kernelstub_config(e1->text, p)->text == e1->text);
  return 0;
}
