// The one secret policy of amdml: which names hold credentials, which values look like
// one, and the scrub that cuts every secret shape out of a text. The environment probe
// (which variables doctor keeps), the snapshot redactor (environment, files, command
// output, recorded facts) and `amdml report` (its finished text) all ask these three
// functions, so a shape added here is dropped everywhere. docs/snapshot.md lists the
// shapes exactly as tests/unit/test_formats_redact.cpp checks them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace amdml::formats {

// What a cut secret becomes.
inline constexpr const char* kRedacted = "REDACTED";

// Names (environment variables, NAME=value and NAME: value keys, --flags, JSON keys)
// that hold credentials: one of the words of the name, split at anything but letters
// and digits and compared case-blind, ends in PASS, PASSWD, PASSWORD, PASSPHRASE,
// SECRET, TOKEN, KEY, CREDENTIAL, AUTH, COOKIE or PWD, is one of their plurals, holds
// PASSWORD, PASSWD, SECRET or CREDENTIAL anywhere, or starts with AUTH. Not secret: the
// words BYPASS and COMPASS, AUTHOR(S) and AUTHORITY, the variables PWD and OLDPWD, and
// words that only start with TOKEN or KEY (TOKENIZERS_PARALLELISM, KEYBOARD).
bool is_secret_name(std::string_view name);

// A JSON member name (or quoted NAME) that holds a secret: is_secret_name, except the
// name "key" alone, which names something ({"key": "index", "value": "-2"}, a modprobe
// option in doctor's own facts).
bool is_secret_member(std::string_view name);

// Values that are a credential whatever their name: well-known token prefixes (hf_,
// ghp_, github_pat_, glpat-, sk-, xox?-, AKIA, AIza, JWTs), URLs with a password, and
// long random-looking strings.
bool looks_like_secret(const std::string& value);

// `text` with every secret shape replaced by REDACTED (docs/snapshot.md has the list):
// URL user info, Authorization values, Bearer/Basic/token credentials, the values of
// NAME=value, NAME: value and --flag value whose name is secret, and token shapes.
// What surrounds a secret is kept, so a line, a unit file, a JSON document stays what
// it was; scrubbing a scrubbed text changes nothing. `count`, when given, is increased
// by the number of secrets cut.
std::string scrub_secrets(const std::string& text, int* count = nullptr);

// Whether a UUID (8-4-4-4-12 hex digits, not inside a longer run of hex) starts at s[i]:
// a long value that is one is an id, not a secret, and redaction renames it.
bool uuid_at(std::string_view s, std::size_t i);

}  // namespace amdml::formats