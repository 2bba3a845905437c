# Written by amdml fix (recipe hsa-override). `amdml fix --undo` removes it;
# `amdml fix` rewrites it. Read by login shells.
export HSA_OVERRIDE_GFX_VERSION=11.0.0
