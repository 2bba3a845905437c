// journal.json's codec; see journal.hpp.
#include "formats/journal.hpp"

#include <cstdint>
#include <functional>

#include "base/base64.hpp"
#include "base/utf8.hpp"
#include "formats/json.hpp"

namespace amdml::formats {

using nlohmann::json;

namespace {

// The one walk over a value: `leaf` answers for the values it rewrites, arrays and
// objects are rebuilt around its answers, everything else is kept (request parameters).
json map_values(const json& j, const std::function<std::optional<json>(const json&)>& leaf) {
  if (auto r = leaf(j)) return *r;
  if (j.is_array()) {
    json out = json::array();
    for (const auto& e : j) out.push_back(map_values(e, leaf));
    return out;
  }
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : j.items()) out[k] = map_values(v, leaf);
    return out;
  }
  return j;
}

json encode_strings(const json& j) {
  return map_values(j, [](const json& v) -> std::optional<json> {
    if (v.is_string()) return bytes_json(v.get<std::string>());
    return std::nullopt;
  });
}

json decode_strings(const json& j) {
  return map_values(j, [](const json& v) -> std::optional<json> {
    if (v.is_string()) return std::nullopt;
    if (auto b = json_bytes(v)) return json(*b);
    return std::nullopt;
  });
}

// A file name inside the transaction directory ("3.before"), never a path.
bool is_copy_name(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos && s.find('\0') == std::string::npos;
}

// Reading: each helper names the field it fails on.
struct Reader {
  const json& obj;
  std::string at;  // "changes[1]"

  Error bad(const std::string& key, const std::string& what) const {
    return make_error((at.empty() ? "" : at + ".") + key + " " + what);
  }
  bool has(const char* key) const { return obj.contains(key) && !obj[key].is_null(); }
  Result<std::string> bytes(const char* key, bool required = false) const {
    if (!has(key)) {
      if (required) return bad(key, "is missing");
      return std::string();
    }
    auto b = json_bytes(obj[key]);
    if (!b) return bad(key, "is not a string");
    return *b;
  }
  Result<std::string> text(const char* key, bool required = false) const {
    if (!has(key)) {
      if (required) return bad(key, "is missing");
      return std::string();
    }
    if (!obj[key].is_string()) return bad(key, "is not a string");
    return obj[key].get<std::string>();
  }
  Result<bool> flag(const char* key, bool dflt = false) const {
    if (!has(key)) return dflt;
    if (!obj[key].is_boolean()) return bad(key, "is not true or false");
    return obj[key].get<bool>();
  }
  Result<std::optional<std::uint32_t>> u32(const char* key) const {
    if (!has(key)) return std::optional<std::uint32_t>();
    if (!obj[key].is_number_unsigned() || obj[key].get<std::uint64_t>() > 0xffffffffu) return bad(key, "is not a number");
    return std::optional<std::uint32_t>(obj[key].get<std::uint32_t>());
  }
  Result<std::optional<std::int64_t>> integer(const char* key) const {
    if (!has(key)) return std::optional<std::int64_t>();
    if (!obj[key].is_number_integer()) return bad(key, "is not a number");
    return std::optional<std::int64_t>(obj[key].get<std::int64_t>());
  }
  // A list of byte strings; `what` is the element's noun ("a path", "a word").
  Result<std::optional<std::vector<std::string>>> words(const char* key, const char* what) const {
    if (!has(key)) return std::optional<std::vector<std::string>>();
    if (!obj[key].is_array()) return bad(key, "is not a list");
    std::vector<std::string> out;
    for (const auto& w : obj[key]) {
      auto b = json_bytes(w);
      if (!b) return bad(key, std::string("holds something that is not ") + what);
      out.push_back(std::move(*b));
    }
    return std::optional<std::vector<std::string>>(std::move(out));
  }
};

template <class E, std::size_t N>
std::optional<E> enum_of(const std::string& s, const E (&all)[N]) {
  for (E e : all)
    if (s == to_string(e)) return e;
  return std::nullopt;
}

