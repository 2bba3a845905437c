// Issue 14, case 8: an ollama whose build cannot be identified (no version answer, no
// lib/ollama) is judged by every release amdml knows: a target no release ever shipped
// gets ollama.gfx-unsupported whatever the build is; a target some releases ship gets
// an info finding naming which; one every release runs gets nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/tree.hpp"

using namespace amdml::test;
using nlohmann::json;

namespace {

json doctor(const TestTree& t) {
  return json::parse(run_amdml("--root " + t.str() + " doctor --format json").out);
}

const json* finding(const json& report, const std::string& id) {
  for (const auto& f : report["findings"])
    if (f["id"] == id) return &f;
  return nullptr;
}

// An unidentifiable ollama on the box: a wrapper script that names no version.
void add_unidentified_ollama(const TestTree& t) {
  write_file(t / "usr/local/bin/ollama", "#!/bin/sh\n");
  fs::permissions(t / "usr/local/bin/ollama", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                                  fs::perms::others_read | fs::perms::others_exec);
  auto path = t / "amdml-host.json";
  auto doc = json::parse(read_file(path));
  doc["commands"]["/usr/local/bin/ollama --version"] = {{"exit_code", 1}, {"stdout", ""}, {"stderr", "Error: no server\n"}};
  write_file(path, doc.dump(2));
}

}  // namespace

TEST(OllamaUnidentified, ATargetNoReleaseShippedIsUnsupportedWhateverTheBuild) {
  TestTree t("rx580-ollama-unidentified");
  auto d = doctor(t);
  const json* f = finding(d, "ollama.gfx-unsupported");
  ASSERT_NE(f, nullptr) << d["findings"].dump(2);
  EXPECT_EQ((*f)["severity"], "warning");
  std::string detail = (*f)["detail"];
  EXPECT_NE(detail.find("could not be identified"), std::string::npos) << detail;
  EXPECT_NE(detail.find("No ollama release amdml knows"), std::string::npos) << detail;
  EXPECT_NE(detail.find("gfx803"), std::string::npos);
}

TEST(OllamaUnidentified, ATargetSomeReleasesShipSaysWhich) {
  // RX 9070 XT (gfx1201): releases before v0.6.4 have no kernels for it, later ones do.
  TestTree t("rx9070xt-rocm63");
  add_unidentified_ollama(t);
  auto d = doctor(t);
  const json* f = finding(d, "ollama.gfx-unsupported");
  ASSERT_NE(f, nullptr) << d["findings"].dump(2);
  EXPECT_EQ((*f)["severity"], "info");
  std::string detail = (*f)["detail"];
  EXPECT_NE(detail.find("could not be identified"), std::string::npos) << detail;
  EXPECT_NE(detail.find("have no kernels for it"), std::string::npos) << detail;
  EXPECT_NE(detail.find("ship its kernels"), std::string::npos) << detail;
  EXPECT_EQ(finding(d, "vulkan.no-icd"), nullptr);  // a "may" is no reason to demand Vulkan
}
