// Fuzz target: snapshot redaction (formats/snapshot.hpp, Redactor). The input is an
// amdml-host.json; what it reads becomes a recording -- identity, uname, environment,
// devices, container, commands, recorded failures and facts -- with the input's bytes
// also as the content of a plain file and of a login environment file, as `amdml
// snapshot` would have recorded them. After redaction no kept variable has a secret
// name, no file keeps a secret shape, and the redacted recording's manifest is one the
// rooted host reads back: a snapshot is always replayable.
#include <nlohmann/json.hpp>

#include "formats/host_manifest.hpp"
#include "formats/secrets.hpp"
#include "formats/snapshot.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(amdml::fuzz::as_text(data, size));
  auto m = amdml::formats::parse_host_manifest(text);
  if (!m) return 0;
  amdml::formats::Recording r;
  r.identity = m->identity;
  r.uname = m->uname;
  r.env = m->env;
  r.devices_asked = m->devices.has_value();
  r.devices = m->devices;
  r.container_asked = m->container_recorded;
  r.container = m->container;
  r.commands = m->commands;
  r.errors = m->errors;
  r.facts = m->facts;
  for (const char* path : {"/var/log/amdml-fuzz.log", "/etc/environment"}) {
    amdml::formats::SnapshotNode n;
    n.kind = amdml::formats::SnapshotNode::Kind::file;
    n.content = text;
    r.tree[path] = n;
  }
  amdml::formats::RedactOptions options;
  options.host_names = {"fuzzhost"};
  auto red = amdml::formats::Redactor::learn(r, options);
  red.apply(r);
  for (const auto& k : red.summary().env_kept) FUZZ_CHECK(!amdml::formats::is_secret_name(k));
  for (const auto& [path, node] : r.tree)
    if (node.kind == amdml::formats::SnapshotNode::Kind::file) FUZZ_CHECK(amdml::formats::scrub_secrets(node.content) == node.content);
  const nlohmann::json manifest = amdml::formats::snapshot_manifest(r, amdml::formats::SnapshotMeta{});
  auto back = amdml::formats::parse_host_manifest(manifest.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  FUZZ_CHECK(back.ok());
  return 0;
}
