// amdml update: the knowledge bundle pipeline -- download bundle and signature, verify
// with gpgv, unpack, validate with the knowledge codec, install into the store and
// switch `current` (platform/knowledge_store.hpp). Every step before the switch writes
// nothing to the store; any failure is one line on stderr and exit 1, with the
// knowledge in use unchanged. The only command besides `fix --apply` that uses the
// network, and only here, on request.
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "base/text.hpp"
#include "engine/pipeline.hpp"
#include "formats/knowledge_bin.hpp"
#include "formats/knowledge_toml.hpp"
#include "formats/update_conf.hpp"
#include "platform/bundle.hpp"
#include "platform/embedded.hpp"
#include "platform/fetch.hpp"
#include "platform/knowledge_store.hpp"
#include "platform/safe_tree.hpp"
#include "platform/terminal.hpp"
#include "render/update.hpp"

#ifndef AMDML_UPDATE_URL
#define AMDML_UPDATE_URL ""
#endif
#ifndef AMDML_UPDATE_KEYRING
#define AMDML_UPDATE_KEYRING "/usr/share/amdml/amdml-knowledge.gpg"
#endif

namespace amdml::engine {

namespace {

constexpr std::size_t kBundleLimit = 16 << 20;  // today's knowledge is ~100 KiB packed
constexpr std::size_t kSigLimit = 64 << 10;

struct UpdateFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The crash tests' kill points (AMDML_TEST_KILL_AT_STEP=N kills at the Nth), numbered
// in the order the run reaches them.
void kill_point() {
  static int step = 0;
  platform::test_kill_point(++step);
}

template <class T>
T need(Result<T> r, const std::string& what = "") {
  if (!r) throw UpdateFailed(what + r.error().message);
  return std::move(*r);
}

// --url, then /etc/amdml/update.conf (inside --root), then the build's default.
std::pair<std::string, std::string> source(const platform::Host& host, const UpdateOptions& o) {
  formats::UpdateConf conf;
  auto text = host.read_file("/etc/amdml/update.conf", 64 << 10);
  if (text) conf = need(formats::parse_update_conf(*text, "/etc/amdml/update.conf"));
  else if (text.error().code != ENOENT) throw UpdateFailed(text.error().message);
  std::string url = !o.url.empty() ? o.url : !conf.url.empty() ? conf.url : AMDML_UPDATE_URL;
  std::string keyring = !o.keyring.empty() ? o.keyring : !conf.keyring.empty() ? conf.keyring : AMDML_UPDATE_KEYRING;
  if (url.empty())
    throw UsageError("no update URL: pass --url URL or set url in /etc/amdml/update.conf (this build has no default)");
  return {url, keyring};
}

// The knowledge the doctor would use now: the installed bundle when newer than the
// built-in tables (as open_knowledge decides), else those.
std::pair<std::string, std::string> in_use(const platform::Host& host) {
  std::string date = platform::builtin_knowledge_meta().date;
  if (auto installed = platform::read_installed_knowledge(host); installed && *installed && (*installed)->meta.date > date)
    return {(*installed)->meta.date, "installed"};
  return {date, "built-in"};
}

// Download, verify, unpack and validate: the bundle's files and their knowledge.
std::pair<std::vector<RecipeFile>, Knowledge> fetch_bundle(const std::string& url, const std::string& keyring) {
  std::string bundle = stage("download", [&] { return need(platform::download(url, kBundleLimit)); });
  std::string sig = stage("download", [&] { return need(platform::download(url + ".sig", kSigLimit)); });
  kill_point();
  stage("verify", [&] {
    if (auto s = platform::verify_signature(keyring, bundle, sig); !s) throw UpdateFailed(url + ": " + s.error().message);
  });
  kill_point();
  auto files = stage("unpack", [&] { return need(platform::unpack_bundle(bundle), url + ": "); });
  Knowledge kb = stage("validate", [&] { return need(formats::load_knowledge(files), "the bundle does not validate: "); });
  if (kb.meta.format == 0) throw UpdateFailed("the bundle has no knowledge/meta.toml (format and date); refusing it");
  kill_point();
  return {std::move(files), std::move(kb)};
}

int rollback(const Session& s, const GlobalOptions& g) {
  platform::SafeTree tree(s.host->root());
  auto before = in_use(*s.host);
  auto state = need(platform::rollback_bundle(tree), "rollback: ");
  render::UpdateOutcome out{render::UpdateOutcome::Kind::rolled_back, state.current, before.first, before.second, "", g.root, ""};
  emit_text("", render::render_update_text(out));
  return kExitOk;
}

int run_update(const GlobalOptions& g, const UpdateOptions& o, const Session& s) {
  if (o.rollback) return rollback(s, g);
  const auto where = source(*s.host, o);
  const std::string& url = where.first;
  const auto fetched = fetch_bundle(url, where.second);
  const std::vector<RecipeFile>& files = fetched.first;
  const Knowledge& kb = fetched.second;
  const auto [date, from] = in_use(*s.host);
  std::string args = o.url.empty() ? "" : " --url " + text::shell_word(o.url);
  if (!o.keyring.empty()) args += " --keyring " + text::shell_word(o.keyring);
  render::UpdateOutcome out{render::UpdateOutcome::Kind::up_to_date, kb.meta.date, date, from, url, g.root, args};
  if (kb.meta.date > date) {
    out.kind = o.check ? render::UpdateOutcome::Kind::available : render::UpdateOutcome::Kind::installed;
    if (!o.check) {
      platform::SafeTree tree(s.host->root());
      stage("install", [&] {
        if (auto st = platform::install_bundle(tree, kb.meta.date, files, formats::encode_knowledge_bin(kb), kill_point); !st)
          throw UpdateFailed("installing " + kb.meta.date + ": " + st.error().message);
      });
    }
  }
  emit_text("", render::render_update_text(out));
  return kExitOk;
}

}  // namespace

int update(const GlobalOptions& g, const UpdateOptions& o) {
  if (!g.recipes.empty()) throw UsageError("amdml update installs knowledge; --recipes DIR overrides it and cannot be combined");
  if (o.check && o.rollback) throw UsageError("--check and --rollback cannot be combined");
  Session s;
  stage("host", [&] {
    std::string root = g.root;
    if (root.empty())
      if (auto env = platform::process_env("AMDML_ROOT")) root = *env;
    auto host = platform::make_host(root.empty() ? "/" : root);
    if (!host) throw UsageError(host.error().message);
    s.host = std::move(*host);
  });
  // Live, the store is /var/lib/amdml: root's. Under --root the tree is the caller's.
  if (s.host->live() && !o.check) {
    auto id = s.host->identity();
    if (!id.euid || *id.euid != 0) {
      std::string cmd = std::string("amdml update") + (o.rollback ? " --rollback" : "");
      return need_root_line(cmd, "sudo " + cmd);
    }
  }
  try {
    return run_update(g, o, s);
  } catch (const UpdateFailed& e) {
    error_line(std::string("update failed, the knowledge in use is unchanged: ") + e.what());
    return kExitFindings;
  }
}

}  // namespace amdml::engine
