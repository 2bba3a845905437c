// The image gate's evaluation (rules/image_check.hpp): pure, over the doctor's facts, the
// kernel directory listings and the knowledge base. A check that cannot apply (no
// PyTorch in the image, a library the image does not ship) is skipped, never passed.
#include <algorithm>

#include "rules/image_check.hpp"
#include "formats/ml_outputs.hpp"

namespace amdml {

namespace {

std::string names(const std::vector<GfxTarget>& ts) {
  std::string s;
  for (const auto& t : ts) s += (s.empty() ? "" : ", ") + t.name();
  return s.empty() ? "none" : s;
}

struct Cases {
  CheckReport report;
  void add(std::string name, CheckStatus status, std::string message) {
    report.cases.push_back({"image", std::move(name), status, std::move(message), ""});
  }
};

// The override set in the image, parsed; nullopt when unset.
std::optional<OverrideParse> image_override(const Facts& f) {
  auto it = f.env.find("HSA_OVERRIDE_GFX_VERSION");
  if (it == f.env.end()) return std::nullopt;
  return parse_hsa_override(it->second);
}

}  // namespace

bool kernel_file_for(const std::string& library, const std::string& file, const GfxTarget& target) {
  auto ends = [&](std::string_view suffix) { return file.size() > suffix.size() && file.ends_with(suffix); };
  if (library != "MIOpen") {
    // Tensile's code objects (.co, .hsaco), its lazy-loading catalogues (.dat) and
    // TheRock's per-ISA packs (.kpack, rocm-2026.md): a README, a .bak or .swp copy
    // names the target without being kernels.
    if (!ends(".co") && !ends(".hsaco") && !ends(".dat") && !ends(".kpack")) return false;
    return formats::mlparse::library_file_target(file) == target;
  }
  std::string n = target.name();
  // MIOpen's precompiled kernel databases (.kdb); its find and perf databases hold no code.
  if (!ends(".kdb")) return false;
  if (!file.starts_with(n) || file.size() == n.size()) return false;
  char next = file[n.size()];
  // the CU count (hex, "gfx90a68") or a separator; no target's name begins another's
  return next == '_' || next == '.' || (next >= '0' && next <= '9') || (next >= 'a' && next <= 'f');
}

CheckReport evaluate_image(const Facts& f, const ImageFacts& image, const Knowledge& kb,
                           const std::vector<GfxTarget>& targets) {
  Cases c;
  auto ov = image_override(f);
  const std::string ov_text = ov ? f.env.at("HSA_OVERRIDE_GFX_VERSION") : "";
  bool bundled_runtime = f.ml.ollama.rocm_dir.has_value();
  for (const auto& env : f.ml.python) bundled_runtime |= env.torch_build == TorchBuild::rocm;

  for (const auto& t : targets) {
    const std::string tn = t.name();
    const GfxInfo* info = kb.find_gfx(t);
    // What the runtime loads kernels for: the override's target when the image sets a
    // valid one that stays in the ISA family, else the hardware's own.
    GfxTarget code = t;
    if (ov) {
      std::string name = tn + " HSA_OVERRIDE_GFX_VERSION";
      const GfxInfo* oi = ov->target ? kb.find_gfx(*ov->target) : nullptr;
      if (!ov->target) {
        c.add(name, CheckStatus::failed, describe_override_error(*ov, ov_text));
      } else if (info && oi && !isa_compatible(info->isa, oi->isa)) {
        c.add(name, CheckStatus::failed,
              "HSA_OVERRIDE_GFX_VERSION=" + ov_text + " is " + ov->target->name() + " (" + to_string(oi->isa) +
                  "), another ISA family than " + tn + " (" + to_string(info->isa) + "): kernels would crash or hang");
      } else {
        c.add(name, CheckStatus::passed, "");
        code = *ov->target;
      }
    }
    const std::string via = code == t ? "" : " (the override runs " + code.name() + " code)";

    // The ROCm release in the image.
    if (f.rocm.version) {
      std::string v = f.rocm.version->str();
      const RocmRelease* rel = kb.find_rocm(*f.rocm.version);
      if (!rel) {
        c.add(tn + " ROCm", CheckStatus::skipped, "ROCm " + v + " is older than every release amdml knows");
      } else if (rel->has_kernels(code)) {
        c.add(tn + " ROCm", CheckStatus::passed, "");
      } else {
        std::string msg = "ROCm " + v + " has no " + code.name() + " kernels" + via;
        if (const RocmRelease* first = kb.first_with_kernels(code)) msg += "; ROCm " + short_version(first->version) + " has them";
        if (code == t && info && info->override_to && rel->has_kernels(*info->override_to))
          msg += "; or set HSA_OVERRIDE_GFX_VERSION=" + info->override_to->version_string();
        c.add(tn + " ROCm", CheckStatus::failed, msg);
      }
    } else if (bundled_runtime) {
      c.add(tn + " ROCm", CheckStatus::skipped, "no system ROCm; PyTorch or ollama bring their own");
    } else {
      c.add(tn + " ROCm", CheckStatus::failed, "no ROCm in the image (no ROCM_PATH, /opt/rocm or distribution runtime)");
    }

    // The math libraries' kernel files.
    for (const auto& d : image.kernel_dirs) {
      std::string name = tn + " " + d.library;
      if (!d.present) {
        c.add(name, CheckStatus::skipped, d.path + " is not in the image");
        continue;
      }
      bool any = std::any_of(d.files.begin(), d.files.end(),
                             [&](const std::string& file) { return kernel_file_for(d.library, file, code); });
      if (any) c.add(name, CheckStatus::passed, "");
      else c.add(name, CheckStatus::failed, "no " + code.name() + " files in " + d.path + via);
    }

    // Every PyTorch in the image.
    for (const auto& env : f.ml.python) {
      if (!env.torch_path) continue;
      std::string name = tn + " PyTorch " + env.prefix;
      std::string what = "torch " + env.torch_version.value_or("?") + " in " + env.prefix;
      if (env.torch_build != TorchBuild::rocm) {
        c.add(name, CheckStatus::failed, what + " is a " + to_string(env.torch_build) + " build, not ROCm");
        continue;
      }
      std::vector<GfxTarget> archs;
      std::string source = "its rocBLAS files";
      if (env.runtime && !env.runtime->arch_list.empty()) {
        for (const auto& a : env.runtime->arch_list)
          if (auto g = GfxTarget::parse_name(a)) archs.push_back(*g);
        source = "torch.cuda.get_arch_list()";
      } else {
        archs = env.torch_rocblas_targets;
      }
      if (archs.empty()) {
        c.add(name, CheckStatus::skipped, what + ": no arch list found (no torch/lib/rocblas/library; try --deep)");
      } else if (std::find(archs.begin(), archs.end(), code) != archs.end()) {
        c.add(name, CheckStatus::passed, "");
      } else {
        c.add(name, CheckStatus::failed, what + " has no " + code.name() + " kernels" + via + " (" + source + ": " + names(archs) + ")");
      }
    }

    // ollama's ROCm backend.
    if (f.ml.ollama.installed) {
      const auto& o = f.ml.ollama;
      std::string name = tn + " ollama";
      if (!o.rocm_dir) {
        c.add(name, CheckStatus::failed, "ollama" + (o.lib_dir ? " in " + *o.lib_dir : std::string()) + " has no ROCm backend");
      } else if (std::find(o.rocblas_targets.begin(), o.rocblas_targets.end(), code) != o.rocblas_targets.end()) {
        c.add(name, CheckStatus::passed, "");
      } else {
        c.add(name, CheckStatus::failed,
              "ollama's ROCm backend " + *o.rocm_dir + " has no " + code.name() + " rocBLAS files" + via + " (it has: " +
                  names(o.rocblas_targets) + "); ollama would fall back to the CPU");
      }
    }
  }
  return c.report;
}

}  // namespace amdml
