// Fuzz target: modprobe.d files ("options MODULE key=value", continuations, comments),
// read through the line model (formats/modprobe_conf.hpp): joining gives the bytes back,
// every word is where the model says, and an edit keeps the reader in step.
#include "formats/system_files.hpp"
#include "fuzz_check.hpp"

namespace modprobe = amdml::formats::modprobe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  auto file = modprobe::read(text);
  FUZZ_CHECK(modprobe::join(file) == text);
  for (const auto& d : file.directives) {
    FUZZ_CHECK(d.first <= d.last && d.last < file.lines.size());
    FUZZ_CHECK(d.remark <= d.words.size());
    for (const auto& w : d.words) {
      FUZZ_CHECK(w.line >= d.first && w.line <= d.last && w.size > 0);
      FUZZ_CHECK(w.pos + w.size <= file.lines[w.line].body.size());
      FUZZ_CHECK(modprobe::word(file, w).find_first_of(" \t\r\n") == std::string_view::npos);
    }
  }
  auto f = amdml::formats::parse::modprobe_conf(file);
  const int lines = static_cast<int>(amdml::text::split_lines(text).size());
  for (const auto& o : f.options) {
    FUZZ_CHECK(o.line >= 1 && o.line <= lines);
    FUZZ_CHECK(!o.module.empty());
    FUZZ_CHECK(o.module.find('-') == std::string::npos);
    FUZZ_CHECK(o.key.find('=') == std::string::npos);
    FUZZ_CHECK(o.module.find_first_of(" \t\n") == std::string::npos);
  }
  for (const auto& [line, l] : f.bad_lines) {
    FUZZ_CHECK(line >= 1 && line <= lines);
    FUZZ_CHECK(!l.empty());
  }
  // Every options directive takes an appended option, and the reader then sees it.
  for (std::size_t d = 0; d < file.directives.size(); ++d) {
    if (file.directives[d].kind != modprobe::Kind::options) continue;
    auto edited = file;
    modprobe::append_words(edited, d, "amdml_fuzz=1");
    const auto joined = modprobe::join(edited);
    const auto again = modprobe::read(joined);
    FUZZ_CHECK(again.directives.size() == file.directives.size());
    std::size_t seen = 0;
    for (const auto& o : amdml::formats::parse::modprobe_conf(again).options) seen += o.key == "amdml_fuzz";
    std::size_t before = 0;
    for (const auto& o : f.options) before += o.key == "amdml_fuzz";
    FUZZ_CHECK(seen == before + 1);
  }
  // Commenting a directive out removes it from what the reader sees.
  for (std::size_t d = 0; d < file.directives.size(); ++d) {
    if (file.directives[d].kind == modprobe::Kind::blank) continue;
    auto edited = file;
    modprobe::comment_out(edited, d, "# off ");
    const auto r = amdml::formats::parse::modprobe_conf(modprobe::join(edited));
    FUZZ_CHECK(r.options.size() + r.blocks.size() + r.bad_lines.size() <= f.options.size() + f.blocks.size() + f.bad_lines.size());
    break;
  }
  return 0;
}
