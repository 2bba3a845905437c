// The check gate for people and machines: a "Checks" section after the text report,
// and the "check" object the JSON document carries beside the doctor's keys.
#include "render/render.hpp"

namespace amdml::render {

std::string render_check_text(const CheckReport& check, const TextStyle& s) {
  std::string ok = paint(s, Color::green, s.unicode ? "✓" : "ok");
  std::string bad = paint(s, Color::red, s.unicode ? "✗" : "x");
  std::string out = "\n" + paint(s, Color::bold, "Checks") + "\n";
  int doctor_passed = 0, doctor_skipped = 0;
  for (const auto& c : check.cases) {
    if (c.suite != "doctor") continue;
    if (c.status == CheckStatus::passed) ++doctor_passed;
    else if (c.status == CheckStatus::skipped) ++doctor_skipped;
    else out += "  " + bad + " " + line_text(c.name + ": " + c.message) + "\n";
  }
  out += "  " + ok + " " + std::to_string(doctor_passed) + " doctor checks passed";
  if (doctor_skipped) out += ", " + std::to_string(doctor_skipped) + " skipped";
  out += "\n";
  for (const auto& c : check.cases) {
    if (c.suite == "doctor") continue;
    if (c.status == CheckStatus::failed) out += "  " + bad + " " + line_text(c.name + ": " + c.message) + "\n";
    else if (c.status == CheckStatus::skipped) out += "  - " + line_text(c.name + ": skipped, " + c.message) + "\n";
    else out += "  " + ok + " " + line_text(c.name) + "\n";
  }
  int failed = check.count(CheckStatus::failed);
  out += "\n";
  if (failed == 0)
    out += paint(s, Color::green, "check: passed") + " (" + std::to_string(check.count(CheckStatus::passed)) + " passed";
  else
    out += paint(s, Color::red, "check: FAILED") + " (" + std::to_string(failed) + " failed, " +
           std::to_string(check.count(CheckStatus::passed)) + " passed";
  if (int sk = check.count(CheckStatus::skipped)) out += ", " + std::to_string(sk) + " skipped";
  out += ")\n";
  return out;
}

nlohmann::json check_json(const CheckReport& check) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : check.cases) {
    cases.push_back({{"suite", c.suite},
                     {"name", c.name},
                     {"status", to_string(c.status)},
                     {"message", c.message.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.message)},
                     {"output", c.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.output)}});
  }
  return {{"passed", check.passed()},
          {"counts",
           {{"passed", check.count(CheckStatus::passed)},
            {"failed", check.count(CheckStatus::failed)},
            {"skipped", check.count(CheckStatus::skipped)}}},
          {"cases", cases}};
}

}  // namespace amdml::render