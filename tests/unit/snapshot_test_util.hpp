// What the end-to-end snapshot and report tests share: running the built binary, a
// temporary directory, and reading back everything a snapshot or tarball holds.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "platform/process.hpp"
#include "platform/snapshot_writer.hpp"

namespace amdml::test {

struct Out {
  int code = -1;
  std::string out, err;
};

inline Out amdml_run(std::vector<std::string> args, std::size_t output_limit = 4 << 20) {
  args.insert(args.begin(), AMDML_BINARY);
  platform::RunOptions o;
  o.timeout = std::chrono::milliseconds(120000);
  o.output_limit = output_limit;
  auto r = platform::run_command(args, o);
  if (!r) return {-1, "", r.error().message};
  return {r->exit_code, r->out, r->err};
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char buf[] = "/tmp/amdml-snap-test-XXXXXX";
    path = ::mkdtemp(buf);
  }
  ~TempDir() { (void)platform::remove_tree(path.string()); }
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every name, link target and byte under dir.
inline std::string everything_under(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::string all;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    all += it->path().string() + "\n";
    if (it->is_symlink()) all += fs::read_symlink(it->path()).string() + "\n";
    else if (it->is_regular_file()) all += slurp(it->path()) + "\n";
  }
  return all;
}

// A tarball's raw bytes, headers included (names, link targets, owners).
inline std::string tarball_bytes(const std::filesystem::path& tarball) {
  platform::RunOptions o;
  auto raw = platform::run_command({"gzip", "-dc", tarball.string()}, o);
  return raw ? raw->out : std::string();
}

inline Out doctor_json(const std::filesystem::path& root) {
  return amdml_run({"--root", root.string(), "doctor", "--format", "json"});
}

// What redaction must not change: every finding (id, severity, GPUs) and the GPU list
// apart from the serial-derived unique_id.
inline nlohmann::json findings_view(const std::string& doctor) {
  using nlohmann::json;
  json j = json::parse(doctor);
  json f = json::array();
  for (const auto& x : j["findings"]) f.push_back({x["id"], x["severity"], x["gpus"], x["fix"].is_null() ? json() : x["fix"]["recipe"]});
  json gpus = j["gpus"];
  for (auto& g : gpus) g.erase("unique_id");
  return {{"findings", f}, {"gpus", gpus}, {"summary", j["summary"]}, {"rocm", j["rocm"]}, {"host", j["host"]}};
}

}  // namespace amdml::test
