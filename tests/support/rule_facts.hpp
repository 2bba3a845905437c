// Literal knowledge the rule tests start from: a gfx target by name, and the entry of
// Phoenix (gfx1103, an APU that runs gfx1100 code through HSA_OVERRIDE_GFX_VERSION),
// which the ML and the ROCm-channel rule tests both need.
#pragma once

#include "amdml/knowledge.hpp"

namespace amdml::test {

inline GfxTarget gfx(const char* name) { return *GfxTarget::parse_name(name); }

inline GfxInfo phoenix_gfx() {
  GfxInfo phoenix;
  phoenix.target = gfx("gfx1103");
  phoenix.isa = IsaFamily::rdna3;
  phoenix.apu = true;
  phoenix.override_to = gfx("gfx1100");
  return phoenix;
}

}  // namespace amdml::test
