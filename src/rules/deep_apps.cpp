// deep.llamacpp-* and deep.ollama-*; see deep_apps.hpp.
#include "rules/deep_apps.hpp"

#include <algorithm>

#include "formats/llama_devices.hpp"

namespace amdml::rules {
namespace {

bool has_backend(const LlamaBinary& b, LlamaBackend k) {
  return std::find(b.backends.begin(), b.backends.end(), k) != b.backends.end();
}

std::string source(const LlamaBinary& b) { return text::shell_words({b.path, "--list-devices"}); }

// Its output as one evidence line, its lines joined by " | " (facts.ml.llama_cpp[].devices.output has them as printed).
void add_output(Finding& fd, const LlamaBinary& b, const LlamaDeviceList& d) {
  std::string said = text::one_line(text::replace_all(d.output, "\n", " | "));
  fd.evidence.push_back({source(b), said.empty() ? "(printed nothing)" : said});
  if (d.exit_code && *d.exit_code != 0) fd.evidence.push_back({source(b) + " (exit code)", std::to_string(*d.exit_code)});
}

void llama_failed(const Facts& f, const LlamaBinary& b, const LlamaDeviceList& d, std::vector<Finding>& out) {
  std::string why = d.error.value_or("printed no device list");
  std::string detail =
      "doctor --deep asked this build which devices it sees and got no list. ";
  if (d.timed_out)
    detail += "It did not exit within its share of the --deep-timeout budget: a GPU runtime that hangs while "
              "it initialises, or an old build that ignores --list-devices and starts serving; a larger "
              "--deep-timeout tells them apart.";
  else if (d.ran)
    detail += "A build older than the option prints its usage instead; a build that "
              "crashed while loading its backends names the reason in its output (evidence).";
  else
    detail += "It was not run.";
  auto fd = make_finding(FindingId::deep_llamacpp_failed, b.path + " --list-devices: " + why, detail);
  if (d.ran) add_output(fd, b, d);
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void llama_no_gpu(const Facts& f, const LlamaBinary& b, const LlamaDeviceList& d, bool hip, std::vector<Finding>& out) {
  std::string title = b.path + (hip ? " lists no ROCm device" : " lists no GPU device") +
                      (d.devices.empty() ? "" : " (only " + d.devices.front().name + (d.devices.size() > 1 ? ", ..." : "") + ")");
  std::string detail =
      hip ? "This build has ggml's HIP backend, but when asked it found no ROCm device although the machine has an "
            "AMD GPU, so it runs on the CPU (or another backend). ggml's HIP backend lists what the HIP runtime "
            "enumerates: nothing when the user cannot open /dev/kfd (access.*), when the runtime does not support "
            "the GPU without HSA_OVERRIDE_GFX_VERSION (gfx.*), or when the ROCm it loads is too old for the GPU. "
            "Its own words are in the evidence."
          : "This build has ggml's Vulkan backend, but when asked it found no device, so it runs on the CPU. "
            "Vulkan lists nothing without an AMD Vulkan driver (vulkan.no-icd) or when the user cannot open the "
            "render node (access.*).";
  auto fd = make_finding(FindingId::deep_llamacpp_no_gpu, title, detail);
  add_output(fd, b, d);
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void llama_devices(const Facts& f, const LlamaBinary& b, const LlamaDeviceList& d, std::vector<Finding>& out) {
  std::string names;
  for (const auto& dev : d.devices) names += (names.empty() ? "" : ", ") + dev.name + " (" + dev.description + ")";
  auto fd = make_finding(FindingId::deep_llamacpp_devices, b.path + " sees " + names,
                         "Proved by running: this llama.cpp build loaded its GPU backends and listed these devices "
                         "(--list-devices). Whether a model's layers go to them is still -ngl's choice.");
  for (const auto& dev : d.devices) fd.evidence.push_back({source(b), formats::llama::device_line(dev)});
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

std::string ollama_source(const OllamaServer& s, const char* path) { return "GET http://" + s.address + path; }

// One loaded model that is not wholly in GPU memory.
void ollama_cpu(const Facts& f, const OllamaServer& s, const OllamaLoadedModel& m, std::vector<Finding>& out) {
  const std::uint64_t size = *m.size, vram = *m.size_vram;
  std::string title = vram == 0 ? "ollama runs " + m.name + " on the CPU: none of its " + format_bytes(Bytes{size}) +
                                      " is in GPU memory"
                                : "ollama holds " + m.name + " partly in system memory: " + format_bytes(Bytes{vram}) +
                                      " of " + format_bytes(Bytes{size}) + " on the GPU";
  std::string detail =
      "The running server says so itself (/api/ps: size_vram below size): the layers it could not place on the GPU "
      "run on the CPU, many times slower. ";
  detail += vram == 0 ? "With nothing on the GPU, ollama found no GPU it could use when it started: ollama.discovery, "
                        "ollama.gfx-unsupported and ollama.env say why when they are reported; `journalctl -u ollama` "
                        "shows its own account."
                      : "The GPU memory ollama may use is smaller than the model with its context: on an APU the "
                        "GTT/TTM limit (memory.gtt-limit) and the carve-out decide it; a smaller quantisation, a "
                        "shorter context (num_ctx) or fewer parallel requests (OLLAMA_NUM_PARALLEL) fit more of it.";
  auto fd = make_finding(FindingId::deep_ollama_cpu, title, detail);
  fd.evidence.push_back({ollama_source(s, "/api/ps"), m.name + ": size " + std::to_string(size) + ", size_vram " +
                                                          std::to_string(vram)});
  if (s.version) fd.evidence.push_back({ollama_source(s, "/api/version"), *s.version});
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

void ollama_server(const Facts& f, const OllamaServer& s, std::vector<Finding>& out) {
  const OllamaFacts& o = f.ml.ollama;
  std::string title = "ollama " + *s.version + " answers on " + s.address;
  if (s.ps_answered)
    title += s.models.empty() ? ", no model loaded"
                              : ", " + std::to_string(s.models.size()) + (s.models.size() == 1 ? " model" : " models") +
                                    " loaded";
  std::string detail = "Proved by asking: the running server answered /api/version and /api/ps on loopback.";
  auto running = Version::parse(*s.version);
  bool other = o.version && running && !(*o.version == *running);
  if (other) {
    title += "; the ollama at " + o.binary.value_or("its binary") + " is " + o.version->str();
    detail += " The running server is another build than the ollama binary amdml judged from its files (" +
              o.binary.value_or("?") + ", " + o.version->str() +
              "): it was started before an update (restart it: `sudo systemctl restart ollama`), or it is another "
              "installation (a container, a desktop app). The file-based ollama.* findings are about the binary.";
  }
  auto fd = make_finding(FindingId::deep_ollama_server, title, detail);
  fd.evidence.push_back({ollama_source(s, "/api/version"), *s.version});
  fd.evidence.push_back({"address", s.address + " (" + s.address_from + ")"});
  if (o.version_text) fd.evidence.push_back({o.binary.value_or("ollama") + " --version", *o.version_text});
  for (const auto& m : s.models) {
    std::string where = m.size && m.size_vram ? format_bytes(Bytes{*m.size_vram}) + " of " + format_bytes(Bytes{*m.size}) +
                                                    " on the GPU"
                                              : "sizes unknown";
    fd.evidence.push_back({ollama_source(s, "/api/ps"), m.name + ": " + where});
  }
  fd.gpus = amd_gpu_indices(f);
  out.push_back(std::move(fd));
}

}  // namespace

void deep_ollama_rules(const Facts& f, std::vector<Finding>& out) {
  const auto& s = f.ml.ollama.server;
  if (!s || !s->answered || !s->version) return;  // nobody answered on loopback: nothing proved either way
  ollama_server(f, *s, out);
  for (const auto& m : s->models)
    if (m.size && m.size_vram && *m.size > 0 && *m.size_vram < *m.size) ollama_cpu(f, *s, m, out);
}

void deep_llamacpp_rules(const Facts& f, std::vector<Finding>& out) {
  for (const auto& b : f.ml.llama) {
    if (!b.devices) continue;
    const LlamaDeviceList& d = *b.devices;
    if (!d.listed) {
      llama_failed(f, b, d, out);
      continue;
    }
    bool hip = has_backend(b, LlamaBackend::hip);
    bool vulkan = has_backend(b, LlamaBackend::vulkan);
    bool rocm_seen = std::any_of(d.devices.begin(), d.devices.end(), formats::llama::is_rocm_device);
    // A build with neither backend is llamacpp.no-gpu-backend's; with no GPU at all nothing is missing.
    bool missing = !f.gpus.empty() && ((hip && !rocm_seen) || (!hip && vulkan && d.devices.empty()));
    if (missing) llama_no_gpu(f, b, d, hip, out);
    if (!d.devices.empty()) llama_devices(f, b, d, out);
  }
}

}  // namespace amdml::rules
