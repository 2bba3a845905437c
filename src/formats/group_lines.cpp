// /etc/group as lines (formats/group_lines.hpp).
#include "formats/group_lines.hpp"

#include "base/text.hpp"

namespace amdml::formats::group {

namespace {

std::vector<std::string> split_fields(std::string_view s) {
  std::vector<std::string> out;
  for (auto f : text::split(s, ':')) out.emplace_back(f);
  return out;
}

// The body's blanks before and after its text: [first, last) is what the fields are read from.
std::pair<std::size_t, std::size_t> trimmed_span(std::string_view body) {
  const auto t = text::trim(body);
  if (t.empty()) return {0, 0};
  const auto first = static_cast<std::size_t>(t.data() - body.data());
  return {first, first + t.size()};
}

}  // namespace

std::vector<Line> lines(std::string_view text) {
  std::vector<Line> out;
  for (const auto& pl : text::lines_with_ends(text)) {
    Line l;
    l.body = std::string(pl.body);
    l.end = std::string(pl.end);
    const auto [first, last] = trimmed_span(l.body);
    const std::string_view t = std::string_view(l.body).substr(first, last - first);
    if (!t.empty() && t[0] != '#' && t[0] != '+' && t[0] != '-') {
      auto f = split_fields(t);
      if (f.size() == 4 && !f[0].empty()) l.fields = std::move(f);
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::string join(const std::vector<Line>& ls) {
  std::string out;
  for (const auto& l : ls) out += l.body + l.end;
  return out;
}

std::vector<std::string> members(std::string_view field) {
  std::vector<std::string> out;
  if (field.empty()) return out;
  for (auto m : text::split(field, ','))
    if (auto t = text::trim(m); !t.empty()) out.emplace_back(t);
  return out;
}

void add_member(Line& line, std::string_view user) {
  if (line.fields.size() != 4) return;
  line.fields[3] += (line.fields[3].empty() ? "" : ",") + std::string(user);
  const auto [first, last] = trimmed_span(line.body);
  std::string rebuilt = line.fields[0];
  for (std::size_t i = 1; i < line.fields.size(); ++i) rebuilt += ":" + line.fields[i];
  line.body = line.body.substr(0, first) + rebuilt + line.body.substr(last);
}

}  // namespace amdml::formats::group
