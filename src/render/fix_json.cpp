// The JSON of `amdml fix`. A change is named by its kind and the SHA-256 of the bytes
// before and after it, so a script can check that the file it saw is the file the plan
// was made from; the diff is the one the text shows.
#include "render/fix_json.hpp"

#include <algorithm>

#include "base/sha256.hpp"
#include "formats/fix_params_json.hpp"
#include "render/fix_text.hpp"

namespace amdml::render {

namespace {

using nlohmann::json;

constexpr const char* kSchema = "amdml.fix/1";

json change_json(const FileChange& fc) {
  json c;
  c["path"] = fc.path;
  c["kind"] = fc.before ? "modify" : "create";
  c["before_sha256"] = fc.before ? json(sha256_hex(*fc.before)) : json(nullptr);
  c["after_sha256"] = sha256_hex(fc.after);
  c["diff"] = unified_diff(fc.path, fc.before, fc.after);
  c["why"] = fc.why;
  if (!fc.fetch_url.empty()) {  // fetched when applied: its bytes are not known yet
    c["after_sha256"] = nullptr;
    c["diff"] = "";
    c["fetch"] = {{"url", fc.fetch_url}, {"fingerprint", fc.fingerprint}};
  }
  return c;
}

// A directory the recipe moves aside (rocm-install's set-aside): a change of its own, so
// a recipe whose only pending work is a rename still lists what it changes.
json rename_json(const Command& c) {
  return {{"path", c.argv[c.argv.size() - 2]}, {"kind", "rename"}, {"to", c.argv.back()}, {"why", c.why}};
}

json command_json(const Command& c, std::size_t i) {
  // A recipe's commands are steps in order: the first runs, each later one after it.
  return {{"argv", c.argv}, {"role", to_string(i == 0 ? CommandRole::run : CommandRole::then)}, {"why", c.why}};
}

json ids_json(const std::vector<Finding>& findings) {
  json a = json::array();
  for (const auto& f : findings)
    if (std::find(a.begin(), a.end(), to_string(f.id)) == a.end()) a.push_back(to_string(f.id));
  return a;
}

// What names a recipe in a plan: id, title, the findings it resolves, its parameters.
json recipe_head(const RecipePlan& rp) {
  json r;
  r["id"] = rp.ref.recipe;
  r["title"] = rp.recipe ? json(rp.recipe->title) : json(nullptr);
  r["resolves"] = ids_json(rp.findings);
  r["params"] = formats::fix_params_json(rp.ref.params);
  return r;
}

json recipe_json(const RecipePlan& rp) {
  json r = recipe_head(rp);
  r["changes"] = json::array();
  for (const auto& fc : rp.files)
    if (fc.changes()) r["changes"].push_back(change_json(fc));
  for (const auto& c : rp.commands)
    if (c.rename && c.argv.size() >= 2) r["changes"].push_back(rename_json(c));
  r["commands"] = json::array();
  for (std::size_t i = 0; i < rp.commands.size(); ++i) r["commands"].push_back(command_json(rp.commands[i], i));
  r["follow_ups"] = json::array();
  for (std::size_t i = 0; i < rp.follow_ups.size(); ++i)
    r["follow_ups"].push_back({{"need", to_string(rp.follow_ups[i])}, {"text", rp.follow_up_text[i]}});
  r["notes"] = rp.notes;
  r["deferred"] = ids_json(rp.deferred);
  const Aftercare& a = rp.aftercare;
  r["needs_root"] = a.needs_root;
  r["needs_reboot"] = a.needs_reboot;
  r["needs_relogin"] = a.needs_relogin;
  r["needs_service_restart"] = a.needs_service_restart;
  r["verify"] = a.verify;
  return r;
}

json refused_json(const RecipePlan& rp) {
  json r = recipe_head(rp);
  r["error"] = rp.refused->message;
  // What the findings say to do by hand instead.
  json hand = json::array();
  for (const auto& f : rp.findings)
    for (const auto& c : f.commands) hand.push_back(c);
  r["commands"] = hand;
  return r;
}

json record_json(const CommandRecord& c) {
  json r{{"argv", c.argv}, {"ran", c.ran}, {"note", c.note}};
  r["exit_code"] = c.result && !c.result->timed_out ? json(c.result->exit_code) : json(nullptr);
  return r;
}

const char* status_name(VerifyStatus s) {
  switch (s) {
    case VerifyStatus::gone: return "gone";
    case VerifyStatus::after_reboot: return "after-reboot";
    case VerifyStatus::after_relogin: return "after-relogin";
    case VerifyStatus::next_run: return "next-run";
    case VerifyStatus::now: return "new";
    case VerifyStatus::left: return "left";
    case VerifyStatus::still: return "still";
    case VerifyStatus::after_commands: return "after-commands";
  }
  return "still";
}

json document(const std::string& mode, bool rooted) {
  return {{"schema", kSchema}, {"mode", mode}, {"rooted", rooted}};
}

// The recipes of a plan: those that change a file, and those refused.
void put_plan(json& doc, const FixPlan& plan) {
  doc["recipes"] = json::array();
  doc["refused"] = json::array();
  for (const auto& rp : plan.recipes) {
    if (rp.refused) doc["refused"].push_back(refused_json(rp));
    else if (rp.pending()) doc["recipes"].push_back(recipe_json(rp));
  }
}

}  // namespace

json fix_plan_json(const FixPlan& plan, bool rooted, const std::string& apply_command) {
  json doc = document("plan", rooted);
  put_plan(doc, plan);
  doc["apply_command"] = plan.pending() ? json(apply_command) : json(nullptr);
  return doc;
}

json fix_apply_json(const FixPlan& plan, bool rooted, const ApplyOutcome& out, const std::vector<VerifyLine>& verdicts,
                    const std::string& undo_command) {
  json doc = document("apply", rooted);
  put_plan(doc, plan);
  if (out.txn.empty()) {
    doc["outcome"] = nullptr;  // nothing to do: nothing was written
    return doc;
  }
  json o;
  o["ok"] = out.ok;
  o["txn"] = out.txn;
  o["written"] = out.written;
  o["commands"] = json::array();
  for (const auto& c : out.commands) o["commands"].push_back(record_json(c));
  o["failure"] = out.failure ? json(out.failure->message) : json(nullptr);
  o["rolled_back"] = out.rolled_back;
  o["rollback_errors"] = out.rollback_errors;
  o["undo_command"] = out.ok ? json(undo_command) : json(nullptr);
  o["verify"] = json::array();
  for (const auto& l : verdicts)
    o["verify"].push_back({{"id", to_string(l.id)}, {"status", status_name(l.status)}, {"title", l.title}});
  o["follow_ups"] = json::array();
  if (out.ok)
    for (const auto& [need, text] : applied_follow_ups(plan, out)) o["follow_ups"].push_back({{"need", to_string(need)}, {"text", text}});
  doc["outcome"] = o;
  return doc;
}

json fix_undo_json(const UndoOutcome& out, bool rooted) {
  json doc = document("undo", rooted);
  doc["txn"] = out.nothing ? json(nullptr) : json(out.txn);
  doc["message"] = out.nothing ? json(out.message) : json(nullptr);
  doc["changes"] = json::array();
  for (const auto& r : out.files) doc["changes"].push_back({{"path", r.path}, {"kind", r.kind}, {"note", r.note}});
  doc["commands"] = json::array();
  for (const auto& c : out.commands) doc["commands"].push_back(record_json(c));
  doc["skipped"] = out.skipped;
  return doc;
}

json fix_error_json(const std::string& mode, const std::string& message) {
  json doc = {{"schema", kSchema}, {"mode", mode}, {"error", message}};
  return doc;
}

}  // namespace amdml::render