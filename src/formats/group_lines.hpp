// /etc/group (and /etc/gshadow, which has the same four fields with the members last) as
// lines: every physical line is kept with its terminator, so joining the lines gives the
// bytes back, and a group line's fields are split here once -- for reading
// (parse::group_file) and for editing (fix's add_group_members) alike.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace amdml::formats::group {

struct Line {
  std::string body;  // the line without its terminator
  std::string end;   // "\n", "\r\n" or "" (the last line of a file without a final newline)
  // A group line's four ':' fields (name, password, gid or admins, members), read from the
  // body without its surrounding blanks; empty for a comment, a blank line, a NIS compat
  // entry (+name, -name) and any line without exactly four fields or without a name.
  std::vector<std::string> fields;
};

std::vector<Line> lines(std::string_view text);
std::string join(const std::vector<Line>& lines);

// The members of a members field: split at ',', blanks around each dropped, empty ones left out.
std::vector<std::string> members(std::string_view field);

// Appends USER to a group line's members; the blanks around the fields are kept.
void add_member(Line& line, std::string_view user);

}  // namespace amdml::formats::group
