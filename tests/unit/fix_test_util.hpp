// Helpers for the fix tests: fixture copies in temp dirs, tree snapshots to compare
// byte for byte, running the amdml binary, and a diagnosed session over a tree.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "fix/fix.hpp"
#include "formats/fix_params_json.hpp"
#include "formats/knowledge_toml.hpp"
#include "formats/recipe_toml.hpp"
#include "platform/recipes_dir.hpp"
#include "platform/host.hpp"
#include "probes/collect.hpp"
#include "render/fix_text.hpp"
#include "rules/rules.hpp"

namespace fixtest {

namespace fs = std::filesystem;

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// A fresh copy of tests/fixtures/<name> in a temp dir, removed with the object.
struct TempTree {
  fs::path dir;
  explicit TempTree(const std::string& fixture) {
    std::string tmpl = (fs::temp_directory_path() / "amdml-fix-XXXXXX").string();
    char* d = ::mkdtemp(tmpl.data());
    if (!d) throw std::runtime_error("mkdtemp failed");
    dir = d;
    ::chmod(dir.c_str(), 0755);
    // -R -P: symlinks stay symlinks (fixtures hold absolute ones into their own tree).
    // Nothing preserved: the copy belongs to whoever runs the test (root must own what
    // the fix writes into), whoever owns the checkout.
    std::string cmd = "cp -R -P '" + (fs::path(AMDML_FIXTURES_DIR) / fixture).string() + "/.' '" + dir.string() + "/'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("copying fixture " + fixture + " failed");
    git_modes();
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
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path operator/(const std::string& rel) const { return dir / rel; }
  std::string str() const { return dir.string(); }
};

// Every file, symlink and directory (with bytes and mode), except amdml's own state.
inline std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    // Lexically: fs::relative would resolve the symlinks the fixtures hold (loops too).
    std::string rel = it->path().lexically_relative(root).string();
    if (rel == "var" || rel == "var/lib" || rel.rfind("var/lib/amdml", 0) == 0) continue;
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    std::string meta = "mode=" + std::to_string(st.st_mode) + " uid=" + std::to_string(st.st_uid) + " gid=" + std::to_string(st.st_gid);
    if (it->is_symlink()) {
      // Never followed (fixtures hold loops and dangling links on purpose).
      it.disable_recursion_pending();
      out[rel] = "symlink->" + fs::read_symlink(it->path()).string();
    }
    else if (it->is_directory()) out[rel] = "dir " + meta;
    else out[rel] = meta + "\n" + read_file(it->path());
  }
  return out;
}

struct Run {
  int exit_code = -1;
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs the amdml binary with args (no shell quoting needed: args are simple words).
inline Run run_amdml(const std::string& args, const std::string& env = "") {
  static int n = 0;
  std::string base = (fs::temp_directory_path() / ("amdml-fix-run-" + std::to_string(::getpid()) + "-" + std::to_string(n++))).string();
  std::string cmd = env + " " + std::string(AMDML_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err </dev/null";
  int st = std::system(("sh -c '" + cmd + "'").c_str());
  Run r;
  if (WIFEXITED(st)) {
    r.exit_code = WEXITSTATUS(st);
    // sh reports a child killed by signal N as 128+N.
    if (r.exit_code > 128) r.signal = r.exit_code - 128;
  }
  r.out = read_file(base + ".out");
  r.err = read_file(base + ".err");
  fs::remove(base + ".out");
  fs::remove(base + ".err");
  return r;
}

inline void set_euid(const TempTree& t, int euid) {
  auto path = t / "amdml-host.json";
  auto doc = nlohmann::json::parse(read_file(path));
  doc["process"]["euid"] = euid;
  write_file(path, doc.dump(2));
}

// What `sudo amdml ...` looks like in a manifest: euid 0, SUDO_USER the person.
inline void become_root_via_sudo(const TempTree& t) {
  auto path = t / "amdml-host.json";
  auto doc = nlohmann::json::parse(read_file(path));
  if (doc["sudo_user"].is_null() || !doc.contains("sudo_user")) doc["sudo_user"] = doc["process"].value("user", "alice");
  doc["process"]["euid"] = 0;
  write_file(path, doc.dump(2));
}

// A diagnosed tree: host, knowledge, facts, findings, recipes.
struct Diagnosed {
  std::unique_ptr<amdml::Host> host;
  amdml::Knowledge kb;
  std::vector<amdml::Recipe> recipes;
  amdml::Facts facts;
  std::vector<amdml::Finding> findings;

  explicit Diagnosed(const std::string& root) {
    auto h = amdml::make_host(root);
    if (!h) throw std::runtime_error(h.error().message);
    host = std::move(*h);
    auto files = amdml::recipe_files("");
    kb = *amdml::load_knowledge(*files);
    auto r = amdml::load_recipes(*files);
    if (!r) throw std::runtime_error(r.error().message);
    recipes = *r;
    amdml::ProbeOptions po;
    po.runtime = false;
    facts = amdml::collect_facts(*host, kb, po);
    findings = amdml::diagnose(facts, kb);
  }
  bool has(const std::string& id) const {
    for (const auto& f : findings)
      if (to_string(f.id) == id) return true;
    return false;
  }
};

// Fix parameters from their JSON form (the report's fix.params), as a test spells them.
inline amdml::FixParams params_json(const nlohmann::json& j) {
  auto p = amdml::parse_fix_params(j);
  if (!p) throw std::runtime_error(p.error().message);
  return *p;
}

inline amdml::Finding literal_finding(const std::string& id, const std::string& recipe, const nlohmann::json& params) {
  amdml::Finding f;
  f.id = amdml::parse_finding_id(id).value();
  f.severity = amdml::Severity::warning;
  f.title = "literal " + id;
  f.fix = amdml::FixRef{recipe, params_json(params)};
  return f;
}

inline bool have_tool(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace fixtest
