// Reading back what `amdml snapshot` and `amdml report` wrote: the tarball's raw bytes,
// and the part of a doctor document redaction must leave alone.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"

namespace amdml::test {

// A tarball's raw bytes, headers included (names, link targets, owners).
inline std::string tarball_bytes(const std::filesystem::path& tarball) {
  CliRun r = shell_run("gzip -dc " + sh_quote(tarball.string()));
  return r.code == 0 ? r.out : std::string();
}

inline CliRun doctor_json(const std::filesystem::path& root) {
  return amdml_run({"--root", root.string(), "doctor", "--format", "json"});
}

// What redaction must not change: every finding (id, severity, GPUs) and the GPU list
// apart from the serial-derived unique_id.
inline nlohmann::json findings_view(const std::string& doctor) {
  using nlohmann::json;
  json j = json::parse(doctor);
  json f = json::array();
  for (const auto& x : j["findings"])
    f.push_back({x["id"], x["severity"], x["gpus"], x["fix"].is_null() ? json() : x["fix"]["recipe"]});
  json gpus = j["gpus"];
  for (auto& g : gpus) g.erase("unique_id");
  json rocm = j["rocm"];
  // TheRock's wheels live in a Python environment under a home directory, whose user
  // name redaction replaces: their paths are not what a snapshot must keep.
  if (rocm.contains("installs"))
    for (auto& in : rocm["installs"])
      if (!in["python_env"].is_null()) {
        in.erase("path");
        in.erase("python_env");
      }
  return {{"findings", f}, {"gpus", gpus}, {"summary", j["summary"]}, {"rocm", rocm}, {"host", j["host"]}};
}

}  // namespace amdml::test
