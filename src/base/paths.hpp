// Absolute paths as component lists, and resolving one component by component the way
// the kernel does, over any tree a caller can describe (the rooted host, a snapshot).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace amdml::paths {

// An absolute path's components ("/a//b/" -> {"a", "b"}) and back ({} -> "/"). No
// "." or ".." handling: the callers walk components themselves.
std::vector<std::string> split_path(const std::string& p);
std::string join_path(const std::vector<std::string>& parts);

// The text before and after a path's last '/', as string operations (no file system,
// no trailing-slash stripping, unlike dirname(1)):
//   dirname("/a/b") == "/a"   dirname("/a") == "/"   dirname("/") == "/"
//   dirname("a") == "."       dirname("") == "."     dirname("/a/") == "/a"
//   basename("/a/b") == "b"   basename("a") == "a"   basename("/") == ""
//   basename("/a/") == ""     basename("") == ""
std::string dirname(const std::string& p);
std::string basename(const std::string& p);

// What one absolute path is, for resolve_path.
struct PathNode {
  enum class Kind { missing, directory, other, symlink } kind = Kind::missing;
  std::string target;  // a symlink's text
};
// Resolves PATH component by component as the kernel does: "." skipped, ".." clamped at
// "/", symlinks followed (relative to their directory; absolute from "/") at most
// max_hops times; with follow_last false a final symlink is the answer. lookup(p, more)
// says what the prefix p is (more: components follow it). nullopt when a component is
// missing, something other than a directory has more components, or the hops run out;
// why, when given, is then set to the errno the kernel gives for it (ENOENT, ENOTDIR,
// ELOOP).
std::optional<std::string> resolve_path(const std::string& path, bool follow_last, int max_hops,
                                        const std::function<PathNode(const std::string& p, bool more)>& lookup,
                                        int* why = nullptr);

}  // namespace amdml::paths
