// llama.cpp's device list: what `llama-cli --list-devices` (and llama-server, which
// shares common/arg.cpp) prints, read into facts for doctor --deep.
//
// The format, from llama.cpp's source (common/arg.cpp, the "--list-devices" option; the
// same lines in tools/llama-bench): a line "Available devices:", then one line per ggml
// backend device that is not the CPU,
//   "  <name>: <description> (<total> MiB, <free> MiB free)"
// with the sizes in MiB (integer division). <name> is the backend's name and an index
// ("ROCm0" for ggml's HIP backend, "Vulkan0", "CUDA0"); the description may carry
// parentheses of its own ("AMD Radeon 890M Graphics (RADV STRIX1)"), so the sizes are the
// last parenthesised group. No device: the header alone (llama-bench prints "  (none)").
// ggml's loading messages go to stderr and are kept only as evidence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "amdml/facts_ml.hpp"
#include "amdml/host.hpp"

namespace amdml::formats::llama {

struct DeviceListing {
  bool header = false;              // "Available devices:" was printed
  std::vector<LlamaDevice> devices;  // the lines after it that read as devices
  std::vector<std::string> other;    // lines after the header that did not (trimmed, "(none)" left out)
};

// The device lines of `--list-devices` stdout; never fails (what is not a device line is
// left in `other`).
DeviceListing parse_list_devices(std::string_view out);

// The whole child: its listing, how it ended, and its output bounded for evidence.
LlamaDeviceList device_list(const CommandResult& r);

// One device as llama.cpp prints it ("ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)").
std::string device_line(const LlamaDevice& d);

// ggml's HIP backend names its devices "ROCm<N>" (older builds "HIP<N>").
bool is_rocm_device(const LlamaDevice& d);

}  // namespace amdml::formats::llama
