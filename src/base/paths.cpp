// Absolute-path helpers; see paths.hpp.
#include "base/paths.hpp"

#include <algorithm>
#include <cerrno>

namespace amdml::paths {

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < p.size()) {
    std::size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    if (j > i) parts.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

std::string join_path(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::string dirname(const std::string& p) {
  auto s = p.rfind('/');
  if (s == std::string::npos) return ".";
  return s == 0 ? "/" : p.substr(0, s);
}

std::string basename(const std::string& p) {
  auto s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::optional<std::string> resolve_path(const std::string& path, bool follow_last, int max_hops,
                                        const std::function<PathNode(const std::string& p, bool more)>& lookup,
                                        int* why) {
  auto fail = [why](int err) -> std::optional<std::string> {
    if (why) *why = err;
    return std::nullopt;
  };
  std::vector<std::string> todo = split_path(path);
  std::reverse(todo.begin(), todo.end());
  std::vector<std::string> done;
  int hops = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.back());
    todo.pop_back();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(c);
    const std::string p = join_path(done);
    const PathNode node = lookup(p, !todo.empty());
    if (node.kind == PathNode::Kind::missing) return fail(ENOENT);
    if (node.kind != PathNode::Kind::symlink) {
      if (!todo.empty() && node.kind != PathNode::Kind::directory) return fail(ENOTDIR);
      continue;
    }
    if (todo.empty() && !follow_last) return p;
    if (++hops > max_hops) return fail(ELOOP);
    done.pop_back();
    if (!node.target.empty() && node.target[0] == '/') done.clear();
    auto parts = split_path(node.target);
    for (auto i = parts.rbegin(); i != parts.rend(); ++i) todo.push_back(*i);
  }
  return join_path(done);
}

}  // namespace amdml::paths
