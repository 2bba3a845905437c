// Files and throw-away trees for tests: reading and writing whole files, TestTree (an
// empty --root directory, or a copy of a fixture machine the test may change), and a
// snapshot of a tree to compare byte for byte.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/host.hpp"
#include "support/fixtures.hpp"

namespace amdml::test {

namespace fs = std::filesystem;

// A whole file's bytes; empty when it cannot be read.
inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes a whole file, creating its parent directories.
inline void write_file(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// Copies tests/fixtures/<machine> into dest (made if missing). -R -P: symlinks stay
// symlinks (fixtures hold absolute ones into their own tree, loops, dangling ones).
// Nothing preserved: the copy belongs to whoever runs the test (root must own what the
// fix writes into), whoever owns the checkout.
inline void copy_fixture(const std::string& machine, const fs::path& dest) {
  fs::create_directories(dest);
  std::string cmd = "cp -R -P '" + fixture(machine) + "/.' '" + dest.string() + "/'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("copying fixture " + machine + " failed");
}

// A temp directory removed with the object: empty, or a fresh copy of a fixture
// machine. Paths inside it are given as the machine sees them ("/etc/group").
class TestTree {
 public:
  TestTree() {
    std::string tmpl = (fs::temp_directory_path() / "amdml-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    if (!made) throw std::runtime_error("mkdtemp failed");
    dir = made;
    ::chmod(dir.c_str(), 0755);
  }
  // A copy of tests/fixtures/<machine>.
  explicit TestTree(const std::string& machine) : TestTree() {
    copy_fixture(machine, dir);
    git_modes();
  }
  ~TestTree() {
    std::error_code ec;
    // Restore permissions a test removed, so cleanup can descend everywhere.
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (!it->is_symlink()) ::chmod(it->path().c_str(), it->is_directory() ? 0755 : 0644);
    fs::remove_all(dir, ec);
  }
  TestTree(const TestTree&) = delete;
  TestTree& operator=(const TestTree&) = delete;

  fs::path dir;

  std::string str() const { return dir.string(); }
  std::string root() const { return dir.string(); }
  const fs::path& path() const { return dir; }
  fs::path operator/(const std::string& rel) const { return dir / rel; }
  // The real path of a path inside the tree.
  std::string real(const std::string& inner) const { return str() + "/" + strip(inner); }

  void write(const std::string& inner, const std::string& text) const { write_file(real(inner), text); }
  void mkdir(const std::string& inner) const { fs::create_directories(real(inner)); }
  void link(const std::string& inner, const std::string& target) const {
    fs::path p = real(inner);
    fs::create_directories(p.parent_path());
    std::error_code ec;
    fs::remove(p, ec);
    fs::create_symlink(target, p);
  }
  void manifest(const std::string& json) const { write("amdml-host.json", json); }

  // A rooted host over the tree; null when the tree is no valid root.
  std::unique_ptr<platform::Host> host() const {
    auto h = platform::make_host(str());
    if (!h) return nullptr;
    return std::move(*h);
  }

  // Git keeps only the executable bit: the modes a checkout or a tarball has (0664 under
  // umask 002, 0644 under 022) say nothing, so every copy gets the same ones. The shadow
  // file gets its real mode.
  void git_modes() const {
    for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      bool exec = S_ISDIR(st.st_mode) || (st.st_mode & S_IXUSR);
      ::chmod(it->path().c_str(), exec ? 0755 : 0644);
    }
    if (fs::exists(dir / "etc/gshadow")) ::chmod((dir / "etc/gshadow").c_str(), 0640);
  }

 private:
  static std::string strip(const std::string& p) { return p.empty() || p[0] != '/' ? p : p.substr(1); }
};

// Every file, symlink and directory under root (with bytes and mode), except amdml's
// own state (var/lib/amdml): equal snapshots mean an untouched tree.
inline std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    // Lexically: fs::relative would resolve the symlinks the fixtures hold (loops too).
    std::string rel = it->path().lexically_relative(root).string();
    if (rel == "var" || rel == "var/lib" || rel.starts_with("var/lib/amdml")) continue;
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    std::string meta = "mode=" + std::to_string(st.st_mode) + " uid=" + std::to_string(st.st_uid) +
                       " gid=" + std::to_string(st.st_gid);
    if (it->is_symlink()) {
      // Never followed (fixtures hold loops and dangling links on purpose).
      it.disable_recursion_pending();
      out[rel] = "symlink->" + fs::read_symlink(it->path()).string();
    } else if (it->is_directory()) {
      out[rel] = "dir " + meta;
    } else {
      out[rel] = meta + "\n" + read_file(it->path());
    }
  }
  return out;
}

// Every name, link target and byte under dir, as one text to search.
inline std::string everything_under(const fs::path& dir) {
  std::string all;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    all += it->path().string() + "\n";
    if (it->is_symlink()) all += fs::read_symlink(it->path()).string() + "\n";
    else if (it->is_regular_file()) all += read_file(it->path()) + "\n";
  }
  return all;
}

// The tree's amdml-host.json says amdml runs with this effective uid.
inline void set_euid(const TestTree& t, int euid) {
  auto path = t / "amdml-host.json";
  auto doc = nlohmann::json::parse(read_file(path));
  doc["process"]["euid"] = euid;
  write_file(path, doc.dump(2));
}

// What `sudo amdml ...` looks like in a manifest: euid 0, SUDO_USER the person.
inline void become_root_via_sudo(const TestTree& t) {
  auto path = t / "amdml-host.json";
  auto doc = nlohmann::json::parse(read_file(path));
  if (doc["sudo_user"].is_null() || !doc.contains("sudo_user")) doc["sudo_user"] = doc["process"].value("user", "alice");
  doc["process"]["euid"] = 0;
  write_file(path, doc.dump(2));
}

inline bool running_as_root() { return ::geteuid() == 0; }

inline bool have_tool(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace amdml::test
