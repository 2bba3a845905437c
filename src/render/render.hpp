// Renderers: Report -> text for people, JSON for machines, Markdown for issues.
// They build strings; src/render/output.cpp is the only code that writes to stdout.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "amdml/check.hpp"
#include "amdml/report.hpp"

namespace amdml::render {

struct TextStyle {
  bool color = false;
  bool unicode = true;  // ✗ ! i marks and box rules; ASCII fallback otherwise
};

std::string render_text(const Report& report, const TextStyle& style);
std::string render_markdown(const Report& report);
nlohmann::json report_json(const Report& report);  // schema amdml.doctor/1
nlohmann::json gpu_json(const Gpu& g);
nlohmann::json finding_json(const Finding& f);
// A failure before a report existed, in the same schema ("error" key, no findings).
nlohmann::json error_json(const std::string& message);
// JSON text for output. Strings read from a broken machine's files are bytes, not
// always UTF-8; invalid sequences become U+FFFD instead of an exception mid-report.
std::string json_text(const nlohmann::json& j, int indent = 2);

// The check gate (`amdml check`, `doctor --ci`): a section after the text report with one
// line per failed case; the "check" object of the JSON document; a JUnit XML document
// with one testcase per doctor check and expectation (src/render/check.cpp, junit.cpp).
std::string render_check_text(const CheckReport& check, const TextStyle& style);
nlohmann::json check_json(const CheckReport& check);
std::string render_junit(const Report& report, const CheckReport& check);
// A JUnit document for a run that could not start (bad --root, broken manifest).
std::string render_junit_error(const std::string& message);
// Text safe inside XML 1.0 character data and attribute values: &<>"' escaped, control
// characters XML forbids and invalid UTF-8 replaced by U+FFFD.
std::string xml_escape(std::string_view text);

// The one writer for stdout (and --output FILE through the platform layer).
void write_stdout(std::string_view text);
// Text for people (text, Markdown) on its way out: what came from the machine cannot
// drive the terminal. Control characters other than newline and tab become visible
// escapes (ESC is \x1b, a C1 control \u009b), bytes that are not UTF-8 become U+FFFD;
// with keep_colour the exact sequences paint() writes pass unchanged. JSON and JUnit
// do not go through here: their own escaping keeps every value exact.
std::string terminal_text(std::string_view text, bool keep_colour);
// terminal_text for a value inside one line ("amdml: check failed: ...", an error line):
// a newline or tab in it is an escape too (\n, \t), so a value cannot add lines.
std::string line_text(std::string_view text);

// Colour helpers for renderers.
enum class Color { red, yellow, blue, green, bold, dim };
std::string paint(const TextStyle& s, Color c, std::string_view text);

}  // namespace amdml::render