constexpr TxnState kTxnStates[] = {TxnState::applying, TxnState::applied, TxnState::rolled_back,
                                   TxnState::rollback_incomplete, TxnState::undone, TxnState::partly_undone};
constexpr ChangeState kChangeStates[] = {ChangeState::pending, ChangeState::written, ChangeState::restored,
                                         ChangeState::drifted};
constexpr CommandState kCommandStates[] = {CommandState::pending, CommandState::running, CommandState::ran,
                                           CommandState::failed, CommandState::recorded};

Result<Change> read_change(const json& j, const std::string& at) {
  if (!j.is_object()) return make_error(at + " is not an object");
  Reader r{j, at};
  Change c;
  auto path = r.bytes("path", true);
  if (!path || path->empty()) return r.bad("path", "is not a path");
  c.path = *path;
  AMDML_TRY(c.recipe, r.text("recipe"));
  if (!j.contains("existed") || !j["existed"].is_boolean()) return r.bad("existed", "is not true or false");
  c.existed = j["existed"].get<bool>();
  AMDML_TRY(c.after, r.text("after"));
  if (!is_copy_name(c.after)) return r.bad("after", "is not a file name");
  if (c.existed) {
    AMDML_TRY(c.before, r.text("before"));
    if (!is_copy_name(c.before)) return r.bad("before", "is not a file name");
  }
  AMDML_TRY(c.mode, r.u32("mode"));
  AMDML_TRY(c.uid, r.u32("uid"));
  AMDML_TRY(c.gid, r.u32("gid"));
  AMDML_TRY(auto state, r.text("state"));
  if (state.empty()) state = "written";  // format 1 journals before change states
  auto s = enum_of(state, kChangeStates);
  if (!s) return r.bad("state", "is not a change state");
  c.state = *s;
  AMDML_TRY(auto dirs, r.words("created_dirs", "a path"));
  if (dirs) c.created_dirs = std::move(*dirs);
  return c;
}

Result<CommandRecord> read_command(const json& j, const std::string& at) {
  if (!j.is_object() || !j.contains("argv") || !j["argv"].is_array()) return make_error(at + " has no argv");
  Reader r{j, at};
  CommandRecord c;
  AMDML_TRY(auto argv, r.words("argv", "a word"));
  c.argv = std::move(*argv);
  AMDML_TRY(c.recipe, r.text("recipe"));
  AMDML_TRY(c.rename, r.flag("rename"));
  AMDML_TRY(c.rollback, r.flag("rollback"));
  AMDML_TRY(c.reverted, r.flag("reverted"));
  AMDML_TRY(c.undo, r.words("undo", "a word"));
  AMDML_TRY(c.packages_before, r.words("packages_before", "a package name"));
  AMDML_TRY(c.resumed_from, r.text("resumed_from"));
  AMDML_TRY(c.run_by, r.text("run_by"));
  AMDML_TRY(c.note, r.bytes("note"));
  AMDML_TRY(c.out, r.bytes("stdout"));
  AMDML_TRY(c.err, r.bytes("stderr"));
  AMDML_TRY(auto code, r.integer("exit_code"));
  if (code) c.exit_code = static_cast<int>(*code);
  AMDML_TRY(auto sig, r.integer("signal"));
  c.signal = static_cast<int>(sig.value_or(0));
  AMDML_TRY(c.timed_out, r.flag("timed_out"));
  AMDML_TRY(auto timeout, r.integer("timeout_ms"));
  c.timeout_ms = timeout.value_or(0);
  AMDML_TRY(auto state, r.text("state"));
  AMDML_TRY(bool ran, r.flag("ran"));
  if (state.empty()) {
    // Formats 1 and 2 recorded a command once it had run ("ran") or was recorded only.
    bool ok = c.exit_code && *c.exit_code == 0 && !c.timed_out && c.signal == 0;
    c.state = !ran ? CommandState::recorded : ok ? CommandState::ran : CommandState::failed;
  } else {
    auto s = enum_of(state, kCommandStates);
    if (!s) return r.bad("state", "is not a command state");
    c.state = *s;
  }
  return c;
}

