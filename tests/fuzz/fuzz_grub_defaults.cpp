// Fuzz target: GRUB's defaults (formats/grub_defaults.hpp) read as the shell reads them.
// A file read writes back the same bytes; every assignment's value lies inside the file
// and starts after its "NAME="; the kernel-cmdline edit of a readable file reads back,
// changes nothing when applied again, and leaves a file the codec still reads.
#include "fix/edits.hpp"
#include "formats/grub_defaults.hpp"
#include "fuzz_check.hpp"

namespace formats = amdml::formats;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));
  auto d = formats::read_grub_defaults(text);
  if (!d) {
    FUZZ_CHECK(d.error().message.starts_with("line "));
    return 0;
  }
  FUZZ_CHECK(d->text == text);
  for (std::size_t i = 0; i < d->assignments.size(); ++i) {
    const auto& a = d->assignments[i];
    FUZZ_CHECK(a.value_begin <= a.value_end && a.value_end <= text.size());
    FUZZ_CHECK(a.value_begin > a.name.size() && text.compare(a.value_begin - a.name.size() - 1, a.name.size() + 1, a.name + "=") == 0);
    FUZZ_CHECK(formats::write_grub_value(*d, i, a.value) == text);
    // A value rewritten in the codec's own quoting reads back as the same value.
    const std::string source = formats::grub_value_source(a.value, '"');
    auto again = formats::read_grub_defaults(text.substr(0, a.value_begin) + source + "\n");
    FUZZ_CHECK(again && !again->assignments.empty());
    FUZZ_CHECK(formats::grub_value_source(again->assignments.back().value, '"') == source);
  }
  amdml::KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "25165824"}};
  p.remove = {"amdgpu.gttsize"};
  auto e1 = amdml::fix::edit_grub_files({{"/etc/default/grub", text}}, p);
  FUZZ_CHECK(e1);
  if (e1->edit.unbalanced) return 0;
  FUZZ_CHECK(formats::read_grub_defaults(e1->texts[0]));
  auto e2 = amdml::fix::edit_grub_files({{"/etc/default/grub", e1->texts[0]}}, p);
  FUZZ_CHECK(e2 && e2->texts[0] == e1->texts[0]);
  return 0;
}
