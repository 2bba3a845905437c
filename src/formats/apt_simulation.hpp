// apt-get's simulation (`apt-get -s remove ...`): what apt would do, one action a line,
// after its progress and summary text. apt-pkg's pkgSimulate (apt-pkg/algorithms.cc)
// writes an action as "Inst", "Conf", "Remv" or "Purg", a blank, then the package --
// "NAME" for the native architecture, "NAME:ARCH" for another one -- then " [VERSION]"
// for an installed package and, when the action breaks packages, " [a:amd64 b:amd64 ]":
//   Remv libgtest-dev [1.12.1-0.2]
//   Remv binutils [2.40-2] [lintian:amd64 gcc-12:amd64 ]
//   Remv libhsa-runtime64-1:i386 [5.7.1-2build1]
// fix's rocm-install plan reads which packages a removal takes with it, so that the plan
// names them and --undo installs them all again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace amdml::formats {

// The packages the simulation removes ("Remv") or purges ("Purg"), by name without the
// architecture qualifier, each once, in apt's order. A line whose package is not a Debian
// package name (policy 5.6.1: lower-case letters, digits, + - ., two or more, starting
// alphanumeric) with an optional ":ARCH" is not an action and is left out, so nothing
// read here can become an option on apt-get's command line.
std::vector<std::string> apt_simulated_removals(std::string_view out);

// A Debian package name (policy 5.6.1).
bool debian_package_name(std::string_view name);

}  // namespace amdml::formats