json words_json(const std::vector<std::string>& words) {
  json out = json::array();
  for (const auto& w : words) out.push_back(bytes_json(w));
  return out;
}

json change_json(const Change& c) {
  json j = {{"path", bytes_json(c.path)}, {"recipe", c.recipe}, {"existed", c.existed}, {"after", c.after},
            {"state", to_string(c.state)}, {"created_dirs", words_json(c.created_dirs)}};
  if (c.existed) j["before"] = c.before;
  if (c.mode) j["mode"] = *c.mode;
  if (c.uid) j["uid"] = *c.uid;
  if (c.gid) j["gid"] = *c.gid;
  return j;
}

json command_json(const CommandRecord& c) {
  json j = {{"argv", words_json(c.argv)}, {"state", to_string(c.state)}, {"ran", c.ran()}, {"note", bytes_json(c.note)}};
  if (!c.recipe.empty()) j["recipe"] = c.recipe;
  if (c.rename) j["rename"] = true;
  if (c.rollback) j["rollback"] = true;
  if (c.reverted) j["reverted"] = true;
  if (c.undo) j["undo"] = words_json(*c.undo);
  if (c.packages_before) j["packages_before"] = words_json(*c.packages_before);
  if (!c.resumed_from.empty()) j["resumed_from"] = c.resumed_from;
  if (!c.run_by.empty()) j["run_by"] = c.run_by;
  if (c.timeout_ms) j["timeout_ms"] = c.timeout_ms;
  if (c.exit_code) {
    j["exit_code"] = *c.exit_code;
    j["timed_out"] = c.timed_out;
    j["signal"] = c.signal;
    j["stdout"] = bytes_json(c.out);
    j["stderr"] = bytes_json(c.err);
  }
  return j;
}

Result<std::vector<CommandRecord>> read_commands(const json& doc, const char* key) {
  std::vector<CommandRecord> out;
  if (!doc.contains(key) || doc[key].is_null()) return out;
  if (!doc[key].is_array()) return make_error(std::string(key) + " is not a list");
  std::size_t i = 0;
  for (const auto& c : doc[key]) {
    AMDML_TRY(auto rec, read_command(c, std::string(key) + "[" + std::to_string(i++) + "]"));
    out.push_back(std::move(rec));
  }
  return out;
}

Status read_requests(const json& doc, Transaction& t) {
  if (!doc.contains("requests")) return {};  // format 1
  if (!doc["requests"].is_array()) return make_error("requests is not a list");
  t.requests.emplace();
  for (const auto& r : doc["requests"]) {
    if (!r.is_object() || !r.contains("recipe") || !r["recipe"].is_string())
      return make_error("requests holds something that is not a request");
    Request q;
    q.recipe = r["recipe"].get<std::string>();
    if (r.contains("params")) q.params = decode_strings(r["params"]);
    t.requests->push_back(std::move(q));
  }
  return {};
}

Result<Transaction> read_document(const json& doc) {
  if (!doc.is_object()) return make_error("not a JSON object");
  Reader r{doc, ""};
  Transaction t;
  if (doc.contains("format")) {
    if (!doc["format"].is_number_integer() || doc["format"].get<std::int64_t>() < 1 ||
        doc["format"].get<std::int64_t>() > kJournalFormat)
      return make_error("format " + doc["format"].dump() + " is not one this amdml knows");
    t.format = doc["format"].get<int>();
  } else {
    t.format = 1;
  }
  if (!doc.contains("state") || !doc["state"].is_string()) return make_error("no state");
  auto st = enum_of(doc["state"].get<std::string>(), kTxnStates);
  if (!st) return make_error("state " + doc["state"].dump() + " is not a transaction state");
  t.state = *st;
  if (!doc.contains("changes") || !doc["changes"].is_array()) return make_error("no changes list");
  std::size_t i = 0;
  for (const auto& ch : doc["changes"]) {
    AMDML_TRY(auto c, read_change(ch, "changes[" + std::to_string(i++) + "]"));
    t.changes.push_back(std::move(c));
  }
  AMDML_TRY(t.commands, read_commands(doc, "commands"));
  AMDML_TRY(t.undo_commands, read_commands(doc, "undo_commands"));
  AMDML_TRY_STATUS(read_requests(doc, t));
  AMDML_TRY(t.id, r.text("id"));
  AMDML_TRY(t.created, r.text("created"));
  AMDML_TRY(t.finished, r.text("finished"));
  AMDML_TRY(t.undone, r.text("undone"));
  AMDML_TRY(t.root, r.bytes("root"));
  AMDML_TRY(t.failure, r.bytes("failure"));
  AMDML_TRY(t.resumed_by, r.text("resumed_by"));
  if (doc.contains("recipes") && doc["recipes"].is_array())
    for (const auto& x : doc["recipes"])
      if (x.is_string()) t.recipes.push_back(x.get<std::string>());
  AMDML_TRY(auto rb, r.words("rollback_errors", "a message"));
  if (rb) t.rollback_errors = std::move(*rb);
  AMDML_TRY(auto ue, r.words("undo_errors", "a message"));
  if (ue) t.undo_errors = std::move(*ue);
  return t;
}

}  // namespace

