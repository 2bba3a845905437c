// ML-stack facts: ollama, PyTorch, llama.cpp and friends, as installed on the host.
//
// Everything here is read from files (binaries, unit files, torch/version.py, library
// directories) or from commands run with a time limit (ollama --version, systemctl
// is-active, and with --deep a child Python that imports torch). Under --root the
// commands are answered by amdml-host.json, so nothing is ever executed there. What
// could not be learned stays empty; the rules decide what it means.
#pragma once

#include <map>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amdml/gfx.hpp"
#include "amdml/service_unit.hpp"
#include "amdml/version.hpp"

namespace amdml {

// The ollama.service unit as systemd would run it.
struct OllamaService {
  std::optional<std::string> unit_path;  // the unit file that won
  bool masked = false;
  std::vector<std::string> files;  // unit then drop-ins, in the order applied
  std::map<std::string, systemd::EnvValue> environment;  // effective
  std::vector<systemd::EnvFileRef> env_files;
  std::vector<systemd::Assignment> unknown_keys;  // "Enviroment=..." lines systemd ignores
  std::vector<systemd::UnitIssue> issues;
  std::string user = "root";  // User= (systemd runs as root without one)
  std::optional<std::string> group;
  std::vector<std::string> supplementary_groups;
  bool dynamic_user = false;
  bool user_known = false;               // User= is in /etc/passwd (or is root)
  std::vector<std::string> user_groups;  // primary, Group=, SupplementaryGroups= and /etc/group memberships
  std::optional<std::string> active;  // `systemctl is-active ollama`: "active", "failed", ...
  // The running service's own environment: /proc/<MainPID>/environ of the PID
  // `systemctl show` names (readable by root or the service's user; unknown otherwise).
  // It is what the service started with, which a unit edited since does not change.
  std::optional<int> main_pid;
  std::optional<std::map<std::string, std::string>> running_environment;
};

// One model the running server holds, from GET /api/ps (--deep): `size` is what the
// model takes in memory, `size_vram` the part of it on the GPU.
struct OllamaLoadedModel {
  std::string name;  // "llama3.2:3b"
  std::optional<std::uint64_t> size;
  std::optional<std::uint64_t> size_vram;
};

// The running ollama server, asked read-only on a loopback address (--deep only):
// GET /api/version and GET /api/ps.
struct OllamaServer {
  std::string address;               // "127.0.0.1:11434"
  std::string address_from;          // "default", "OLLAMA_HOST in the service", "OLLAMA_HOST in the environment"
  bool answered = false;             // /api/version answered with a version
  std::optional<std::string> version;  // as the server reports it ("0.12.3")
  bool ps_answered = false;          // /api/ps answered with a model list
  std::vector<OllamaLoadedModel> models;
  std::optional<std::string> error;  // connection refused, timed out, not JSON, ...
};

struct OllamaFacts {
  bool installed = false;
  std::optional<std::string> binary;        // "/usr/local/bin/ollama"
  std::optional<std::string> version_text;  // raw `ollama --version` output, trimmed
  std::optional<Version> version;
  std::optional<std::string> version_error;  // why the version is unknown
  std::optional<std::string> lib_dir;        // "/usr/local/lib/ollama"
  std::vector<std::string> backends;         // library subdirectories: "rocm_v7_2", "vulkan", "cuda_v12"
  std::optional<std::string> rocm_dir;       // the ROCm backend directory
  std::optional<Version> bundled_rocm;       // from the directory name ("rocm_v7_2" -> 7.2)
  std::vector<GfxTarget> rocblas_targets;    // TensileLibrary_lazy_gfx*.dat it ships (ollama's own filter)
  std::optional<OllamaService> service;
  std::optional<OllamaServer> server;  // --deep, when asked
};

enum class TorchBuild { rocm, cuda, cpu, unknown };
const char* to_string(TorchBuild b);

// Where a ROCm build of PyTorch gets its ROCm from.
enum class TorchRocm {
  unknown,
  bundled,      // pytorch.org up to rocm7.2 (and AMD's legacy wheels): libamdhip64 in torch/lib
  rocm_wheels,  // pytorch.org rocm7.14 and later: the rocm, rocm-sdk-* wheels beside it
  amd_device,   // AMD's TheRock torch[device-gfxNNNN]: amd-torch-device-gfx* plus the rocm wheels
};
const char* to_string(TorchRocm k);

// TheRock's ROCm wheels in one environment (dist-info directories, never imported).
struct RocmWheels {
  std::optional<std::string> rocm_version;       // the rocm meta package ("7.14.1")
  std::optional<std::string> core_version;       // rocm-sdk-core
  std::optional<std::string> libraries_version;  // rocm-sdk-libraries
  std::optional<std::string> core_path;          // ".../site-packages/_rocm_sdk_core" when present
  std::vector<GfxTarget> device_targets;         // rocm-sdk-device-gfxNNNN
  std::vector<std::string> device_packages;      // their names
  std::vector<std::string> torch_device_packages;  // amd-torch-device-gfx1151, amd-torch-device-gfx110x
  bool any() const { return rocm_version || core_version || libraries_version || core_path || !device_packages.empty(); }
};

// One matmul the --deep torch child ran on one visible device: two random float32
// matrices multiplied a few times, synchronised, timed, one block checked on the CPU.
struct TorchMatmul {
  int device = 0;                  // torch's device index ("cuda:N")
  bool ok = false;
  std::optional<int> size;         // N of the N x N matrices
  std::optional<double> ms;        // per multiplication
  std::optional<double> tflops;    // 2 N^3 per multiplication / time, 10^12 per second
  std::optional<bool> data_ok;     // a block recomputed on the CPU matched
  std::optional<std::string> error;  // the real error text (type: message), or why it has none
  bool timed_out = false;          // started and never answered before the child's limit
};

// What `import torch` saw in a child process (--deep).
struct TorchRuntime {
  bool ran = false;
  std::optional<bool> available;  // torch.cuda.is_available()
  int device_count = 0;
  std::vector<std::string> device_names;
  std::vector<std::string> device_archs;  // gcnArchName ("gfx1100")
  std::vector<std::string> arch_list;     // torch.cuda.get_arch_list()
  std::optional<std::string> error;       // the real error text (last meaningful line)
  std::optional<int> exit_code;
  bool timed_out = false;
  std::vector<TorchMatmul> matmuls;  // per visible device, when torch saw the GPU
  std::uint64_t timeout_ms = 0;      // the child's share of the --deep-timeout budget (live)
};

struct PythonPackage {
  std::string name;     // "tensorflow-rocm", "onnxruntime-rocm"
  std::string version;  // from the .dist-info directory name
  std::string path;
};

struct PythonEnv {
  std::string kind;     // "python3 on PATH", "venv", "conda", "--python"
  std::string prefix;   // "/home/alice/venv"
  std::optional<std::string> interpreter;  // "/home/alice/venv/bin/python3"
  std::vector<std::string> site_packages;
  // torch, when installed (torch/version.py, read without importing it)
  std::optional<std::string> torch_path;  // ".../site-packages/torch"
  std::optional<std::string> torch_version;
  std::optional<std::string> torch_hip;   // "6.2.41133-dd7f95766"
  std::optional<std::string> torch_cuda;  // "12.1"
  TorchBuild torch_build = TorchBuild::unknown;
  std::vector<GfxTarget> torch_rocblas_targets;  // torch/lib/rocblas/library files (the wheel's gfx list)
  bool torch_bundles_hip = false;                 // torch/lib/libamdhip64.so* is there
  TorchRocm torch_rocm = TorchRocm::unknown;      // ROCm builds only
  RocmWheels rocm_wheels;                         // TheRock's rocm wheels in this environment
  std::vector<PythonPackage> rocm_packages;       // tensorflow-rocm, onnxruntime-rocm
  std::optional<TorchRuntime> runtime;            // --deep
};

enum class LlamaBackend { hip, vulkan, cuda, cpu };
const char* to_string(LlamaBackend b);

// One device a llama.cpp build listed with --list-devices (ggml's backend devices, the
// CPU left out): "  ROCm0: AMD Radeon RX 7900 XTX (24560 MiB, 24472 MiB free)".
struct LlamaDevice {
  std::string name;         // "ROCm0", "Vulkan0"
  std::string backend;      // the name without its index: "ROCm", "Vulkan", "CUDA"
  std::string description;  // "AMD Radeon RX 7900 XTX"
  std::optional<std::uint64_t> total_mib;
  std::optional<std::uint64_t> free_mib;
};

// What `BIN --list-devices` said in a child with a time limit (--deep).
struct LlamaDeviceList {
  bool ran = false;      // a child ran (live) or its recorded output was replayed
  bool listed = false;   // the "Available devices:" header was printed
  std::vector<LlamaDevice> devices;
  std::optional<int> exit_code;
  bool timed_out = false;
  std::string output;    // what it printed (stdout, then stderr), trimmed and bounded: the evidence
  std::optional<std::string> error;  // why there is no list: not run, could not start, no header
  std::uint64_t timeout_ms = 0;      // the child's share of the --deep-timeout budget (live)
};

struct LlamaBinary {
  std::string path;  // "/usr/local/bin/llama-server"
  std::vector<LlamaBackend> backends;
  std::string evidence;  // "libggml-hip.so next to it", "ldd: libamdhip64.so.6"
  // libamdhip64.so* beside its ggml libraries (lemonade's builds bundle ROCm; ggml-org's
  // HIP builds load the system's)
  std::optional<std::string> bundled_hip;
  std::optional<LlamaDeviceList> devices;  // --deep: its --list-devices
};

struct VulkanIcd {
  std::string path;    // "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json"
  std::string driver;  // "radv", "amdvlk", or "other"
};

// ROCm libraries the ROCm builds of TensorFlow and onnxruntime load from the system.
struct RocmLibrary {
  std::string name;     // "MIOpen"
  std::string package;  // "miopen-hip"
  bool present = false;
};

struct MlFacts {
  bool probed = false;
  OllamaFacts ollama;
  std::vector<PythonEnv> python;
  bool python_search_truncated = false;  // the bounded home search hit its limit
  std::vector<LlamaBinary> llama;
  std::vector<VulkanIcd> vulkan_icds;
  std::vector<RocmLibrary> rocm_libraries;  // checked only when a package needs them
};

}  // namespace amdml
