// Fuzz target: what the ML probes parse -- `ollama --version` output, torch/version.py,
// library file names carrying a gfx target, ollama backend directory names, and the
// --deep torch child's output line (JSON) and stderr.
#include "amdml/host.hpp"
#include "formats/ml_outputs.hpp"
#include "fuzz_check.hpp"

namespace formats = amdml::formats;

namespace mlparse = amdml::formats::mlparse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto text = amdml::fuzz::as_text(data, size);
  (void)formats::mlparse::ollama_version(text);
  auto py = formats::mlparse::torch_version_py(text);
  if (!py.recognised) FUZZ_CHECK(!py.version);
  (void)formats::mlparse::torch_build(py);
  if (auto g = formats::mlparse::library_file_target(text)) FUZZ_CHECK(g->major >= 1 && g->minor <= 15 && g->stepping <= 15);
  (void)formats::mlparse::ollama_rocm_dir_version(text);
  if (auto d = formats::mlparse::dist_info_name(text)) FUZZ_CHECK(!d->name.empty() && !d->version.empty());
  if (auto t = formats::mlparse::therock_dist_targets(text))
    for (const auto& g : *t) FUZZ_CHECK(g.minor <= 15 && g.stepping <= 15);
  (void)formats::mlparse::pacman_desc_field(text, "VERSION");
  for (int code : {0, 1, -6}) {
    amdml::CommandResult r;
    r.exit_code = code;
    r.out = std::string(text);
    r.err = std::string(text);
    (void)formats::mlparse::torch_runtime(r);
  }
  return 0;
}
