// modprobe.d files (modprobe.d(5)), read and edited through one line model: every
// physical line is kept with its terminator, so joining the lines gives the bytes back;
// a directive is a logical line (physical lines joined where one ends in '\', as kmod
// joins them before it reads a command), split into words once. The reader
// (parse::modprobe_conf: what the modprobe probe, the boot probe and the rules see) and
// the edits fix makes (set an option's value, append options, comment a line out) both
// work on these words, so they agree on continuations, comments, quotes and spelling.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace amdml::formats::modprobe {

struct Line {
  std::string body;  // without its terminator
  std::string end;   // "\n", "\r\n" or "" (a last line without a newline)
};

// Where a word sits: physical line, offset in its body, length. A word never spans lines;
// the '\' that continues a line is not part of one.
struct Word {
  std::size_t line = 0;
  std::size_t pos = 0;
  std::size_t size = 0;
};

enum class Kind {
  blank,    // nothing, or a comment ('#' first)
  options,  // options MODULE [key=value ...]
  block,    // blacklist MODULE, or install MODULE with /bin/false or /bin/true
  other,    // another command modprobe knows (alias, softdep, install with a program, ...)
  bad,      // anything else: modprobe prints "ignoring bad line" and goes on
};

struct Directive {
  std::size_t first = 0;  // its first and last physical line (0-based)
  std::size_t last = 0;
  Kind kind = Kind::blank;
  std::vector<Word> words;  // every word, a trailing comment's words too
  std::string text;         // the logical line, the continuations' '\' as blanks, trimmed
  // Where a remark starts: the first word after the module that starts with '#'
  // (words.size() when none). Only a '#' that begins the line makes a comment: kmod hands
  // the rest of an options line to the kernel whole, and the kernel skips the words that
  // name no parameter ("#", "was") and applies the ones after them ("options ttm
  // pages_limit=1 # pages_limit=2" sets 2; `modprobe --showconfig` shows the line as it
  // is). So every word is read and edited; appended options go before the remark only so
  // that the line still reads well.
  std::size_t remark = 0;
};

struct File {
  std::vector<Line> lines;
  std::vector<Directive> directives;  // in order, one per logical line, blank ones too
};

File read(std::string_view text);
std::string join(const File& file);

std::string_view word(const File& file, const Word& w);

// A module or option name as modprobe and the kernel read it: '-' and '_' alike.
std::string name(std::string_view n);

// An options word as the kernel reads it (kernel/params.c next_arg): quotes around the
// word or around the value dropped, the key in modprobe's spelling (name()).
struct Option {
  std::string key;
  std::string value;
  std::string spelling;  // the key as the file spells it (for an edit that keeps it)
};
Option option(std::string_view w);

// Edits. Each keeps every byte outside what it changes and the file's words in step.
// Replaces word `index` of directive `d` with `text` (no blanks or newlines in it).
void replace_word(File& file, std::size_t d, std::size_t index, std::string_view text);
// Appends " WORDS" to directive `d`: before its remark when it has one, else at the end
// of its last physical line (before a final '\').
void append_words(File& file, std::size_t d, std::string_view words);
// Puts `prefix` (which starts with '#') before directive `d`'s first line: the whole
// logical line becomes a comment, every byte of it kept after the prefix.
void comment_out(File& file, std::size_t d, std::string_view prefix);

}  // namespace amdml::formats::modprobe

namespace amdml::formats::parse {

// modprobe.d: "options MODULE key=value ..." lines (with '\' continuations and '#'
// comments). Other directives are accepted and ignored; garbage goes to bad_lines.
struct ModprobeLine {
  int line = 0;
  std::string module;
  std::string key;
  std::string value;
};
struct ModprobeFile {
  std::vector<ModprobeLine> options;
  // "blacklist MODULE" and "install MODULE /bin/false" (or /bin/true): key is the
  // directive, value the whole line.
  std::vector<ModprobeLine> blocks;
  std::vector<std::pair<int, std::string>> bad_lines;
};
// modprobe.d: module and option names come back in modprobe's own spelling
// (modprobe_name), so `pages-limit` is `pages_limit` wherever it is compared.
ModprobeFile modprobe_conf(std::string_view text);
ModprobeFile modprobe_conf(const modprobe::File& file);
// A module or option name as modprobe and the kernel read it: '-' and '_' alike.
inline std::string modprobe_name(std::string_view name) { return modprobe::name(name); }

}  // namespace amdml::formats::parse
