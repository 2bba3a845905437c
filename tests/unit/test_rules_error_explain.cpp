// Matching error texts against the shipped catalogue and checking causes on literal
// facts (src/rules/error_explain.cpp, error_causes.cpp).
#include <gtest/gtest.h>

#include <random>

#include "formats/error_catalog_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "rules/error_explain.hpp"
#include "support/fixtures.hpp"
#include "support/tree.hpp"

namespace amdml {
namespace {

const ErrorCatalog& shipped() {
  static const ErrorCatalog cat = [] {
    auto files = platform::recipe_files("");
    EXPECT_TRUE(files.ok());
    auto c = formats::load_error_catalog(*files);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? *c : ErrorCatalog{};
  }();
  return cat;
}

std::vector<std::string> ids(const ErrorScan& s) {
  std::vector<std::string> out;
  for (const auto& m : s.matches) out.push_back(m.entry->id);
  return out;
}

// The catalogue's promise: every entry's own sample is answered with that entry first.
TEST(ErrorExplain, EverySampleIsAnsweredWithItsEntryFirst) {
  ASSERT_GE(shipped().entries.size(), 30u);
  for (const auto& e : shipped().entries) {
    auto scan = scan_error_text(shipped(), e.sample);
    ASSERT_FALSE(scan.matches.empty()) << e.id << ": its sample matches nothing: " << e.sample;
    EXPECT_EQ(scan.matches.front().entry->id, e.id) << "sample of " << e.id << " answered first by "
                                                    << scan.matches.front().entry->id;
    EXPECT_EQ(scan.matches.front().lines.front().number, 1u);
  }
}

TEST(ErrorExplain, TheIssuesMessagesAreAllInTheCatalogue) {
  for (const char* text : {"hipErrorNoBinaryForGpu", "RuntimeError: HIP error: invalid device function",
                           "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "no ROCm-capable device is detected",
                           "Memory access fault by GPU node-2 (Agent handle: 0x55d0) on address 0x7f00",
                           "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek",
                           "hipErrorSharedObjectInitFailed", "ggml_cuda_init: failed to initialize ROCm: out of memory",
                           "torch.cuda.is_available() returns False",
                           "[    4.825127] amdgpu 0000:23:00.0: Direct firmware load for amdgpu/psp_13_0_0_sos.bin failed with error -2",
                           "Nov 20 09:14:01 box kernel: amdgpu: probe of 0000:03:00.0 failed with error -22",
                           "Loading of module with unavailable key is rejected",
                           "amdgpu 0000:c5:00.0: amdgpu: ring comp_1.0.0 timeout, signaled seq=7, emitted seq=9"}) {
    auto scan = scan_error_text(shipped(), text);
    EXPECT_FALSE(scan.matches.empty()) << text;
  }
}

TEST(ErrorExplain, CapturesTheNodeTheGfxTargetAndTheFile) {
  auto s = scan_error_text(shipped(), "Memory access fault by GPU node-2 (Agent handle: 0x1f829860) on address 0x7a8a.");
  ASSERT_EQ(ids(s).front(), "hsa.memory-access-fault");
  EXPECT_EQ(s.matches[0].captures, (std::vector<std::pair<std::string, std::string>>{{"num", "2"}}));
  s = scan_error_text(shipped(),
                      "rocBLAS error: Cannot read /usr/lib/torch/lib/rocblas/library/TensileLibrary.dat: No such file or "
                      "directory for GPU arch : gfx1031");
  ASSERT_EQ(ids(s).front(), "rocblas.tensile-library");
  // {text} captures are not kept: only the gfx target.
  EXPECT_EQ(s.matches[0].captures, (std::vector<std::pair<std::string, std::string>>{{"gfx", "gfx1031"}}));
  s = scan_error_text(shipped(), "amdgpu 0000:01:00.0: Direct firmware load for amdgpu/dcn_3_1_4_dmcub.bin failed with error -2");
  ASSERT_EQ(ids(s).front(), "kernel.firmware-load-failed");
  EXPECT_EQ(s.matches[0].captures[0].second, "dcn_3_1_4_dmcub.bin");
  EXPECT_EQ(s.matches[0].captures[1].second, "-2");
}

TEST(ErrorExplain, PatternsIgnoreCaseAndNeedTheirLiteralText) {
  auto p = formats::parse_error_pattern("amdgpu: probe of {word} failed with error {num}");
  ASSERT_TRUE(p.ok());
  std::vector<std::pair<std::string, std::string>> caps;
  EXPECT_TRUE(match_pattern(*p, "AMDGPU: PROBE OF 0000:01:00.0 FAILED WITH ERROR -22", &caps));
  EXPECT_EQ(caps.back().second, "-22");
  EXPECT_FALSE(match_pattern(*p, "amdgpu: probe of 0000:01:00.0 failed with error x", nullptr));
  auto lead = formats::parse_error_pattern("{gfx} is not supported");
  ASSERT_TRUE(lead.ok());
  caps.clear();
  EXPECT_TRUE(match_pattern(*lead, "amdgpu [0] gfx1103 is not supported by /tmp/x", &caps));
  EXPECT_EQ(caps, (std::vector<std::pair<std::string, std::string>>{{"gfx", "gfx1103"}}));
}

// A whole ollama server log (journalctl -u ollama) with two starts: the last start's
// reasons answer it, and the older start's different reason does not.
TEST(ErrorExplain, APastedOllamaLogIsAnsweredFromItsLastStart) {
  const std::string log = test::read_file(test::source_path("tests/unit/data/explain/ollama-server.log"));
  ASSERT_FALSE(log.empty());
  auto s = scan_error_text(shipped(), log);
  EXPECT_TRUE(s.ollama_log);
  auto got = ids(s);
  EXPECT_NE(std::find(got.begin(), got.end(), "ollama.gfx-unsupported"), got.end());
  EXPECT_NE(std::find(got.begin(), got.end(), "ollama.no-compatible-gpus"), got.end());
  // The first start (before the last "server config") skipped an iGPU: not this start's answer.
  EXPECT_EQ(std::find(got.begin(), got.end(), "ollama.igpu-skipped"), got.end());
  for (const auto& m : s.matches)
    if (m.entry->id == "ollama.gfx-unsupported") {
      ASSERT_FALSE(m.captures.empty());
      EXPECT_EQ(m.captures.back().second, "gfx1031");
    }
}

TEST(ErrorExplain, AKernelLogWithTimeStampsIsClassifiedToo) {
  const std::string dmesg =
      "[    9.291714] amdgpu 0000:23:00.0: amdgpu: initializing kernel modesetting (IP DISCOVERY 0x1002:0x744C).\n"
      "[    9.292134] amdgpu 0000:23:00.0: amdgpu: Fatal error during GPU init\n"
      "[    9.292551] amdgpu: probe of 0000:23:00.0 failed with error -12\n";
  auto s = scan_error_text(shipped(), dmesg);
  ASSERT_EQ(ids(s), std::vector<std::string>{"kernel.amdgpu-probe-failed"});
  EXPECT_EQ(s.matches[0].count, 2u);
  EXPECT_EQ(s.matches[0].lines[0].number, 2u);
}

TEST(ErrorExplain, HostileAndHugeInputIsBoundedAndNeverFails) {
  std::mt19937 rng(27);
  std::string junk(3 << 20, '\0');
  for (auto& c : junk) c = static_cast<char>(rng());
  junk += "\nMemory access fault by GPU node-1.\n";
  auto s = scan_error_text(shipped(), junk);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(s.bytes, junk.size());
  EXPECT_EQ(ids(s).back(), "hsa.memory-access-fault");  // the tail is what was read
  // A line repeating a pattern's first words thousands of times.
  std::string repeat;
  for (int i = 0; i < 20000; ++i) repeat += "failed with error ";
  s = scan_error_text(shipped(), repeat);
  EXPECT_LE(s.matches.size(), shipped().entries.size());
  // Every line of a paste that matches: quoted at most kMaxQuotedLines times, counted all.
  std::string many;
  for (int i = 0; i < 5000; ++i) many += "Memory access fault by GPU node-1.\n";
  s = scan_error_text(shipped(), many);
  ASSERT_EQ(s.matches.size(), 1u);
  EXPECT_EQ(s.matches[0].count, 5000u);
  EXPECT_EQ(s.matches[0].lines.size(), kMaxQuotedLines);
  EXPECT_TRUE(scan_error_text(shipped(), "").matches.empty());
}

TEST(ErrorExplain, UnknownTextGetsTheNearestEntries) {
  EXPECT_TRUE(looks_like_error_text("RuntimeError: something else entirely"));
  EXPECT_TRUE(looks_like_error_text("the gpu does not work at all"));
  EXPECT_FALSE(looks_like_error_text("7900 XTX"));
  EXPECT_FALSE(looks_like_error_text("acess.kfd"));
  auto near = nearest_entries(shipped(), "Memory fault on the GPU while training");
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near.front()->id, "hsa.memory-access-fault");
}

// Cause checks on literal facts: a finding confirms, a fact rules out.
TEST(ErrorExplain, CausesAreConfirmedByFindingsAndRuledOutByFacts) {
  const ErrorEntry* e = shipped().find("kernel.module-key-rejected");
  ASSERT_NE(e, nullptr);
  Facts f;
  f.boot.secure_boot = true;
  f.boot.dkms = DkmsState::installed;
  f.boot.dkms_versions = {"6.12.12"};
  Finding rejected;
  rejected.id = FindingId::kernel_module_rejected;
  rejected.title = "Secure Boot refused the amdgpu module";
  rejected.commands = {"sudo mokutil --import /var/lib/dkms/mok.pub"};
  auto causes = check_causes(*e, f, {rejected});
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].rank, 1u);
  EXPECT_EQ(causes[0].verdict, CauseVerdict::confirmed);
  EXPECT_EQ(causes[0].commands, rejected.commands);
  EXPECT_NE(causes[0].cause->text.find("MOK"), std::string::npos);
  // amdgpu is not loaded: "another module was refused" is ruled out.
  EXPECT_EQ(causes[1].verdict, CauseVerdict::ruled_out);
  ASSERT_FALSE(causes[1].evidence.empty());
  EXPECT_EQ(causes[1].evidence[0].text, "amdgpu is not loaded (no /sys/module/amdgpu)");
  // Secure Boot off and amdgpu loaded: the first is ruled out, the second confirmed, and
  // the confirmed one is listed first.
  f.boot.secure_boot = false;
  f.driver.amdgpu_loaded = true;
  causes = check_causes(*e, f, {});
  EXPECT_EQ(causes[0].rank, 2u);
  EXPECT_EQ(causes[0].verdict, CauseVerdict::confirmed);
  EXPECT_EQ(causes[1].verdict, CauseVerdict::ruled_out);
  EXPECT_EQ(causes[1].evidence[0].text, "Secure Boot is off");
}

TEST(ErrorExplain, AnUnknownFactLeavesTheCauseOpen) {
  const ErrorEntry* e = shipped().find("torch.not-compiled-with-cuda");
  ASSERT_NE(e, nullptr);
  Facts f;  // no Python probed: nothing known about torch
  auto causes = check_causes(*e, f, {});
  for (const auto& c : causes) EXPECT_EQ(c.verdict, CauseVerdict::unknown) << c.cause->text;
  PythonEnv env;
  env.prefix = "/home/alice/venv";
  env.torch_version = "2.5.1+cpu";
  env.torch_build = TorchBuild::cpu;
  f.ml.probed = true;
  f.ml.python.push_back(env);
  causes = check_causes(*e, f, {});
  EXPECT_EQ(causes[0].verdict, CauseVerdict::confirmed);
  EXPECT_EQ(causes[0].evidence.back().text, "torch 2.5.1+cpu in /home/alice/venv is a cpu build");
  EXPECT_EQ(causes[1].verdict, CauseVerdict::ruled_out);
}

}  // namespace
}  // namespace amdml
