// Every probe's entry point; probes/registry.cpp puts them in run order.
#pragma once

#include "amdml/image.hpp"
#include "platform/host.hpp"
#include "probes/collect.hpp"

namespace amdml::probes {

void os(const ProbeContext& ctx, Facts& f);         // os.cpp
void memory(const ProbeContext& ctx, Facts& f);     // memory.cpp
void pci(const ProbeContext& ctx, Facts& f);        // pci.cpp
void driver(const ProbeContext& ctx, Facts& f);     // driver.cpp
void modprobe(const ProbeContext& ctx, Facts& f);   // modprobe.cpp
void kernel_log(const ProbeContext& ctx, Facts& f); // kernel_log.cpp (this boot's GPU lines)
void boot(const ProbeContext& ctx, Facts& f);       // boot.cpp (Secure Boot, lockdown, DKMS, blacklists)
void kfd(const ProbeContext& ctx, Facts& f);        // kfd.cpp
void drm(const ProbeContext& ctx, Facts& f);        // drm.cpp
void gpus(const ProbeContext& ctx, Facts& f);       // gpus.cpp (joins PCI, DRM, KFD)
void identity(const ProbeContext& ctx, Facts& f);   // identity.cpp
void rocm(const ProbeContext& ctx, Facts& f);       // rocm.cpp
void firmware(const ProbeContext& ctx, Facts& f);   // firmware.cpp (the linux-firmware package; pacman)
void container(const ProbeContext& ctx, Facts& f);  // container.cpp
void env(const ProbeContext& ctx, Facts& f);        // env.cpp
void runtime(const ProbeContext& ctx, Facts& f);    // runtime.cpp (HSA + libdrm)
// Live, when the HSA child will run whatever the other probes find (AMDML_HSA_LIBRARY
// names a runtime, or /dev/kfd exists and opens), starts it now, beside the caller;
// nullptr otherwise (the runtime probe then decides, as it always did).
std::shared_ptr<EarlyRuntime> start_runtime_early(const ProbeContext& ctx);
void ml(const ProbeContext& ctx, Facts& f);         // ml.cpp (ollama, PyTorch, llama.cpp)
void ollama_journal(const ProbeContext& ctx, Facts& f);  // ollama_journal.cpp (its last start's discovery)
void deep(const ProbeContext& ctx, Facts& f);       // deep.cpp (--deep: allocate, copy, fill per GPU)


// Not a doctor probe: the image gate's kernel-file listing (image.cpp), under facts.rocm.path.
ImageFacts image(const platform::Host& host, const Facts& facts);

}  // namespace amdml::probes
