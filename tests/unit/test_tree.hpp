// TestTree: a throw-away --root directory for one test, removed when the test ends.
// Tests write the few files, links and manifests they need into it, so each case
// shows exactly the machine state it is about.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "platform/host.hpp"

namespace amdml::test {

class TestTree {
 public:
  TestTree() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "amdml-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    if (!made) std::abort();
    root_ = made;
  }
  ~TestTree() {
    std::error_code ec;
    // Restore permissions a test removed, so cleanup can descend everywhere.
    for (auto it = std::filesystem::recursive_directory_iterator(root_, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (!it->is_symlink()) ::chmod(it->path().c_str(), it->is_directory() ? 0755 : 0644);
    std::filesystem::remove_all(root_, ec);
  }
  TestTree(const TestTree&) = delete;
  TestTree& operator=(const TestTree&) = delete;

  const std::string& root() const { return root_; }
  std::string real(const std::string& inner) const { return root_ + "/" + strip(inner); }

  void write(const std::string& inner, const std::string& text) const {
    auto p = std::filesystem::path(real(inner));
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  void mkdir(const std::string& inner) const { std::filesystem::create_directories(real(inner)); }
  void link(const std::string& inner, const std::string& target) const {
    auto p = std::filesystem::path(real(inner));
    std::filesystem::create_directories(p.parent_path());
    std::error_code ec;
    std::filesystem::remove(p, ec);
    std::filesystem::create_symlink(target, p);
  }
  void manifest(const std::string& json) const { write("amdml-host.json", json); }

  std::unique_ptr<Host> host() const {
    auto h = make_host(root_);
    if (!h) return nullptr;
    return std::move(*h);
  }

 private:
  static std::string strip(const std::string& p) { return p.empty() || p[0] != '/' ? p : p.substr(1); }
  std::string root_;
};

inline bool running_as_root() { return ::geteuid() == 0; }

}  // namespace amdml::test
