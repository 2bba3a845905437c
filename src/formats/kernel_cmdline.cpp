// Kernel command lines as words; see kernel_cmdline.hpp.
#include "formats/kernel_cmdline.hpp"

namespace amdml::formats {

namespace {

// The kernel's isspace (lib/ctype.c) for the blanks a command line holds.
bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

void add_piece(std::vector<CmdlinePiece>& pieces, const CmdlinePiece& p) {
  if (p.text.empty()) return;
  if (!p.code && !pieces.empty() && !pieces.back().code) pieces.back().text += p.text;
  else pieces.push_back(p);
}

}  // namespace

CmdlineWord CmdlineWord::literal(std::string s) {
  CmdlineWord w;
  if (!s.empty()) w.pieces.push_back({std::move(s), false});
  return w;
}

std::string CmdlineWord::text() const {
  std::string out;
  for (const auto& p : pieces) out += p.text;
  return out;
}

std::optional<std::string> CmdlineWord::name() const {
  if (pieces.empty() || pieces[0].code) return std::nullopt;
  const std::string& t = pieces[0].text;
  const auto eq = t.find('=');
  if (eq == std::string::npos && pieces.size() > 1) return std::nullopt;  // an expansion inside the name
  std::string n = t.substr(0, eq);
  if (n.find('"') != std::string::npos) return std::nullopt;
  return n;
}

std::optional<std::vector<CmdlineWord>> split_cmdline(const CmdlineValue& value) {
  std::vector<CmdlineWord> out;
  CmdlineWord word;
  bool quoted = false;
  auto flush = [&] {
    if (!word.pieces.empty()) out.push_back(std::move(word));
    word = CmdlineWord{};
  };
  for (const auto& p : value) {
    if (p.code) {
      add_piece(word.pieces, p);
      continue;
    }
    std::string run;
    for (char c : p.text) {
      if (c == '"') quoted = !quoted;
      if (!quoted && blank(c)) {
        add_piece(word.pieces, {run, false});
        run.clear();
        flush();
        continue;
      }
      run += c;
    }
    add_piece(word.pieces, {run, false});
  }
  flush();
  if (quoted) return std::nullopt;
  return out;
}

std::optional<std::vector<CmdlineWord>> split_cmdline(std::string_view text) {
  return split_cmdline(CmdlineValue{{std::string(text), false}});
}

CmdlineValue join_cmdline(const std::vector<CmdlineWord>& words) {
  CmdlineValue out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) add_piece(out, {" ", false});
    for (const auto& p : words[i].pieces) add_piece(out, p);
  }
  return out;
}

std::string join_cmdline_text(const std::vector<CmdlineWord>& words) {
  std::string out;
  for (const auto& p : join_cmdline(words)) out += p.text;
  return out;
}

std::size_t cmdline_insert_at(const std::vector<CmdlineWord>& words) {
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i].pieces.size() == 1 && !words[i].pieces[0].code && words[i].pieces[0].text == "--") return i;
  return words.size();
}

Result<KernelCmdlineFile> read_kernel_cmdline(std::string_view text) {
  KernelCmdlineFile f;
  f.text = std::string(text);
  std::size_t end = text.size();
  while (end > 0 && blank(text[end - 1])) --end;
  f.trail = std::string(text.substr(end));
  auto words = split_cmdline(text.substr(0, end));
  if (!words) return make_error("a '\"' that is not closed");
  f.words = std::move(*words);
  return f;
}

std::string write_kernel_cmdline(const KernelCmdlineFile& file, const std::vector<CmdlineWord>& words) {
  if (words == file.words) return file.text;
  if (words.empty()) return "";
  // A file that ended in blanks without a newline gets one: kernel-install reads lines.
  const std::string trail = file.trail.find('\n') == std::string::npos ? file.trail + "\n" : file.trail;
  return join_cmdline_text(words) + trail;
}

}  // namespace amdml::formats
