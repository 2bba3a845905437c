// `amdml explain` and the doctor read one PyTorch table (Knowledge::pytorch_for): for
// every gfx target the shipped knowledge base knows, both recommend the same wheel index
// and agree on whether the GPU needs HSA_OVERRIDE_GFX_VERSION with it.
#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "formats/fix_params_json.hpp"
#include "rules/rules.hpp"
#include "formats/knowledge_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "support/cli.hpp"
#include "support/knowledge.hpp"
#include "support/findings.hpp"

using amdml::test::shipped_knowledge;

using namespace amdml;

namespace {

using test::find_finding;
nlohmann::json explain_json(const std::string& gfx) {
  return nlohmann::json::parse(test::run_amdml("explain " + gfx + " --format json").out, nullptr, false);
}

// One GPU of target t on a current kernel, no ROCm installed, and a Python env with torch.
Facts box(const GfxTarget& t, const PythonEnv& env) {
  Facts f;
  f.os.kernel = Version{6, 17, 0};
  f.os.kernel_release = "6.17.0-5-generic";
  f.os.id = "ubuntu";
  Gpu g;
  g.gfx = t;
  g.kfd_node = 1;
  g.driver = "amdgpu";
  f.gpus.push_back(g);
  f.driver.amdgpu_loaded = true;
  f.ml.probed = true;
  f.ml.python = {env};
  return f;
}

PythonEnv torch_env(TorchBuild b) {
  PythonEnv e;
  e.prefix = "/venv";
  e.interpreter = "/venv/bin/python3";
  e.torch_path = "/venv/lib/python3.12/site-packages/torch";
  e.torch_version = "2.10.0";
  e.torch_build = b;
  return e;
}

}  // namespace

TEST(KnowledgeAgree, ExplainAndDoctorRecommendTheSameWheelForEveryTarget) {
  const Knowledge& kb = shipped_knowledge();
  ASSERT_FALSE(kb.gfx.empty());
  int with_wheel = 0, with_override = 0;
  for (const auto& g : kb.gfx) {
    SCOPED_TRACE(g.target.name());
    auto j = explain_json(g.target.name());
    ASSERT_TRUE(j.is_object());
    const auto& ej = j["gfx"];
    const bool has_index = ej["pytorch_index"].is_string();
    const std::string index = has_index ? ej["pytorch_index"].get<std::string>() : "";
    const bool needs_override = ej["pytorch_needs_override"].get<bool>();

    // The doctor on a CPU-only torch recommends a wheel: the same one.
    auto fs = diagnose(box(g.target, torch_env(TorchBuild::cpu)), kb);
    const Finding* build = find_finding(fs, "torch.build");
    ASSERT_NE(build, nullptr);
    ASSERT_FALSE(build->commands.empty());
    const std::string& cmd = build->commands.front();
    if (has_index) {
      ++with_wheel;
      EXPECT_EQ(cmd.substr(cmd.size() - index.size()), index) << cmd;
    } else {
      EXPECT_NE(cmd.find("rocmX.Y"), std::string::npos) << "explain has no wheel, the doctor names " << cmd;
      continue;
    }

    // On every installed ROCm, a gfx.unsupported that names a wheel names this one.
    for (const auto& rel : kb.rocm) {
      auto f = box(g.target, torch_env(TorchBuild::cpu));
      f.rocm.source = RocmSource::opt_rocm;
      f.rocm.path = "/opt/rocm";
      f.rocm.version = rel.version;
      for (const auto& fd : diagnose(f, kb))
        if (fd.id == FindingId::gfx_unsupported)
          for (const auto& c : fd.commands)
            if (c.find("--index-url") != std::string::npos) {
              EXPECT_NE(c.find(index + " "), std::string::npos) << "ROCm " << rel.version.str() << ": " << c;
            }
    }

    // With that wheel installed, the doctor asks for the override exactly when explain says so.
    const PytorchWheel* w = nullptr;
    for (const auto& x : kb.pytorch) w = x.index == index ? &x : w;
    ASSERT_NE(w, nullptr) << index;
    const RocmRelease* r = kb.wheel_release(*w);
    ASSERT_NE(r, nullptr);
    auto env = torch_env(TorchBuild::rocm);
    env.torch_hip = r->version.str();
    env.torch_rocblas_targets = r->kernels;
    fs = diagnose(box(g.target, env), kb);
    const Finding* tg = find_finding(fs, "torch.gfx");
    EXPECT_EQ(tg != nullptr, needs_override);
    if (needs_override) {
      ++with_override;
      ASSERT_TRUE(tg && tg->fix);
      EXPECT_EQ(amdml::formats::fix_params_json(tg->fix->params)["value"], g.override_to->version_string());
    }
  }
  EXPECT_GE(with_wheel, 20);
  EXPECT_GE(with_override, 4);  // fewer since the rocm7.14 wheels carry gfx1010-1036 kernels
}

// Each wheel is its own release's: the rocm7.14 wheel (its ROCm from TheRock's wheels) has
// gfx1103 kernels (the 7.1 wheel, which has none, is not borrowed for it).
TEST(KnowledgeAgree, NoReleaseBorrowsAnotherReleasesWheel) {
  const Knowledge& kb = shipped_knowledge();
  for (const auto& r : kb.rocm) {
    SCOPED_TRACE(r.version.str());
    if (r.pytorch_index.empty()) continue;
    const std::string suffix = "rocm" + std::to_string(r.version.major) + "." + std::to_string(r.version.minor);
    EXPECT_EQ(r.pytorch_index.substr(r.pytorch_index.size() - suffix.size()), suffix);
  }
  auto pc = kb.pytorch_for({*GfxTarget::parse_name("gfx1103")});
  ASSERT_NE(pc.wheel, nullptr);
  EXPECT_FALSE(pc.needs_override);
  EXPECT_EQ(pc.wheel->index, "https://download.pytorch.org/whl/rocm7.14");
  pc = kb.pytorch_for({*GfxTarget::parse_name("gfx1201")});
  ASSERT_NE(pc.wheel, nullptr);
  EXPECT_FALSE(pc.needs_override);
  EXPECT_EQ(pc.wheel->index, kb.pytorch.back().index);
}
