// JUnit XML for CI systems (GitHub Actions reporters, GitLab's junit artifacts, Jenkins):
// one <testsuite> for the doctor's checks (a testcase per finding id) and one for the
// expectations, failures carrying the one-line reason as message and the finding's
// evidence and fix as text. No timestamps or durations: the same machine gives the
// same document.
#include <cstdint>

#include "render/render.hpp"
#include "base/utf8.hpp"
#include "render/format.hpp"

namespace amdml::render {

namespace {

constexpr const char* kReplacement = "\xEF\xBF\xBD";  // U+FFFD

struct Counts {
  int tests = 0, failures = 0, skipped = 0;
};

Counts counts(const CheckReport& check, const std::string& suite) {
  Counts c;
  for (const auto& k : check.cases) {
    if (k.suite != suite) continue;
    ++c.tests;
    if (k.status == CheckStatus::failed) ++c.failures;
    if (k.status == CheckStatus::skipped) ++c.skipped;
  }
  return c;
}

std::string attrs(const std::string& name, const Counts& c) {
  return "name=\"" + xml_escape(name) + "\" tests=\"" + std::to_string(c.tests) + "\" failures=\"" +
         std::to_string(c.failures) + "\" errors=\"0\" skipped=\"" + std::to_string(c.skipped) + "\"";
}

std::string testcase(const CheckCase& k, const std::string& classname) {
  std::string out = "    <testcase classname=\"" + classname + "\" name=\"" + xml_escape(k.name) + "\"";
  if (k.status == CheckStatus::passed && k.output.empty()) return out + "/>\n";
  out += ">\n";
  if (k.status == CheckStatus::failed)
    out += "      <failure type=\"" + std::string(k.suite == "doctor" ? "finding" : "expectation") + "\" message=\"" +
           xml_escape(k.message) + "\">" + xml_escape(k.output.empty() ? k.message : k.output) + "</failure>\n";
  else if (k.status == CheckStatus::skipped)
    out += "      <skipped message=\"" + xml_escape(k.message) + "\"/>\n";
  if (k.status != CheckStatus::failed && !k.output.empty())
    out += "      <system-out>" + xml_escape(k.output) + "</system-out>\n";
  return out + "    </testcase>\n";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    std::size_t n = utf8::decode(text, i, cp);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    bool allowed = cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp != 0xFFFE && cp != 0xFFFF);
    if (!allowed) out += kReplacement;
    else if (cp == '&') out += "&amp;";
    else if (cp == '<') out += "&lt;";
    else if (cp == '>') out += "&gt;";
    else if (cp == '"') out += "&quot;";
    else if (cp == '\'') out += "&apos;";
    else if (cp == '\r') out += "&#13;";  // survives attribute-value normalisation
    else out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string render_junit(const Report& report, const CheckReport& check) {
  Counts all{static_cast<int>(check.cases.size()), check.count(CheckStatus::failed), check.count(CheckStatus::skipped)};
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites " + attrs("amdml check", all) + ">\n";
  for (const char* suite : {"doctor", "expect", "image"}) {
    Counts c = counts(check, suite);
    if (c.tests == 0) continue;
    std::string classname = std::string("amdml.") + suite;
    out += "  <testsuite " + attrs(classname, c) + ">\n";
    for (const auto& k : check.cases)
      if (k.suite == suite) out += testcase(k, classname);
    if (std::string(suite) == "doctor") {
      TextStyle plain;
      plain.color = false;
      out += "    <system-out>" + xml_escape(render_text(report, plain)) + "</system-out>\n";
    }
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

std::string render_junit_error(const std::string& message) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  Counts one{1, 1, 0};
  out += "<testsuites " + attrs("amdml check", one) + ">\n";
  out += "  <testsuite " + attrs("amdml.doctor", one) + ">\n";
  out += "    <testcase classname=\"amdml.doctor\" name=\"amdml\">\n";
  out += "      <failure type=\"startup\" message=\"" + xml_escape(message) + "\">" + xml_escape(message) + "</failure>\n";
  out += "    </testcase>\n  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace amdml::render