const char* to_string(TxnState s) {
  switch (s) {
    case TxnState::applying: return "applying";
    case TxnState::applied: return "applied";
    case TxnState::rolled_back: return "rolled-back";
    case TxnState::rollback_incomplete: return "rollback-incomplete";
    case TxnState::undone: return "undone";
    case TxnState::partly_undone: return "partly-undone";
  }
  return "?";
}

const char* to_string(ChangeState s) {
  switch (s) {
    case ChangeState::pending: return "pending";
    case ChangeState::written: return "written";
    case ChangeState::restored: return "restored";
    case ChangeState::drifted: return "drifted";
  }
  return "?";
}

const char* to_string(CommandState s) {
  switch (s) {
    case CommandState::pending: return "pending";
    case CommandState::running: return "running";
    case CommandState::ran: return "ran";
    case CommandState::failed: return "failed";
    case CommandState::recorded: return "recorded";
  }
  return "?";
}

json bytes_json(const std::string& bytes) {
  if (utf8::valid(bytes)) return bytes;
  return json{{"base64", base64::encode(bytes)}};
}

std::optional<std::string> json_bytes(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.size() == 1 && j.contains("base64") && j["base64"].is_string())
    return base64::decode(j["base64"].get<std::string>());
  return std::nullopt;
}

Result<Transaction> read_journal(std::string_view text) {
  auto doc = parse_json(text);
  if (!doc) return make_error("not JSON: " + doc.error().message);
  return read_document(*doc);
}

std::string write_journal(const Transaction& t) {
  json doc = {{"format", kJournalFormat}, {"id", t.id}, {"created", t.created}, {"root", bytes_json(t.root)},
              {"state", to_string(t.state)}, {"recipes", t.recipes}};
  if (t.requests) {
    doc["requests"] = json::array();
    for (const auto& q : *t.requests) doc["requests"].push_back({{"recipe", q.recipe}, {"params", encode_strings(q.params)}});
  }
  doc["changes"] = json::array();
  for (const auto& c : t.changes) doc["changes"].push_back(change_json(c));
  doc["commands"] = json::array();
  for (const auto& c : t.commands) doc["commands"].push_back(command_json(c));
  if (!t.undo_commands.empty()) {
    doc["undo_commands"] = json::array();
    for (const auto& c : t.undo_commands) doc["undo_commands"].push_back(command_json(c));
  }
  if (!t.finished.empty()) doc["finished"] = t.finished;
  if (!t.undone.empty()) doc["undone"] = t.undone;
  if (!t.failure.empty()) doc["failure"] = bytes_json(t.failure);
  if (!t.rollback_errors.empty()) doc["rollback_errors"] = words_json(t.rollback_errors);
  if (!t.undo_errors.empty()) doc["undo_errors"] = words_json(t.undo_errors);
  if (!t.resumed_by.empty()) doc["resumed_by"] = t.resumed_by;
  // Every string is valid UTF-8 by now (bytes_json); `replace` only guards ids and recipe
  // names, which amdml makes itself.
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace amdml::formats
