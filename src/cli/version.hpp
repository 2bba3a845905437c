// What `amdml --version` says: the version, the commit the binary was built from and how
// current the built-in knowledge base is, so a bug report shows all three.
#pragma once

#include <string>

namespace amdml::cli {

// "d56900b1c2a3", "d56900b1c2a3-dirty" or "unknown" (built outside a git checkout);
// written at build time by cmake/build_info.cmake into generated/build_info.cpp.
const char* build_commit();

// Three lines: "amdml 0.1.0", "commit <build_commit()>", and "knowledge base: ROCm X.Y,
// dated YYYY-MM-DD (format N, built in)": the newest ROCm release and the date of the
// knowledge the doctor uses -- the built-in tables, or the bundle `amdml update`
// installed when that is newer -- read when asked, so it cannot fall behind the data.
std::string version_text();

}  // namespace amdml::cli
