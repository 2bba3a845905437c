// Every fact as JSON (the "facts" key of the doctor document): the raw layers behind
// the joined GPU list, for tools and bug reports.
#pragma once

#include <nlohmann/json.hpp>

#include "amdml/facts.hpp"

namespace amdml::render {

nlohmann::json facts_json(const Facts& f);
nlohmann::json runtime_facts_json(const RuntimeFacts& r);  // facts_runtime_json.cpp
// Each GPU's memory by source (facts.runtime.memory, and `amdml info`'s "memory").
nlohmann::json gpu_memory_json(const std::vector<GpuMemoryView>& memory);  // facts_runtime_json.cpp
nlohmann::json ml_facts_json(const MlFacts& m);            // facts_ml_json.cpp
void boot_facts_json(const Facts& f, nlohmann::json& j);  // facts_boot_json.cpp: kernel_log, boot, ollama_journal
nlohmann::json rocm_installs_json(const std::vector<RocmInstall>& installs);  // facts_ml_json.cpp

}  // namespace amdml::render