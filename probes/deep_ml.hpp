// The frameworks' part of doctor --deep (docs/deep.md): after the HSA steps, within what
// is left of the same --deep-timeout budget, each ROCm PyTorch environment's interpreter
// runs formats::mlparse::torch_probe_program() in a child (import, is_available, a matmul per
// visible device); then each llama.cpp build lists its devices. Under --root the recorded
// output is replayed through Host::run.
#pragma once

#include <chrono>

#include "probes/collect.hpp"

namespace amdml::probes {

void deep_torch(const ProbeContext& ctx, Facts& f, std::chrono::steady_clock::time_point deadline);

// Each llama.cpp build the llamacpp probe found (one per directory: llama-cli, else
// llama-server) runs `BIN --list-devices` in a child, killed with its process group at
// what is left of the budget (at most 15 s); under --root the recorded output is replayed.
void deep_llamacpp(const ProbeContext& ctx, Facts& f, std::chrono::steady_clock::time_point deadline);

// The running ollama server, asked on loopback only (probes/deep_ollama.cpp): GET
// /api/version and /api/ps, each limited to 2 s and to what is left of the budget;
// recorded for snapshots ("ollama_server"), replayed under --root.
void deep_ollama(const ProbeContext& ctx, Facts& f, std::chrono::steady_clock::time_point deadline);

}  // namespace amdml::probes
