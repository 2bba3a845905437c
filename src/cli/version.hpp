// What `amdml --version` says: the version, the commit the binary was built from and how
// current the built-in knowledge base is, so a bug report shows all three.
#pragma once

#include <string>

namespace amdml::cli {

// "d56900b1c2a3", "d56900b1c2a3-dirty" or "unknown" (built outside a git checkout);
// written at build time by cmake/build_info.cmake into generated/build_info.cpp.
const char* build_commit();

// Three lines: "amdml 0.1.0", "commit <build_commit()>", and
// "knowledge base: ROCm X.Y (the newest release it knows)", read from the built-in
// knowledge base when asked, so it cannot fall behind the data.
std::string version_text();

}  // namespace amdml::cli
