// kernelstub's configuration (formats/kernelstub.hpp, issue 29 S4): read through the
// depth-limited JSON parser, written by replacing the bytes of user.kernel_options only.
#include <gtest/gtest.h>

#include "fix/edits.hpp"
#include "formats/kernelstub.hpp"
#include "formats/system_files.hpp"

using namespace amdml;
using namespace amdml::formats;

namespace {

// As kernelstub writes it (json.dumps with indent=2), with a key it does not know.
const std::string kConfig = R"({
  "default": {
    "kernel_options": [
      "quiet",
      "splash"
    ],
    "esp_path": "/boot/efi",
    "setup_loader": false,
    "manage_mode": false,
    "force_update": false,
    "live_mode": false,
    "config_rev": 3
  },
  "user": {
    "kernel_options": [
      "quiet",
      "loglevel=0",
      "systemd.show_status=false",
      "splash",
      "amdgpu.gttsize=\u0031"
    ],
    "esp_path": "/boot/efi",
    "setup_loader": false,
    "manage_mode": true,
    "force_update": false,
    "live_mode": false,
    "config_rev": 3,
    "x": [1, {"y": "]"}]
  }
}
)";

KernelCmdlineParams params() {
  KernelCmdlineParams p;
  p.set = {{"ttm.pages_limit", "1"}};
  p.remove = {"amdgpu.gttsize"};
  return p;
}

TEST(KernelstubCodec, ReadThenWriteGivesTheSameBytes) {
  auto c = read_kernelstub(kConfig);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->options, (std::vector<std::string>{"quiet", "loglevel=0", "systemd.show_status=false", "splash", "amdgpu.gttsize=1"}));
  EXPECT_EQ(write_kernelstub(*c, c->options), kConfig);
  EXPECT_EQ(formats::parse::kernelstub_cmdline(kConfig), "quiet loglevel=0 systemd.show_status=false splash amdgpu.gttsize=1");
}

TEST(KernelstubCodec, TheEditChangesOnlyTheList) {
  auto e = fix::edit_kernelstub_config(kConfig, params());
  ASSERT_TRUE(e) << e.error().message;
  std::string want = kConfig;
  const std::string old = "      \"splash\",\n      \"amdgpu.gttsize=\\u0031\"\n";
  want.replace(want.find(old), old.size(), "      \"splash\",\n      \"ttm.pages_limit=1\"\n");
  EXPECT_EQ(e->text, want);
  EXPECT_EQ(e->removed, std::vector<std::string>{"amdgpu.gttsize=1"});
  EXPECT_EQ(fix::edit_kernelstub_config(e->text, params())->text, e->text);
  // One line, and an empty list.
  EXPECT_EQ(fix::edit_kernelstub_config(R"({"user": {"kernel_options": ["quiet", "--", "single"]}, "z": 1})", params())->text,
            R"({"user": {"kernel_options": ["quiet", "ttm.pages_limit=1", "--", "single"]}, "z": 1})");
  EXPECT_EQ(fix::edit_kernelstub_config(R"({"user":{"kernel_options":[]}})", params())->text,
            R"({"user":{"kernel_options":["ttm.pages_limit=1"]}})");
  // The last of duplicate keys is the one JSON readers keep.
  EXPECT_EQ(fix::edit_kernelstub_config(R"({"user":{"kernel_options":["a"]},"user":{"kernel_options":["b"]}})", params())->text,
            R"({"user":{"kernel_options":["a"]},"user":{"kernel_options":["b", "ttm.pages_limit=1"]}})");
}

TEST(KernelstubCodec, WhatIsNotKernelstubsIsAnError) {
  for (const std::string bad : {"not json", "[]", R"({"user": {}})", R"({"user": {"kernel_options": [1]}})",
                                R"({"user": {"kernel_options": "quiet"}})"}) {
    EXPECT_FALSE(read_kernelstub(bad)) << bad;
    EXPECT_FALSE(fix::edit_kernelstub_config(bad, params())) << bad;
    EXPECT_FALSE(formats::parse::kernelstub_cmdline(bad)) << bad;
  }
}

TEST(KernelstubCodec, DeepNestingIsRefusedBeforeItIsParsed) {
  // 200 KB of '[' (the attack's case: 15.7 GB and a SIGSEGV before).
  const std::string deep = R"({"user": {"kernel_options": ["quiet"], "x": )" + std::string(200000, '[');
  auto c = read_kernelstub(deep);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message, "nested deeper than 64 levels");
  EXPECT_FALSE(fix::edit_kernelstub_config(deep, params()));
  EXPECT_FALSE(formats::parse::kernelstub_cmdline(deep));
}

}  // namespace
