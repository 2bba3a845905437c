// apt's source lists, both forms, read and edited through one line model:
//   one-line   /etc/apt/sources.list, sources.list.d/*.list:
//              deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] URI SUITE [COMPONENT...]
//   deb822     sources.list.d/*.sources: stanzas of "Field: value" lines (Types, URIs,
//              Suites, Components, Signed-By, Enabled, ...), continuation lines indented,
//              stanzas separated by blank lines, '#' lines comments.
// The file is kept as its lines (each with its own line ending), so writing an unedited
// file gives back its bytes, and an edit changes only the lines it names. Used by
// rocm-install to find the repository it is about to add already configured elsewhere
// (apt refuses two entries of one URI and suite with different Signed-By).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace amdml::formats::apt {

enum class Style { one_line, deb822 };

// One repository entry: a one-line `deb`/`deb-src` line or a deb822 stanza.
struct Entry {
  std::vector<std::string> types;       // deb, deb-src
  std::vector<std::string> uris;
  std::vector<std::string> suites;
  std::vector<std::string> components;
  std::map<std::string, std::string> options;  // lower-case names: "signed-by", "arch", "enabled"
  bool enabled = true;                   // deb822 "Enabled: no" turns a stanza off
  std::size_t first = 0, last = 0;       // its lines: [first, last) of SourcesFile::lines
};

struct SourcesFile {
  Style style = Style::one_line;
  std::vector<std::string> lines;  // each with its line ending (the last may have none)
  std::vector<Entry> entries;
  std::string text() const;        // the file's bytes: the lines joined
};

// Never fails: a line or stanza that is not an entry is kept as it is and is no entry.
SourcesFile parse_one_line(std::string_view text);
SourcesFile parse_deb822(std::string_view text);
// By the file name: *.sources is deb822, anything else one-line.
SourcesFile parse_sources(const std::string& path, std::string_view text);

// The URI as apt compares it: without trailing slashes.
std::string normalized_uri(std::string_view uri);
// The entry configures URI (normalized) for SUITE as a binary (deb) source.
bool configures(const Entry& e, const std::string& uri, const std::string& suite);

// The file with entry e turned off, every other byte kept: a one-line entry is commented
// out ("# " before it) under a comment line `why`; a deb822 stanza gets "Enabled: no"
// (its Enabled line, if any, is replaced) and `why` as a comment line before it.
std::string disable(const SourcesFile& f, const Entry& e, const std::string& why);

}  // namespace amdml::formats::apt
