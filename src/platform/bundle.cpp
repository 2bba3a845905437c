// Checking and opening a downloaded knowledge bundle (see bundle.hpp).
#include "platform/bundle.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/fd.hpp"
#include "base/text.hpp"
#include "platform/fs.hpp"
#include "platform/process.hpp"

namespace amdml::platform {

namespace {

// A private directory under $TMPDIR (or /tmp), removed with everything in it when the
// object goes: the bundle, its signature and what tar unpacked never outlive a run.
class TempDir {
 public:
  static Result<TempDir> make() {
    const char* base = std::getenv("TMPDIR");
    std::string path = std::string(base && *base == '/' ? base : "/tmp") + "/amdml-update-XXXXXX";
    if (!::mkdtemp(path.data())) return make_error(path + ": " + errno_text(errno), errno);
    return TempDir(path);
  }
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    if (!path_.empty()) remove_all(path_, 0);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string p) : path_(std::move(p)) {}
  static void remove_all(const std::string& dir, int depth) {
    if (auto entries = list_real_dir(dir, dir); entries && depth < 8)
      for (const auto& e : *entries) {
        std::string p = dir + "/" + e.name;
        if (e.type == FileType::directory) remove_all(p, depth + 1);
        else ::unlink(p.c_str());
      }
    ::rmdir(dir.c_str());
  }
  std::string path_;
};

Status write_new(const std::string& path, const std::string& bytes) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return make_error(path + ": " + errno_text(errno), errno);
  AMDML_TRY_STATUS(write_fd(fd.get(), bytes, path));
  if (fd.close() != 0) return make_error(path + ": " + errno_text(errno), errno);
  return {};
}

// The first line of a child's stderr, for the one-line error.
std::string first_line(const std::string& s) {
  std::string line(text::trim(s.substr(0, s.find('\n'))));
  return text::one_line(line.substr(0, 200));
}

bool member_ok(const std::string& name) {
  if (name == "knowledge/" || name == "knowledge") return true;
  const std::string dir = "knowledge/", ext = ".toml";
  if (!name.starts_with(dir) || name.size() <= dir.size() + ext.size()) return false;
  if (name.compare(name.size() - ext.size(), ext.size(), ext) != 0) return false;
  const std::string stem = name.substr(dir.size(), name.size() - dir.size() - ext.size());
  return stem.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos;
}

}  // namespace

Status verify_signature(const std::string& keyring, const std::string& data, const std::string& sig) {
  if (keyring.empty() || keyring[0] != '/') return make_error("--keyring needs an absolute path, got '" + keyring + "'", EINVAL);
  struct stat st {};
  if (::stat(keyring.c_str(), &st) != 0) return make_error("keyring " + keyring + ": " + errno_text(errno), errno);
  if (!find_in_path("gpgv")) return make_error("gpgv is not installed (Debian/Ubuntu: gpgv, Fedora: gnupg2)", ENOENT);
  AMDML_TRY(auto dir, TempDir::make());
  AMDML_TRY_STATUS(write_new(dir.path() + "/bundle", data));
  AMDML_TRY_STATUS(write_new(dir.path() + "/bundle.sig", sig));
  RunOptions o;
  o.timeout = std::chrono::seconds(60);
  // --homedir: gpgv's own default keyring (~/.gnupg/trustedkeys.kbx) must not count.
  auto r = run_command({"gpgv", "--homedir", dir.path(), "--status-fd", "1", "--keyring", keyring, dir.path() + "/bundle.sig",
                        dir.path() + "/bundle"},
                       o);
  if (!r) return make_error("gpgv: " + r.error().message, r.error().code);
  const bool valid = r->exit_code == 0 && !r->timed_out && r->out.find("[GNUPG:] VALIDSIG ") != std::string::npos;
  if (valid) return {};
  std::string why = r->out.find("[GNUPG:] NO_PUBKEY") != std::string::npos ? "signed by a key not in " + keyring
                    : r->out.find("[GNUPG:] BADSIG") != std::string::npos   ? "BAD signature (the bundle was changed)"
                    : r->out.find("[GNUPG:] NODATA") != std::string::npos   ? "the .sig file holds no signature"
                                                                            : first_line(r->err);
  return make_error("signature check failed: " + why, EBADMSG);
}

Result<std::vector<RecipeFile>> unpack_bundle(const std::string& tar_gz) {
  AMDML_TRY(auto dir, TempDir::make());
  const std::string tarball = dir.path() + "/bundle.tar.gz", out = dir.path() + "/x";
  AMDML_TRY_STATUS(write_new(tarball, tar_gz));
  if (::mkdir(out.c_str(), 0700) != 0) return make_error(out + ": " + errno_text(errno), errno);
  RunOptions o;
  o.timeout = std::chrono::seconds(60);
  auto listing = run_command({"tar", "--list", "--gzip", "--file", tarball}, o);
  if (!listing) return make_error("tar: " + listing.error().message, listing.error().code);
  if (listing->exit_code != 0) return make_error("the bundle is not a readable tar.gz: " + first_line(listing->err), EINVAL);
  for (const auto line : text::split_lines(listing->out))
    if (std::string name(line); !name.empty() && !member_ok(name))
      return make_error("the bundle holds '" + text::one_line(name) + "'; only knowledge/*.toml belongs in one", EINVAL);
  auto unpacked = run_command({"tar", "--extract", "--gzip", "--file", tarball, "--directory", out, "--no-same-owner",
                               "--no-same-permissions", "--no-overwrite-dir"},
                              o);
  if (!unpacked) return make_error("tar: " + unpacked.error().message, unpacked.error().code);
  if (unpacked->exit_code != 0) return make_error("the bundle is not a readable tar.gz: " + first_line(unpacked->err), EINVAL);
  std::vector<RecipeFile> files;
  auto entries = list_real_dir(out + "/knowledge", "the bundle's knowledge/");
  if (!entries) return make_error("the bundle has no knowledge/ directory", EINVAL);
  for (const auto& e : *entries) {
    if (e.type != FileType::regular || !member_ok("knowledge/" + e.name))
      return make_error("the bundle's knowledge/" + text::one_line(e.name) + " is not a regular .toml file", EINVAL);
    AMDML_TRY(auto bytes, read_real_file(out + "/knowledge/" + e.name, "knowledge/" + e.name, 8 << 20));
    files.push_back({"knowledge/" + e.name, std::move(bytes)});
  }
  if (files.empty()) return make_error("the bundle holds no knowledge/*.toml", EINVAL);
  return files;  // list_real_dir sorts by name: the loader's order
}

}  // namespace amdml::platform
